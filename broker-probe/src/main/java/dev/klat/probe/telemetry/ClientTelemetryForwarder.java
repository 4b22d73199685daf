package dev.klat.probe.telemetry;

import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.model.SettingValueException;
import dev.klat.probe.ProbeSettings;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

/**
 * Forwards the metrics clients push to the broker (KIP-714) to klat's collector: named in the
 * broker's {@code server.properties} as {@code metric.reporters=
 * dev.klat.probe.telemetry.ClientTelemetryForwarder}, it is the broker's client telemetry receiver,
 * and posts each push, with what the broker knows of the client ({@code
 * model/ClientTelemetryAttributes}), to {@code <klat.endpoint>/v1/metrics}.
 *
 * <p>It implements {@link ClientTelemetry} and {@link ClientTelemetryReceiver}, the two interfaces
 * every broker from 3.7 to 4.4 calls (deprecated in 4.2 for {@code
 * ClientTelemetryExporterProvider}, which 4.2 to 4.4 still serve second): a class implementing that
 * newer interface would not load on 3.7 to 4.1, which lack it, and the broker would not start.
 * {@code broker-probe/DESIGN.md} has the reading of each version.
 *
 * <p>{@link #exportMetrics} runs on a broker request thread: it copies the payload and the client's
 * names into a queue bounded in count and bytes and returns; it never blocks and never throws (a
 * throw would answer the client's push with an error). One daemon thread does the rest. Without
 * {@code klat.enabled} it forwards nothing; with a bad setting, it logs one line and forwards
 * nothing; the broker is never affected.
 */
@SuppressWarnings({"deprecation", "removal"})
public final class ClientTelemetryForwarder
    implements MetricsReporter, ClientTelemetry, ClientTelemetryReceiver {

  static final String MBEAN_NAME = "dev.klat:type=ClientTelemetryForwarder";

  /** The broker's own bound on a decompressed push, and its default. */
  static final String TELEMETRY_MAX_BYTES = "telemetry.max.bytes";

  static final int DEFAULT_TELEMETRY_MAX_BYTES = 1024 * 1024;

  private final AgentLog log = AgentLog.global();
  private volatile PushQueue queue;
  private volatile ForwarderCounters counters;
  private ForwarderSender sender;
  private Thread thread;
  private final AtomicBoolean started = new AtomicBoolean();
  private ObjectName registered;

  public ClientTelemetryForwarder() {}

  @Override
  public void configure(Map<String, ?> configs) {
    configure(configs, System.getProperties(), System.getenv());
  }

  void configure(Map<String, ?> configs, Properties system, Map<String, String> environment) {
    try {
      ProbeSettings settings = ProbeSettings.load(system, environment);
      for (String warning : settings.warnings) {
        log.warnOnce("telemetry-setting." + warning, "client telemetry forwarder: " + warning);
      }
      if (!settings.enabled) {
        log.info("client telemetry forwarder: klat.enabled=false, clients' metrics not forwarded");
        return;
      }
      long brokerId = brokerId(configs);
      int maxPayloadBytes =
          Math.min(
              intConfig(configs, TELEMETRY_MAX_BYTES, DEFAULT_TELEMETRY_MAX_BYTES),
              settings.clientTelemetryQueueBytes);
      PushQueue pushes =
          new PushQueue(settings.clientTelemetryQueueSize, settings.clientTelemetryQueueBytes);
      ForwarderCounters counts = new ForwarderCounters(pushes::size);
      String version = version();
      sender =
          new ForwarderSender(
              pushes,
              new PayloadDecoder(maxPayloadBytes),
              new ResourceAugmenter(brokerId),
              new OtlpHttpSender(
                  settings.endpoint,
                  settings.exportHeaders,
                  settings.exportTls,
                  settings.gzip,
                  version,
                  TimeSource.SYSTEM),
              settings.timeoutMillis,
              counts,
              log);
      register(counts);
      counters = counts;
      queue = pushes;
      log.info(
          "client telemetry forwarder "
              + version
              + ": forwarding the metrics clients push to broker "
              + brokerId
              + " (Kafka "
              + kafkaVersion()
              + ") to "
              + Secrets.redactUserInfo(settings.endpoint)
              + "/v1/metrics");
    } catch (SettingValueException e) {
      log.error(
          "client telemetry forwarder: not started, the broker runs without it: " + e.getMessage());
    } catch (Throwable t) {
      log.error("client telemetry forwarder: not started, the broker runs without it: " + t);
    }
  }

  @Override
  public ClientTelemetryReceiver clientReceiver() {
    return this;
  }

  /**
   * Copies the push into the queue; on a broker request thread, so nothing here blocks or throws.
   */
  @Override
  public void exportMetrics(AuthorizableRequestContext context, ClientTelemetryPayload payload) {
    PushQueue pushes = queue;
    ForwarderCounters counts = counters;
    if (pushes == null || counts == null) {
      return;
    }
    try {
      counts.received.incrementAndGet();
      ByteBuffer data = payload.data();
      if (data == null || !data.hasRemaining()) {
        counts.droppedEmpty.incrementAndGet();
        return;
      }
      ByteBuffer view = data.duplicate();
      int size = view.remaining();
      // Refused before the copy when it could not fit anyway: no allocation for a full queue.
      if (pushes.bytes() + size > pushes.maxBytes()) {
        counts.droppedQueueFull.incrementAndGet();
        return;
      }
      byte[] copy = new byte[size];
      view.get(copy);
      Push push =
          new Push(
              copy,
              instanceId(payload.clientInstanceId()),
              payload.isTerminating(),
              context.clientId(),
              principal(context.principal()),
              address(context.clientAddress()),
              softwareName(context),
              softwareVersion(context));
      if (!pushes.offer(push)) {
        counts.droppedQueueFull.incrementAndGet();
        return;
      }
      if (!started.get() && started.compareAndSet(false, true)) {
        startSender();
      }
    } catch (Throwable t) {
      counts.droppedError.incrementAndGet();
      log.warnThrottled("telemetry-export", "client telemetry forwarder: push not queued: " + t);
    }
  }

  private synchronized void startSender() {
    thread = new Thread(sender, "klat-client-telemetry");
    thread.setDaemon(true);
    thread.start();
  }

  /** The counters, or null when the forwarder is off. */
  ForwarderCounters counters() {
    return counters;
  }

  @Override
  public void init(List<KafkaMetric> metrics) {}

  @Override
  public void metricChange(KafkaMetric metric) {}

  @Override
  public void metricRemoval(KafkaMetric metric) {}

  @Override
  public synchronized void close() {
    queue = null;
    if (sender != null) {
      sender.stop();
    }
    if (thread != null) {
      thread.interrupt();
    }
    if (registered != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(registered);
      } catch (Exception | LinkageError e) {
        // Gone already: nothing to undo.
      }
      registered = null;
    }
  }

  private void register(ForwarderCounters counts) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName(MBEAN_NAME);
      if (!server.isRegistered(name)) {
        server.registerMBean(counts, name);
        registered = name;
      }
    } catch (Exception | LinkageError e) {
      log.warn("client telemetry forwarder: its counters are not in JMX: " + e);
    }
  }

  static long brokerId(Map<String, ?> configs) {
    for (String key : new String[] {"node.id", "broker.id"}) {
      Object value = configs.get(key);
      if (value != null) {
        try {
          return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
          // try the next key
        }
      }
    }
    return -1;
  }

  private static int intConfig(Map<String, ?> configs, String key, int otherwise) {
    Object value = configs.get(key);
    if (value == null) {
      return otherwise;
    }
    try {
      int parsed = Integer.parseInt(value.toString().trim());
      return parsed > 0 ? parsed : otherwise;
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  /** Kafka's string form of the id, the one the client's {@code clientInstanceId()} returns. */
  private static String instanceId(Uuid id) {
    return id == null ? null : id.toString();
  }

  private static String principal(KafkaPrincipal principal) {
    return principal == null ? null : principal.toString();
  }

  private static String address(InetAddress address) {
    return address == null ? null : address.getHostAddress();
  }

  // The broker hands a RequestContext (the request's own); another implementation has no
  // ApiVersions information.
  private static String softwareName(AuthorizableRequestContext context) {
    ClientInformation information = information(context);
    return information == null ? null : information.softwareName();
  }

  private static String softwareVersion(AuthorizableRequestContext context) {
    ClientInformation information = information(context);
    return information == null ? null : information.softwareVersion();
  }

  private static ClientInformation information(AuthorizableRequestContext context) {
    return context instanceof RequestContext ? ((RequestContext) context).clientInformation : null;
  }

  /** The broker's kafka-clients version, from the file its AppInfoParser reads (moved in 4.4). */
  private static String kafkaVersion() {
    try (InputStream in =
        ClientTelemetry.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      Properties properties = new Properties();
      if (in != null) {
        properties.load(in);
      }
      return properties.getProperty("version", "unknown");
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String version() {
    String version = ClientTelemetryForwarder.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}

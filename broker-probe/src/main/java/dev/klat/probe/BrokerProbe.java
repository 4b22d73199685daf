package dev.klat.probe;

import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.model.SettingValueException;
import java.lang.instrument.Instrumentation;
import java.security.SecureRandom;

/**
 * The broker probe's entry point ({@code -javaagent:klat-broker-probe.jar}, through {@code
 * KAFKA_OPTS} as the Prometheus JMX exporter is attached). It registers a transformer for {@code
 * kafka.cluster.Partition} and, once that class is woven, starts the exporter thread. Any failure
 * here is one log line and a broker without the probe; {@code klat.enabled=false} registers nothing
 * at all.
 */
public final class BrokerProbe {

  private BrokerProbe() {}

  public static void premain(String arguments, Instrumentation instrumentation) {
    AgentLog log = AgentLog.global();
    try {
      ProbeSettings settings = ProbeSettings.load(System.getProperties(), System.getenv());
      log.setLevel(level(settings.logLevel));
      for (String warning : settings.warnings) {
        log.warn("broker probe: " + warning);
      }
      if (!settings.enabled) {
        log.info("broker probe: klat.enabled=false, nothing instrumented");
        return;
      }
      String version = version();
      EventRing ring = new EventRing(settings.queueSize);
      long instanceId = new SecureRandom().nextLong() | 1L;
      ProbeExporter exporter =
          new ProbeExporter(
              ring,
              new PartitionTimelines(
                  settings.maxPartitions,
                  settings.maxRangesPerPartition,
                  settings.resolutionMicros),
              new LogsEncoder(settings.serviceName, instanceId, version),
              new OtlpHttpSender(
                  settings.endpoint,
                  settings.exportHeaders,
                  settings.exportTls,
                  settings.gzip,
                  version,
                  TimeSource.SYSTEM),
              settings,
              log);
      Runnable start =
          () -> {
            PartitionHooks.install(ring);
            Thread thread = new Thread(exporter, "klat-broker-probe");
            thread.setDaemon(true);
            thread.start();
          };
      instrumentation.addTransformer(
          new ProbeTransformer(PartitionInstrumentation.plan(), log, once(start)), false);
      log.info(
          "broker probe "
              + version
              + ": sending leader appends and high-watermark advances to "
              + Secrets.redactUserInfo(settings.endpoint));
    } catch (SettingValueException e) {
      // The message names the key, the value and what it must be: the whole story in one line.
      log.error("broker probe: not started, the broker runs without it: " + e.getMessage());
    } catch (Throwable t) {
      log.error("broker probe: not started, the broker runs without it: " + t);
    }
  }

  private static Runnable once(Runnable action) {
    boolean[] done = {false};
    return () -> {
      synchronized (done) {
        if (!done[0]) {
          done[0] = true;
          action.run();
        }
      }
    };
  }

  private static AgentLog.Level level(String name) {
    for (AgentLog.Level level : AgentLog.Level.values()) {
      if (level.name().equalsIgnoreCase(name.trim())) {
        return level;
      }
    }
    throw new IllegalArgumentException("klat.log.level must be off, error, warn, info or debug");
  }

  private static String version() {
    String version = BrokerProbe.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}

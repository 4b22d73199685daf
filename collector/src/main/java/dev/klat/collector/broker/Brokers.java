package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.instants.Replicas;
import java.net.MalformedURLException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.remote.JMXServiceURL;

/**
 * Keeps every broker's RequestMetrics current and serves them as {@link BrokerTimings}: brokers
 * from configured lists or discovered through the Admin client, each scraped every interval on the
 * collector's own daemon threads (never on the receive or join path), with timeouts. A broker that
 * fails is counted and reported, and scraped again at the next interval; nothing here throws once
 * started.
 */
public final class Brokers implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Brokers.class.getName());
  private static final int THREADS = 4;

  private final BrokerSettings settings;
  private final LongSupplier epochNanos;
  private final Discovery discovery;
  private final TimingStore store;
  private final ReplicaStore replicas = new ReplicaStore();
  private final Map<Integer, Target> targets = new ConcurrentHashMap<>();
  private final ScheduledThreadPoolExecutor executor;
  private final AtomicLong discoveryErrors = new AtomicLong();
  private volatile long lastDiscoveryEpochNanos = -1;
  private volatile String lastDiscoveryError;
  private volatile boolean closed;

  Brokers(BrokerSettings settings, LongSupplier epochNanos, Discovery discovery, boolean schedule) {
    this.settings = settings;
    this.epochNanos = epochNanos;
    this.discovery = discovery;
    this.store = new TimingStore(settings.staleMs() * 1_000_000L);
    long now = epochNanos.getAsLong();
    for (int id : settings.exporters().keySet()) {
      addConfigured(id, now);
    }
    for (int id : settings.jmx().keySet()) {
      addConfigured(id, now);
    }
    if (!schedule) {
      executor = null;
      return;
    }
    executor =
        new ScheduledThreadPoolExecutor(
            THREADS,
            r -> {
              Thread t = new Thread(r, "klat-broker-scrape");
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
    // A periodic task that throws is never run again: both catch everything.
    if (discovery != null) {
      executor.scheduleWithFixedDelay(
          () -> safely("discovery", this::discoverOnce),
          0,
          settings.discoveryIntervalMs(),
          TimeUnit.MILLISECONDS);
    }
    executor.scheduleAtFixedRate(
        () ->
            safely(
                "scheduling scrapes",
                () -> targets.values().forEach(t -> executor.execute(() -> scrape(t)))),
        0,
        settings.scrapeIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  private void safely(String what, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      if (!closed) {
        LOG.log(Level.WARNING, what + " failed", e);
      }
    }
  }

  /** Starts scraping (and discovery, when configured) on the collector's own daemon threads. */
  public static Brokers start(BrokerSettings settings) {
    Discovery discovery =
        settings.bootstrap().isEmpty()
            ? null
            : new Discovery.ViaAdmin(
                settings.bootstrap(),
                settings.connectTimeoutMs() + settings.readTimeoutMs(),
                settings.kafka());
    if (settings.exporterAuth().authenticates() && sendsCredentialsInClear(settings)) {
      LOG.warning(
          "brokers.exporter: credentials go to an http:// exporter in clear text; use https (see"
              + " brokers.exporter-certificate)");
    }
    return new Brokers(settings, Brokers::wallClockNanos, discovery, settings.enabled());
  }

  private static boolean sendsCredentialsInClear(BrokerSettings settings) {
    boolean discoveredInClear = settings.exporterPort() > 0 && !settings.exporterAuth().https();
    return discoveredInClear
        || settings.exporters().values().stream()
            .anyMatch(uri -> "http".equalsIgnoreCase(uri.getScheme()));
  }

  private static long wallClockNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /** The timings the correlator reads; lookups never block and never do I/O. */
  public BrokerTimings timings() {
    return store;
  }

  private void addConfigured(int nodeId, long now) {
    if (targets.containsKey(nodeId)) {
      return;
    }
    List<Source> sources = new ArrayList<>();
    URI exporter = settings.exporters().get(nodeId);
    if (exporter != null) {
      sources.add(exporterSource(exporter));
    }
    JMXServiceURL jmx = settings.jmx().get(nodeId);
    if (jmx != null) {
      sources.add(jmxSource(jmx));
    }
    Target target = new Target(nodeId, false, null, sources, newHistory(), now);
    targets.put(nodeId, target);
    store.put(nodeId, target.history);
  }

  private ExporterSource exporterSource(URI uri) {
    return new ExporterSource(
        uri, settings.connectTimeoutMs(), settings.readTimeoutMs(), settings.exporterAuth());
  }

  private JmxSource jmxSource(JMXServiceURL url) {
    return new JmxSource(
        url, settings.connectTimeoutMs(), settings.readTimeoutMs(), settings.jmxAuth());
  }

  private BrokerHistory newHistory() {
    // Room for the whole history at the configured rate, with slack for a slow scheduler.
    long perHistory = settings.historyMs() / Math.max(1, settings.scrapeIntervalMs()) + 1;
    return new BrokerHistory(
        settings.historyMs() * 1_000_000L, (int) Math.min(100_000, perHistory * 2 + 16));
  }

  /** Scrapes every broker now, on the calling thread; for tests. */
  void scrapeOnce() {
    targets.values().forEach(this::scrape);
  }

  private void scrape(Target target) {
    if (closed || !target.busy.compareAndSet(false, true)) {
      return; // the previous scrape of this broker is still running
    }
    if (target.retired) {
      target.closeSources(); // replaced or forgotten while this scrape waited for a thread
      return;
    }
    try {
      List<String> errors = new ArrayList<>();
      for (Source source : target.sources) {
        try {
          Reading reading = source.read(epochNanos);
          if (!reading.any()) {
            throw new java.io.IOException(
                "no kafka.network RequestMetrics in the answer (for the exporter: are the rules"
                    + " of deploy/jmx-exporter/kafka-broker.yaml loaded?)");
          }
          target.history.add(reading);
          if (!target.lastOk && target.lastAttemptEpochNanos >= 0) {
            LOG.info("broker " + target.nodeId + " is back (" + source.endpoint() + ")");
          }
          target.source = source.kind();
          target.lastSuccessEpochNanos = reading.epochNanos;
          target.lastError = null;
          target.lastOk = true;
          return;
        } catch (Exception e) {
          errors.add(source.kind() + " " + source.endpoint() + ": " + describe(e));
        }
      }
      target.errors.incrementAndGet();
      String error = String.join("; ", errors);
      if (target.lastOk || target.lastAttemptEpochNanos < 0) {
        LOG.warning("broker " + target.nodeId + " metrics unavailable: " + error);
      }
      target.lastError = error;
      target.lastOk = false;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "scraping broker " + target.nodeId + " failed", e);
    } finally {
      target.lastAttemptEpochNanos = epochNanos.getAsLong();
      target.busy.set(false);
      if (target.retired) {
        target.closeSources();
      }
    }
  }

  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = e.getMessage();
    String rootText = root == e ? "" : " (" + root.getClass().getSimpleName() + ")";
    return e.getClass().getSimpleName()
        + (message == null ? "" : ": " + message.replace('\n', ' '))
        + rootText;
  }

  /** Asks the cluster for its brokers and adds, moves or forgets discovered ones; for tests. */
  void discoverOnce() {
    if (discovery == null || closed) {
      return;
    }
    long now = epochNanos.getAsLong();
    Map<Integer, String> nodes;
    try {
      nodes = discovery.nodes();
    } catch (Exception e) {
      discoveryErrors.incrementAndGet();
      String error = describe(e);
      if (lastDiscoveryError == null) {
        LOG.warning("broker discovery through " + settings.bootstrap() + " failed: " + error);
      }
      lastDiscoveryError = error;
      return;
    }
    lastDiscoveryEpochNanos = now;
    lastDiscoveryError = null;
    replicas.liveBrokers(nodes.size());
    discoverReplicas();
    nodes.forEach(
        (id, host) -> {
          Target existing = targets.get(id);
          if (existing != null && !existing.discovered) {
            return; // configured explicitly: the list wins
          }
          if (existing != null && host.equals(existing.host)) {
            existing.absentSinceEpochNanos = -1;
            return;
          }
          List<Source> sources = new ArrayList<>();
          if (settings.exporterPort() > 0) {
            String h = host.contains(":") ? "[" + host + "]" : host;
            sources.add(
                exporterSource(
                    URI.create(
                        (settings.exporterAuth().https() ? "https://" : "http://")
                            + h
                            + ":"
                            + settings.exporterPort()
                            + "/metrics")));
          }
          if (settings.jmxPort() > 0) {
            try {
              sources.add(
                  jmxSource(new JMXServiceURL(JmxSource.serviceUrl(host, settings.jmxPort()))));
            } catch (MalformedURLException e) {
              LOG.warning("broker " + id + ": no JMX URL for host " + host + ": " + e.getMessage());
            }
          }
          // A broker that moved keeps its history: its counts going down mark the new process.
          BrokerHistory history = existing == null ? newHistory() : existing.history;
          Target target = new Target(id, true, host, sources, history, now);
          targets.put(id, target);
          store.put(id, history);
          if (existing != null) {
            existing.retire();
          } else {
            LOG.info("broker " + id + " discovered at " + host);
          }
        });
    long forgetAfterNanos = settings.historyMs() * 1_000_000L;
    for (Target target : targets.values()) {
      if (!target.discovered || nodes.containsKey(target.nodeId)) {
        continue;
      }
      if (target.absentSinceEpochNanos < 0) {
        target.absentSinceEpochNanos = now; // stopped or fenced: reported down, kept for now
      } else if (now - target.absentSinceEpochNanos > forgetAfterNanos) {
        targets.remove(target.nodeId, target);
        store.remove(target.nodeId);
        target.retire();
        LOG.info("broker " + target.nodeId + " left the cluster; forgotten");
      }
    }
  }

  // The topics the correlator asked about; a failure keeps the counts of the last success.
  private void discoverReplicas() {
    try {
      replicas.counts(discovery.replicaCounts(replicas.wanted()));
    } catch (Exception e) {
      LOG.fine("describing topics failed: " + describe(e));
    }
  }

  /**
   * The partitions' replica counts, kept current by discovery (unknown without it). Lookups never
   * block.
   */
  public Replicas replicas() {
    return replicas;
  }

  /** Topics that left the replica counts' asked-about set, the least recently asked first. */
  public long replicaTopicsEvicted() {
    return replicas.evicted();
  }

  /**
   * Whether {@code nodeId} is a broker the collector reads (listed, or discovered and not yet
   * forgotten): such a node id is a real broker's, whatever a span says. Never blocks.
   */
  public boolean knows(int nodeId) {
    return targets.containsKey(nodeId);
  }

  /** Every broker's state, by node id. */
  public List<BrokerStatus> status() {
    long now = epochNanos.getAsLong();
    long staleNanos = settings.staleMs() * 1_000_000L;
    List<BrokerStatus> out = new ArrayList<>();
    for (Target t : new TreeMap<>(targets).values()) {
      long lastSuccess = t.lastSuccessEpochNanos;
      Map<Request, RequestTimings> latest = new EnumMap<>(Request.class);
      for (Request request : Phase.REQUESTS) {
        RequestTimings timings = t.history.latest(request);
        if (timings != null) {
          latest.put(request, timings);
        }
      }
      List<String> sources = new ArrayList<>();
      t.sources.forEach(s -> sources.add(s.kind() + " " + s.endpoint()));
      out.add(
          new BrokerStatus(
              t.nodeId,
              t.discovered,
              Collections.unmodifiableList(sources),
              t.source,
              t.lastOk && lastSuccess >= 0 && now - lastSuccess <= staleNanos,
              lastSuccess,
              now - (lastSuccess >= 0 ? lastSuccess : t.addedEpochNanos),
              t.lastError,
              t.errors.get(),
              t.history.resets(),
              Collections.unmodifiableMap(latest),
              t.history.partitions()));
    }
    return out;
  }

  /** The JSON of {@code /api/brokers}. */
  public String json() {
    return BrokersJson.json(
        status(),
        discovery == null
            ? null
            : new BrokersJson.DiscoveryStatus(
                settings.bootstrap(),
                lastDiscoveryEpochNanos,
                lastDiscoveryError,
                discoveryErrors.get()));
  }

  /** Stops scraping and discovery and drops every connection; idempotent, never throws. */
  @Override
  public void close() {
    closed = true;
    if (executor != null) {
      executor.shutdownNow();
    }
    for (Target t : targets.values()) {
      t.retire();
    }
    if (discovery != null) {
      try {
        discovery.close();
      } catch (RuntimeException e) {
        LOG.log(Level.FINE, "closing discovery", e);
      }
    }
  }

  /** One broker's sources and state; the state is written by the thread scraping it. */
  private static final class Target {
    final int nodeId;
    final boolean discovered;
    final String host;
    final List<Source> sources;
    final BrokerHistory history;
    final long addedEpochNanos;
    final AtomicBoolean busy = new AtomicBoolean();
    final AtomicLong errors = new AtomicLong();
    volatile String source;
    volatile boolean lastOk;
    volatile long lastSuccessEpochNanos = -1;
    volatile long lastAttemptEpochNanos = -1;
    volatile String lastError;
    volatile long absentSinceEpochNanos = -1;
    volatile boolean retired;

    Target(
        int nodeId,
        boolean discovered,
        String host,
        List<Source> sources,
        BrokerHistory history,
        long addedEpochNanos) {
      this.nodeId = nodeId;
      this.discovered = discovered;
      this.host = host;
      this.sources = List.copyOf(sources);
      this.history = history;
      this.addedEpochNanos = addedEpochNanos;
    }

    /** No more scrapes: closes the sources now, or after the scrape that is running. */
    void retire() {
      retired = true;
      if (busy.compareAndSet(false, true)) {
        closeSources();
      }
    }

    void closeSources() {
      for (Source s : sources) {
        s.close();
      }
    }
  }
}

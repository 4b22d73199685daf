package dev.klat.collector;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.BreakdownHistory;
import dev.klat.collector.aggregate.BreakdownMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.ShareSummary;
import dev.klat.collector.aggregate.SlowRecord;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.broker.Brokers;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.diagnose.Diagnosis;
import dev.klat.collector.diagnose.DiagnosisGauges;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.PipelineDiagnosis;
import dev.klat.collector.export.AdminServer;
import dev.klat.collector.export.TraceExporter;
import dev.klat.collector.pipeline.PipelineMetrics;
import dev.klat.collector.pipeline.PipelineNames;
import dev.klat.collector.pipeline.Pipelines;
import dev.klat.collector.pipeline.PipelinesReport;
import dev.klat.collector.receive.OtlpGrpcReceiver;
import dev.klat.collector.receive.OtlpHttpReceiver;
import dev.klat.collector.receive.OtlpIngest;
import dev.klat.collector.receive.OtlpSink;
import dev.klat.collector.receive.ReceiverLimits;
import dev.klat.collector.receive.ReceiverStats;
import dev.klat.collector.scale.SpanTopics;
import dev.klat.collector.scale.ingest.KafkaIngest;
import dev.klat.collector.scale.join.JoinMember;
import dev.klat.collector.scale.join.ProbeLogReader;
import dev.klat.model.Capture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The running collector: the OTLP receiver feeds the {@link Correlator} and the merged agent
 * metrics; every breakdown goes to the histograms, the recent-breakdowns ring and, when configured,
 * the trace exporter; the admin port serves what they hold.
 */
public final class Collector implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Collector.class.getName());

  private final Correlator correlator;
  private final ProbeTimelines probeTimelines;
  private final AgentMetrics agentMetrics;
  private final BreakdownMetrics breakdownMetrics;
  private final RecentBreakdowns recent;
  private final DiagnosisGauges diagnosisGauges;
  private final BreakdownHistory history;
  private final ScheduledExecutorService historySampler;
  private final TraceExporter traceExporter;
  private final OtlpIngest ingest;
  private final KafkaIngest kafkaIngest;
  private final OtlpHttpReceiver receiver;
  private final OtlpGrpcReceiver grpcReceiver;
  private final AdminServer admin;
  private final ScheduledExecutorService scheduler;
  private final Brokers brokers;
  private final Mode mode;
  private final JoinMember joinMember;
  private final ProbeLogReader probeReader;
  private final CollectorFigures figures;
  private final ListenerSecurities listeners;
  private final PipelineNames pipelineNames;
  private final int maxPipelines;
  private final PipelineMetrics pipelineMetrics;

  private Collector(CollectorConfig config) throws IOException {
    mode = config.mode();
    long joinWindowNanos = config.durationMillis("join.window") * 1_000_000L;
    int maxPending = config.positiveInt("join.max-pending-records");
    agentMetrics =
        new AgentMetrics(
            config.positiveInt("metrics.max-streams"),
            config.durationMillis("metrics.gauge-stale") * 1_000_000L,
            config.positiveInt("metrics.max-topic-groups"),
            System::nanoTime);
    recent = new RecentBreakdowns(config.positiveInt("api.recent-breakdowns"));
    pipelineNames = config.pipelineNames();
    maxPipelines = config.positiveInt("pipeline.max-pipelines");
    pipelineMetrics =
        new PipelineMetrics(maxPipelines, pipelineNames, PIPELINE_METRICS_WINDOW_NANOS);
    diagnosisGauges =
        new DiagnosisGauges(
            recent::busiestPairs,
            this::diagnose,
            config.durationMillis("diagnosis.window") * 1_000_000L,
            config.durationMillis("diagnosis.interval") * 1_000_000L,
            config.positiveInt("diagnosis.max-topic-groups"),
            System::nanoTime);
    long historyIntervalNanos = config.durationMillis("history.interval") * 1_000_000L;
    history =
        new BreakdownHistory(
            recent,
            historyIntervalNanos,
            config.historyPointsPerPair() * historyIntervalNanos,
            config.positiveInt("history.max-topic-groups"));
    TraceExporter.Settings traces = config.traceSettings();
    // First: a TLS or tokens file that does not load stops start-up before anything runs.
    listeners = new ListenerSecurities(config);
    try {
      traceExporter = traces == null ? null : new TraceExporter(traces);
    } catch (RuntimeException e) {
      listeners.close();
      throw e;
    }
    brokers = Brokers.start(config.brokerSettings());
    breakdownMetrics =
        new BreakdownMetrics(
            config.positiveInt("metrics.max-topic-groups"),
            config.positiveInt("metrics.max-brokers"),
            BreakdownMetrics.maxHistogramsFor(config.positiveInt("metrics.max-bytes")),
            brokers::knows,
            System::currentTimeMillis);
    long clockWindowNanos = config.durationMillis("clock.window") * 1_000_000L;
    probeTimelines =
        new ProbeTimelines(
            config.positiveInt("probe.max-partitions"),
            config.positiveInt("probe.max-ranges-per-term"),
            config.positiveInt("probe.max-bytes"),
            config.durationMillis("probe.retention") * 1_000_000L);
    correlator =
        Correlator.sourced(
            new Correlator.Settings(
                joinWindowNanos,
                maxPending,
                clockWindowNanos,
                config.positiveInt("clock.max-pairs"),
                config.positiveInt("join.max-pending-bytes"),
                config.positiveInt("join.max-groups-per-record"),
                config.durationMillis("clock.max-step") * 1_000_000L,
                config.positiveInt("join.max-pending-tail-bytes")),
            System::nanoTime,
            // Without brokers configured every lookup answers null, and this is the timestamp
            // source alone; without discovery no replica count is known.
            BrokerInstants.probeFirst(
                probeTimelines, brokers.timings(), brokers.replicas(), clockWindowNanos),
            this::onSourcedBreakdown);
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "klat-join-expiry");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(this::expireJoins, 1, 1, TimeUnit.SECONDS);
    // Its own thread: a sample scans the recent breakdowns once per pair, which must not delay the
    // join's expiry.
    historySampler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "klat-history");
              t.setDaemon(true);
              return t;
            });
    historySampler.scheduleAtFixedRate(
        this::sampleHistory, historyIntervalNanos, historyIntervalNanos, TimeUnit.NANOSECONDS);
    // The same thread: assembling the window's chains scans the ring like a history sample.
    historySampler.scheduleAtFixedRate(
        this::updatePipelineMetrics,
        historyIntervalNanos,
        historyIntervalNanos,
        TimeUnit.NANOSECONDS);
    ingest =
        new OtlpIngest(correlator, agentMetrics, probeTimelines, correlator::offerBrokerClockSync);
    if (mode == Mode.JOIN) {
      SpanTopicSettings topics = config.spanTopics();
      try (Admin admin = Admin.create(adminProperties(topics))) {
        SpanTopics.ensure(admin, topics);
      }
      joinMember =
          new JoinMember(
              new JoinMember.Settings(
                  topics,
                  (int) config.durationMillis("spans.kafka.session-timeout"),
                  joinWindowNanos,
                  maxPending,
                  config.durationMillis("metrics.gauge-stale") * 1_000_000L),
              ingest,
              agentMetrics,
              correlator,
              this::onBreakdown,
              System::nanoTime);
      // Back two join windows, or the probe's retention if longer: a member taking a partition over
      // reads its spans again from up to one window back, and their broker instants are older
      // still (a tail record's by its age).
      probeReader =
          new ProbeLogReader(
              topics.bootstrapServers(),
              topics.client(),
              topics.logsTopic(),
              Math.max(2 * joinWindowNanos / 1_000_000L, config.durationMillis("probe.retention")),
              ingest);
    } else {
      joinMember = null;
      probeReader = null;
    }
    kafkaIngest = mode == Mode.INGEST ? KafkaIngest.start(config.spanTopics()) : null;
    OtlpSink sink = kafkaIngest != null ? kafkaIngest : ingest;
    figures =
        new CollectorFigures(
            correlator,
            sink::stats,
            probeTimelines,
            agentMetrics,
            breakdownMetrics,
            diagnosisGauges,
            brokers,
            traceExporter,
            joinMember,
            probeReader,
            listeners,
            pipelineMetrics);
    OtlpHttpReceiver r = null;
    OtlpGrpcReceiver g = null;
    AdminServer a = null;
    ReceiverLimits limits =
        new ReceiverLimits(
            config.positiveInt("otlp.max-body-bytes"),
            config.positiveInt("otlp.max-concurrent-requests"),
            config.positiveLong("otlp.max-receiving-bytes"),
            config.durationMillis("otlp.read-timeout"));
    try {
      if (mode != Mode.JOIN) {
        InetSocketAddress http = address(config, "otlp.http.host", "otlp.http.port");
        r =
            listen(
                http,
                "otlp.http.port",
                () -> new OtlpHttpReceiver(http, limits, sink, listeners.otlpHttp()));
        if (config.bool("otlp.grpc.enabled")) {
          InetSocketAddress grpc = address(config, "otlp.grpc.host", "otlp.grpc.port");
          g =
              listen(
                  grpc,
                  "otlp.grpc.port",
                  () -> new OtlpGrpcReceiver(grpc, limits, sink, listeners.otlpGrpc()));
        }
      }
      InetSocketAddress adminAddress = address(config, "admin.host", "admin.port");
      a =
          listen(
              adminAddress,
              "admin.port",
              () ->
                  new AdminServer(
                      adminAddress,
                      figures::families,
                      recentQueries(),
                      history,
                      correlator::clockOffsets,
                      this::stats,
                      brokers::json,
                      this::problem,
                      listeners.admin(),
                      config.positiveInt("metrics.max-bytes")));
    } catch (IOException | RuntimeException e) {
      listeners.close();
      if (r != null) {
        r.close();
      }
      if (g != null) {
        g.close();
      }
      scheduler.shutdownNow();
      historySampler.shutdownNow();
      brokers.close();
      if (traceExporter != null) {
        traceExporter.close();
      }
      if (kafkaIngest != null) {
        kafkaIngest.close();
      }
      throw e;
    }
    receiver = r;
    grpcReceiver = g;
    admin = a;
    for (String warning : exposureWarnings(config)) {
      LOG.warning(warning);
    }
    if (joinMember != null) {
      joinMember.start();
      probeReader.start();
    }
  }

  // What /api/stats shows: the parts' counts and the admin port's own.
  private Map<String, Long> stats() {
    Map<String, Long> stats = figures.stats();
    stats.put("metricsSeriesDropped", admin == null ? 0 : admin.metricsSeriesDropped());
    return stats;
  }

  /** Opens one listener. */
  private interface Opener<T> {
    T open() throws IOException;
  }

  /**
   * Opens a listener; a failure says where, and which setting moves it ("cannot listen on
   * 127.0.0.1:4318 (otlp.http.port): address already in use").
   */
  static <T> T listen(InetSocketAddress address, String portKey, Opener<T> opener)
      throws IOException {
    try {
      return opener.open();
    } catch (IOException e) {
      throw new IOException(
          "cannot listen on "
              + address.getHostString()
              + ":"
              + address.getPort()
              + " ("
              + portKey
              + "): "
              + rootMessage(e),
          e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    // Netty's native transport says "bind(..) failed: Address already in use".
    int colon = message.lastIndexOf(": ");
    if (message.toLowerCase(java.util.Locale.ROOT).contains("already in use")) {
      return "address already in use";
    }
    String text =
        colon >= 0 && message.startsWith("bind(") ? message.substring(colon + 2) : message;
    return text.isEmpty() ? text : Character.toLowerCase(text.charAt(0)) + text.substring(1);
  }

  private static InetSocketAddress address(CollectorConfig config, String hostKey, String portKey) {
    return new InetSocketAddress(config.string(hostKey), config.port(portKey));
  }

  /**
   * One line per listener reachable from other hosts without TLS or without tokens; none for
   * loopback ones.
   */
  List<String> exposureWarnings(CollectorConfig config) {
    List<String> out = new java.util.ArrayList<>();
    if (receiver != null) {
      add(
          out,
          listeners
              .otlpHttp()
              .exposureWarning(
                  "OTLP/HTTP",
                  config.string("otlp.http.host"),
                  receiver.address(),
                  "otlp.auth-tokens-file",
                  "anyone who reaches it can send spans and metrics"));
    }
    if (grpcReceiver != null) {
      add(
          out,
          listeners
              .otlpGrpc()
              .exposureWarning(
                  "OTLP/gRPC",
                  config.string("otlp.grpc.host"),
                  grpcReceiver.address(),
                  "otlp.auth-tokens-file",
                  "anyone who reaches it can send spans and metrics"));
    }
    add(
        out,
        listeners
            .admin()
            .exposureWarning(
                "The admin port (/metrics, /api/*)",
                config.string("admin.host"),
                admin.address(),
                "admin.auth-tokens-file",
                "anyone who reaches it can read topics, groups, latencies and host names"));
    return out;
  }

  private static void add(List<String> out, String warning) {
    if (warning != null) {
      out.add(warning);
    }
  }

  /** What {@code /healthz} reports: null while every part works, else the first that stopped. */
  private String problem() {
    String joining = joinMember == null ? null : joinMember.problem();
    if (joining != null) {
      return joining;
    }
    return probeReader == null ? null : probeReader.problem();
  }

  /**
   * Starts a collector.
   *
   * @throws IOException if a port cannot be bound
   */
  public static Collector start(CollectorConfig config) throws IOException {
    return new Collector(config);
  }

  private void onSourcedBreakdown(JoinedBreakdown joined, long source) {
    if (joinMember != null) {
      joinMember.onBreakdown(joined, source);
    } else {
      onBreakdown(joined);
    }
  }

  private void onBreakdown(JoinedBreakdown joined) {
    breakdownMetrics.record(joined);
    recent.add(joined, System.nanoTime());
    if (traceExporter != null) {
      traceExporter.offer(joined);
    }
  }

  private void expireJoins() {
    // An exception would cancel every later expiry, and the join table would fill: log it and go
    // on. Expiry hands breakdowns to the sink (one-sided tail ones, those that waited for broker
    // data), so a bug downstream must not stop the join.
    try {
      correlator.expire();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "ending the join windows failed", e);
    }
  }

  private void sampleHistory() {
    // An exception would cancel every later sample: log it and go on.
    try {
      history.sample(System.nanoTime(), System.currentTimeMillis());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "sampling the breakdown history failed", e);
    }
  }

  private void updatePipelineMetrics() {
    // An exception would cancel every later update: log it and go on.
    try {
      long now = System.nanoTime();
      pipelineMetrics.update(recent.hopRecords(PIPELINE_METRICS_WINDOW_NANOS, now), now);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "updating the pipeline metrics failed", e);
    }
  }

  /**
   * How far back the pipeline histograms assemble chains: a chain whose hops took longer than this
   * to join is in {@code /api/pipelines} with a long enough window, not in the histograms.
   */
  /** How many of the slowest redelivered records {@code /api/breakdown}'s {@code share} lists. */
  static final int SHARE_SLOWEST_REDELIVERED = 10;

  static final long PIPELINE_METRICS_WINDOW_NANOS = 300_000_000_000L;

  /** The pipelines of the breakdowns joined within the last {@code windowNanos}. */
  public PipelinesReport pipelines(long windowNanos) {
    return Pipelines.report(
        recent.hopRecords(windowNanos, System.nanoTime()),
        pipelineNames,
        maxPipelines,
        windowNanos);
  }

  /**
   * The diagnosis of pipeline {@code name} over the last {@code windowNanos}.
   *
   * @throws IllegalArgumentException when no such pipeline has a chain in the window
   */
  public PipelineDiagnosis diagnosePipeline(String name, long windowNanos) {
    PipelinesReport.Pipeline p =
        Pipelines.find(recent.hopRecords(windowNanos, System.nanoTime()), pipelineNames, name);
    if (p == null) {
      throw new IllegalArgumentException(
          "no pipeline " + name + " in the window (GET /api/pipelines lists them)");
    }
    return PipelineDiagnosis.of(p, (topic, group) -> diagnose(topic, group, windowNanos));
  }

  /** The OTLP/HTTP address, with the actual port, or null in the join role (no receiver). */
  public InetSocketAddress otlpAddress() {
    return receiver == null ? null : receiver.address();
  }

  private static Properties adminProperties(SpanTopicSettings topics) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "klat-collector-topics");
    return topics.client().over(p, "the join role's admin");
  }

  /** Everything {@code /metrics} shows, in {@link dev.klat.model.MetricDef} order. */
  List<Exposition.Family> families() {
    return figures.families();
  }

  /** The role this collector plays. */
  public Mode mode() {
    return mode;
  }

  /** The OTLP/gRPC address, with the actual port, or null when OTLP/gRPC is disabled. */
  public InetSocketAddress grpcAddress() {
    return grpcReceiver == null ? null : grpcReceiver.address();
  }

  /** The admin address, with the actual port. */
  public InetSocketAddress adminAddress() {
    return admin.address();
  }

  private AdminServer.RecentQueries recentQueries() {
    return new AdminServer.RecentQueries() {
      @Override
      public RecentBreakdowns.Summary summarise(String topic, String group, long windowNanos) {
        return recent.summarise(topic, group, windowNanos, System.nanoTime());
      }

      @Override
      public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
        return Collector.this.diagnose(topic, group, windowNanos);
      }

      @Override
      public List<SlowRecord> slowest(String topic, String group, long windowNanos, int limit) {
        return recent.slowest(topic, group, windowNanos, System.nanoTime(), limit);
      }

      @Override
      public List<SlowRecord> slowest(
          String topic, String group, Capture capture, long windowNanos, int limit) {
        return recent.slowest(topic, group, capture, windowNanos, System.nanoTime(), limit);
      }

      @Override
      public List<TopicGroup> pairs(long windowNanos, int max) {
        return recent.busiestPairs(windowNanos, System.nanoTime(), max);
      }

      @Override
      public RecentBreakdowns.CommitParts commitParts(
          String topic, String group, long windowNanos) {
        return recent.commitParts(topic, group, windowNanos, System.nanoTime());
      }

      @Override
      public RecentBreakdowns.OpenTelemetryRecords opentelemetry(
          String topic, String group, long windowNanos) {
        return recent.opentelemetry(topic, group, windowNanos, System.nanoTime());
      }

      @Override
      public ShareSummary share(String topic, String group, long windowNanos) {
        return recent.share(
            topic, group, windowNanos, System.nanoTime(), SHARE_SLOWEST_REDELIVERED);
      }

      @Override
      public PipelinesReport pipelines(long windowNanos) {
        return Collector.this.pipelines(windowNanos);
      }

      @Override
      public PipelineDiagnosis diagnosePipeline(String name, long windowNanos) {
        return Collector.this.diagnosePipeline(name, windowNanos);
      }
    };
  }

  /** The diagnosis of the p99 tail of the breakdowns joined within the last {@code windowNanos}. */
  public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
    long nowNanos = System.nanoTime();
    Instant now = Instant.now(); // the broker scrapes' clock
    long nowEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    return Diagnosis.diagnose(
        recent.summarise(topic, group, windowNanos, nowNanos),
        recent.tail(topic, group, windowNanos, nowNanos, Diagnosis.MIN_TAIL_RECORDS),
        brokers.timings(),
        probeTimelines,
        nowEpochNanos - windowNanos,
        windowNanos);
  }

  /**
   * The brokers' request timings, kept current by the broker scrapers ({@code brokers.*} keys);
   * every lookup answers null when no broker is configured. Lookups never block.
   */
  public BrokerTimings brokerTimings() {
    return brokers.timings();
  }

  Brokers brokers() {
    return brokers;
  }

  Correlator correlator() {
    return correlator;
  }

  ReceiverStats receiverStats() {
    return kafkaIngest != null ? kafkaIngest.stats() : ingest.stats();
  }

  TraceExporter traceExporter() {
    return traceExporter;
  }

  @Override
  public void close() {
    if (joinMember != null) {
      joinMember.close();
      probeReader.close();
    }
    if (receiver != null) {
      receiver.close();
    }
    if (kafkaIngest != null) {
      kafkaIngest.close();
    }
    if (grpcReceiver != null) {
      grpcReceiver.close();
    }
    admin.close();
    listeners.close();
    scheduler.shutdownNow();
    historySampler.shutdownNow();
    brokers.close();
    if (traceExporter != null) {
      traceExporter.close();
    }
  }
}

package dev.klat.collector;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.BreakdownHistory;
import dev.klat.collector.aggregate.BreakdownMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.SlowRecord;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.broker.BrokerStatus;
import dev.klat.collector.broker.Brokers;
import dev.klat.collector.correlate.BrokerInstants;
import dev.klat.collector.correlate.BrokerTimings;
import dev.klat.collector.correlate.ClockOffset;
import dev.klat.collector.correlate.Correlator;
import dev.klat.collector.correlate.JoinedBreakdown;
import dev.klat.collector.correlate.ProbeTimelines;
import dev.klat.collector.diagnose.Diagnosis;
import dev.klat.collector.diagnose.DiagnosisGauges;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.export.AdminServer;
import dev.klat.collector.export.TraceExporter;
import dev.klat.collector.receive.OtlpGrpcReceiver;
import dev.klat.collector.receive.OtlpHttpReceiver;
import dev.klat.collector.receive.OtlpIngest;
import dev.klat.collector.receive.ReceiverLimits;
import dev.klat.collector.receive.ReceiverStats;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The running collector: the OTLP receiver feeds the {@link Correlator} and the merged agent
 * metrics; every breakdown goes to the histograms, the recent-breakdowns ring and, when configured,
 * the trace exporter; the admin port serves what they hold.
 */
public final class Collector implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Collector.class.getName());
  private static final Map<String, String> NO_LABELS = Map.of();

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
  private final OtlpHttpReceiver receiver;
  private final OtlpGrpcReceiver grpcReceiver;
  private final AdminServer admin;
  private final ScheduledExecutorService scheduler;
  private final Brokers brokers;

  private Collector(CollectorConfig config) throws IOException {
    long joinWindowNanos = config.durationMillis("join.window") * 1_000_000L;
    int maxPending = config.positiveInt("join.max.pending.records");
    agentMetrics =
        new AgentMetrics(
            config.positiveInt("metrics.max.streams"),
            config.durationMillis("metrics.gauge.stale") * 1_000_000L);
    breakdownMetrics =
        new BreakdownMetrics(
            config.positiveInt("metrics.max.topic.groups"), System::currentTimeMillis);
    recent = new RecentBreakdowns(config.positiveInt("api.recent.breakdowns"));
    diagnosisGauges =
        new DiagnosisGauges(
            recent::busiestPairs,
            this::diagnose,
            config.durationMillis("diagnosis.window") * 1_000_000L,
            config.durationMillis("diagnosis.interval") * 1_000_000L,
            config.positiveInt("diagnosis.max.topic.groups"),
            System::nanoTime);
    long historyIntervalNanos = config.durationMillis("history.interval") * 1_000_000L;
    history =
        new BreakdownHistory(
            recent,
            historyIntervalNanos,
            config.historyPointsPerPair() * historyIntervalNanos,
            config.positiveInt("history.max.topic.groups"));
    String endpoint = config.string("traces.endpoint");
    traceExporter =
        endpoint.isEmpty()
            ? null
            : new TraceExporter(endpoint, config.positiveInt("traces.queue.size"));
    brokers = Brokers.start(config.brokerSettings());
    long clockWindowNanos = config.durationMillis("clock.window") * 1_000_000L;
    probeTimelines =
        new ProbeTimelines(
            config.positiveInt("probe.max.partitions"),
            config.positiveInt("probe.max.ranges.per.term"));
    correlator =
        new Correlator(
            new Correlator.Settings(
                joinWindowNanos,
                maxPending,
                clockWindowNanos,
                config.positiveInt("clock.max.pairs")),
            System::nanoTime,
            // Without brokers configured every lookup answers null, and this is the timestamp
            // source alone; without discovery no replica count is known.
            BrokerInstants.probeFirst(
                probeTimelines, brokers.timings(), brokers.replicas(), clockWindowNanos),
            this::onBreakdown);
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "klat-join-expiry");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(correlator::expire, 1, 1, TimeUnit.SECONDS);
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
    ingest =
        new OtlpIngest(correlator, agentMetrics, probeTimelines, correlator::offerBrokerClockSync);
    OtlpHttpReceiver r = null;
    OtlpGrpcReceiver g = null;
    AdminServer a = null;
    ReceiverLimits limits =
        new ReceiverLimits(
            config.positiveInt("otlp.max.body.bytes"),
            config.positiveInt("otlp.max.concurrent.requests"));
    try {
      r =
          new OtlpHttpReceiver(
              new InetSocketAddress(config.string("otlp.http.host"), config.port("otlp.http.port")),
              limits,
              ingest);
      if (config.bool("otlp.grpc.enabled")) {
        g =
            new OtlpGrpcReceiver(
                new InetSocketAddress(
                    config.string("otlp.grpc.host"), config.port("otlp.grpc.port")),
                limits,
                ingest);
      }
      a =
          new AdminServer(
              new InetSocketAddress(config.string("admin.host"), config.port("admin.port")),
              this::families,
              recentQueries(),
              history,
              correlator::clockOffsets,
              this::stats,
              brokers::json);
    } catch (IOException | RuntimeException e) {
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
      throw e;
    }
    receiver = r;
    grpcReceiver = g;
    admin = a;
  }

  /**
   * Starts a collector.
   *
   * @throws IOException if a port cannot be bound
   */
  public static Collector start(CollectorConfig config) throws IOException {
    return new Collector(config);
  }

  private void onBreakdown(JoinedBreakdown joined) {
    breakdownMetrics.record(joined);
    recent.add(joined, System.nanoTime());
    if (traceExporter != null) {
      traceExporter.offer(joined);
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

  /** The OTLP/HTTP address, with the actual port. */
  public InetSocketAddress otlpAddress() {
    return receiver.address();
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
      public List<TopicGroup> pairs(long windowNanos, int max) {
        return recent.busiestPairs(windowNanos, System.nanoTime(), max);
      }
    };
  }

  /** The diagnosis of the p99 tail of the breakdowns joined within the last {@code windowNanos}. */
  public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
    long nowNanos = System.nanoTime();
    return Diagnosis.diagnose(
        recent.summarise(topic, group, windowNanos, nowNanos),
        recent.tail(topic, group, windowNanos, nowNanos, Diagnosis.MIN_TAIL_RECORDS),
        brokers.timings(),
        probeTimelines);
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
    return ingest.stats();
  }

  TraceExporter traceExporter() {
    return traceExporter;
  }

  /** Everything {@code /metrics} shows, in {@link MetricDef} order. */
  List<Exposition.Family> families() {
    List<Exposition.Family> out = new ArrayList<>();
    long nowEpochNanos = System.currentTimeMillis() * 1_000_000L;
    Correlator.Stats stats = correlator.stats();
    ReceiverStats rs = ingest.stats();
    List<BrokerStatus> brokerStatus = brokers.status();
    for (MetricDef def : MetricDef.all()) {
      List<Exposition.Series> series = new ArrayList<>();
      if (def == MetricDef.SEGMENT_LATENCY) {
        series.addAll(breakdownMetrics.segmentSeries());
      } else if (def == MetricDef.COLLECTOR_SPANS_RECEIVED) {
        series.add(Exposition.Series.scalar(NO_LABELS, rs.spansReceived()));
      } else if (def == MetricDef.COLLECTOR_BREAKDOWNS_JOINED) {
        series.add(Exposition.Series.scalar(NO_LABELS, stats.joined()));
      } else if (def == MetricDef.COLLECTOR_SPANS_UNJOINED) {
        series.add(
            Exposition.Series.scalar(
                NO_LABELS, stats.unjoinedProducerSpans() + stats.unjoinedConsumerSpans()));
      } else if (def == MetricDef.COLLECTOR_SPANS_DROPPED) {
        series.add(Exposition.Series.scalar(NO_LABELS, stats.droppedSpans() + rs.spansRejected()));
      } else if (def == MetricDef.COLLECTOR_INSTANTS_CLAMPED) {
        series.add(Exposition.Series.scalar(NO_LABELS, stats.clampedInstants()));
      } else if (def == MetricDef.COLLECTOR_REQUESTS_REJECTED) {
        rs.requestsRejected()
            .forEach(
                (reason, count) ->
                    series.add(Exposition.Series.scalar(Map.of(TagKeys.REASON, reason), count)));
      } else if (def == MetricDef.COLLECTOR_BROKER_UP) {
        for (BrokerStatus b : brokerStatus) {
          series.add(Exposition.Series.scalar(broker(b), b.up() ? 1 : 0));
        }
      } else if (def == MetricDef.COLLECTOR_BROKER_SCRAPE_ERRORS) {
        for (BrokerStatus b : brokerStatus) {
          series.add(Exposition.Series.scalar(broker(b), b.scrapeErrors()));
        }
      } else if (def == MetricDef.COLLECTOR_BROKER_SCRAPE_AGE) {
        for (BrokerStatus b : brokerStatus) {
          series.add(Exposition.Series.scalar(broker(b), b.ageNanos() / 1e9));
        }
      } else if (def == MetricDef.CLOCK_OFFSET) {
        for (ClockOffset c : correlator.clockOffsets()) {
          Map<String, String> labels = new LinkedHashMap<>();
          labels.put(TagKeys.FROM_HOST, c.fromHost());
          labels.put(TagKeys.TO_HOST, c.toHost());
          series.add(Exposition.Series.scalar(labels, c.offsetNanos() / 1e9));
        }
      } else if (def == MetricDef.DIAGNOSIS_TAIL_SHARE) {
        series.addAll(diagnosisGauges.series());
      } else {
        for (Map.Entry<Map<String, String>, AgentMetrics.Accumulated> e :
            agentMetrics.merged(def, nowEpochNanos).entrySet()) {
          Map<String, String> labels = e.getKey();
          AgentMetrics.Accumulated v = e.getValue();
          if (def.instrument() == MetricDef.Instrument.HISTOGRAM) {
            Exposition.Exemplar[] exemplars =
                def == MetricDef.E2E_LATENCY
                    ? breakdownMetrics.e2eExemplars(
                        labels.getOrDefault(TagKeys.TOPIC, ""),
                        labels.getOrDefault(TagKeys.GROUP, ""))
                    : null;
            series.add(new Exposition.Series(labels, 0, v.counts(), v.value(), exemplars));
          } else {
            series.add(Exposition.Series.scalar(labels, v.value()));
          }
        }
      }
      out.add(
          new Exposition.Family(
              def.prometheusName(),
              def.description(),
              def.unit().prometheusSuffix(),
              type(def),
              series));
    }
    return out;
  }

  /** Every count the collector keeps, for {@code /api/stats}. */
  Map<String, Long> stats() {
    Correlator.Stats c = correlator.stats();
    ReceiverStats r = ingest.stats();
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("spansReceived", r.spansReceived());
    out.put("spansNotKlat", r.spansNotKlat());
    out.put("spansRejected", r.spansRejected());
    out.put("pointsReceived", r.pointsReceived());
    out.put("pointsRejected", r.pointsRejected());
    out.put("probeRecordsReceived", r.probeRecordsReceived());
    out.put("probeRecordsRejected", r.probeRecordsRejected());
    out.put("probeRecordsNotKlat", r.probeRecordsNotKlat());
    out.put("probeRanges", probeTimelines.ranges());
    out.put("probeRangesDropped", probeTimelines.droppedRanges());
    out.put("probeCommitRangesWithFollower", probeTimelines.commitRangesWithFollower());
    out.put("producerSpans", c.producerSpans());
    out.put("consumerSpans", c.consumerSpans());
    out.put("joined", c.joined());
    out.put("duplicates", c.duplicates());
    out.put("unjoinedProducerSpans", c.unjoinedProducerSpans());
    out.put("unjoinedConsumerSpans", c.unjoinedConsumerSpans());
    out.put("traceMismatches", c.traceMismatches());
    out.put("evictedRecords", c.evicted());
    out.put("droppedSpans", c.droppedSpans());
    out.put("invalidPairs", c.invalid());
    out.put("clampedInstants", c.clampedInstants());
    out.put("pendingRecords", (long) c.pendingRecords());
    out.put("brokerDataWaits", c.brokerDataWaits());
    out.put("brokerDataWaitsTimedOut", c.brokerDataWaitsTimedOut());
    long[] metricCounts = agentMetrics.counts();
    out.put("metricPointsIgnored", metricCounts[0]);
    out.put("agentRestartsSeen", metricCounts[1]);
    out.put("metricStreams", (long) agentMetrics.streamCount());
    out.put("topicGroupsFolded", breakdownMetrics.overflow());
    out.put("tracesExported", traceExporter == null ? 0 : traceExporter.exported());
    out.put("tracesDropped", traceExporter == null ? 0 : traceExporter.dropped());
    r.requestsRejected().forEach((reason, n) -> out.put("requestsRejected." + reason, n));
    return out;
  }

  private static Map<String, String> broker(BrokerStatus status) {
    return Map.of(TagKeys.BROKER, Integer.toString(status.nodeId()));
  }

  private static Exposition.Type type(MetricDef def) {
    return switch (def.instrument()) {
      case HISTOGRAM -> Exposition.Type.HISTOGRAM;
      case COUNTER -> Exposition.Type.COUNTER;
      case GAUGE -> Exposition.Type.GAUGE;
    };
  }

  @Override
  public void close() {
    receiver.close();
    if (grpcReceiver != null) {
      grpcReceiver.close();
    }
    admin.close();
    scheduler.shutdownNow();
    historySampler.shutdownNow();
    brokers.close();
    if (traceExporter != null) {
      traceExporter.close();
    }
  }
}

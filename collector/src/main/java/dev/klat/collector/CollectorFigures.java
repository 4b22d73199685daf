package dev.klat.collector;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.BreakdownMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.broker.BrokerStatus;
import dev.klat.collector.broker.Brokers;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.InstrumentedStats;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.diagnose.DiagnosisGauges;
import dev.klat.collector.export.TraceExporter;
import dev.klat.collector.pipeline.PipelineMetrics;
import dev.klat.collector.receive.ReceiverStats;
import dev.klat.collector.scale.join.JoinMember;
import dev.klat.collector.scale.join.JoinMemberStats;
import dev.klat.collector.scale.join.ProbeLogReader;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** What {@code /metrics} and {@code /api/stats} show: the counts of every part of a collector. */
final class CollectorFigures {
  private static final Map<String, String> NO_LABELS = Map.of();

  private final Correlator correlator;
  private final Supplier<ReceiverStats> receiverStats;
  private final ProbeTimelines probeTimelines;
  private final AgentMetrics agentMetrics;
  private final BreakdownMetrics breakdownMetrics;
  private final DiagnosisGauges diagnosisGauges;
  private final Brokers brokers;
  private final TraceExporter traceExporter;
  private final JoinMember joinMember;
  private final ProbeLogReader probeReader;
  private final ListenerSecurities listeners;
  private final PipelineMetrics pipelineMetrics;

  /**
   * @param traceExporter null when traces are not exported
   * @param joinMember null outside the join role
   * @param probeReader null outside the join role
   * @param listeners the listeners' TLS and tokens, for their counts
   * @param pipelineMetrics the pipeline histograms
   */
  CollectorFigures(
      Correlator correlator,
      Supplier<ReceiverStats> receiverStats,
      ProbeTimelines probeTimelines,
      AgentMetrics agentMetrics,
      BreakdownMetrics breakdownMetrics,
      DiagnosisGauges diagnosisGauges,
      Brokers brokers,
      TraceExporter traceExporter,
      JoinMember joinMember,
      ProbeLogReader probeReader,
      ListenerSecurities listeners,
      PipelineMetrics pipelineMetrics) {
    this.correlator = correlator;
    this.receiverStats = receiverStats;
    this.probeTimelines = probeTimelines;
    this.agentMetrics = agentMetrics;
    this.breakdownMetrics = breakdownMetrics;
    this.diagnosisGauges = diagnosisGauges;
    this.brokers = brokers;
    this.traceExporter = traceExporter;
    this.joinMember = joinMember;
    this.probeReader = probeReader;
    this.listeners = listeners;
    this.pipelineMetrics = pipelineMetrics;
  }

  /** Everything {@code /metrics} shows, in {@link MetricDef} order. */
  List<Exposition.Family> families() {
    List<Exposition.Family> out = new ArrayList<>();
    long nowEpochNanos = System.currentTimeMillis() * 1_000_000L;
    Correlator.Stats stats = correlator.stats();
    ReceiverStats rs = receiverStats.get();
    List<BrokerStatus> brokerStatus = brokers.status();
    for (MetricDef def : MetricDef.all()) {
      List<Exposition.Series> series = new ArrayList<>();
      if (def == MetricDef.SEGMENT_LATENCY) {
        series.addAll(breakdownMetrics.segmentSeries());
      } else if (def == MetricDef.TRANSACTION_WAIT) {
        series.addAll(breakdownMetrics.transactionWaitSeries());
      } else if (def == MetricDef.SHARE_REDELIVERIES) {
        series.addAll(breakdownMetrics.shareRedeliveriesSeries());
      } else if (def == MetricDef.SHARE_RECORDS) {
        series.addAll(breakdownMetrics.shareRecordsSeries());
      } else if (def == MetricDef.SHARE_REDELIVERY) {
        series.addAll(breakdownMetrics.shareRedeliverySeries());
      } else if (def == MetricDef.COLLECTOR_SPANS_RECEIVED) {
        series.add(Exposition.Series.scalar(NO_LABELS, rs.spansReceived()));
      } else if (def == MetricDef.COLLECTOR_BREAKDOWNS_JOINED) {
        // A join member counts a breakdown once its commit marks it; the joins it drops as
        // counted by another member would count twice in the members' sum.
        series.add(
            Exposition.Series.scalar(
                NO_LABELS,
                joinMember == null ? stats.joined() : joinMember.stats().breakdownsCounted()));
      } else if (def == MetricDef.COLLECTOR_SPANS_UNJOINED) {
        series.add(
            Exposition.Series.scalar(
                NO_LABELS, stats.unjoinedProducerSpans() + stats.unjoinedConsumerSpans()));
      } else if (def == MetricDef.COLLECTOR_SPANS_DROPPED) {
        series.add(
            Exposition.Series.scalar(
                NO_LABELS,
                stats.droppedSpans() + stats.tail().droppedSpans() + rs.spansRejected()));
      } else if (def == MetricDef.COLLECTOR_INSTANTS_CLAMPED) {
        series.add(Exposition.Series.scalar(NO_LABELS, stats.clampedInstants()));
      } else if (def == MetricDef.COLLECTOR_REQUESTS_REJECTED) {
        rs.requestsRejected()
            .forEach(
                (reason, count) ->
                    series.add(Exposition.Series.scalar(Map.of(TagKeys.REASON, reason), count)));
      } else if (def == MetricDef.COLLECTOR_OTEL_SPANS) {
        rs.otelSpans()
            .forEach(
                (outcome, count) ->
                    series.add(Exposition.Series.scalar(Map.of(TagKeys.OUTCOME, outcome), count)));
      } else if (def == MetricDef.COLLECTOR_OTEL_JOIN) {
        otelJoinSeries(stats.otel(), series);
      } else if (def == MetricDef.COLLECTOR_AUTH_REQUESTS) {
        series.addAll(listeners.authSeries());
      } else if (def == MetricDef.COLLECTOR_RELOAD_FAILURES) {
        series.addAll(listeners.reloadFailureSeries());
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
      } else if (def == MetricDef.PIPELINE_LATENCY) {
        series.addAll(pipelineMetrics.latencySeries());
      } else if (def == MetricDef.PIPELINE_HOP_LATENCY) {
        series.addAll(pipelineMetrics.hopSeries());
      } else if (def == MetricDef.PIPELINE_EVICTIONS) {
        series.add(Exposition.Series.scalar(NO_LABELS, pipelineMetrics.evictions()));
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
        if (def == MetricDef.E2E_LATENCY) {
          // Records seen through an OpenTelemetry instrumentation (section 10 of the latency
          // model), apart from the agents' series by their capture label.
          series.addAll(breakdownMetrics.opentelemetryE2eSeries());
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
    ReceiverStats r = receiverStats.get();
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("spansReceived", r.spansReceived());
    out.put("spansNotKlat", r.spansNotKlat());
    out.put("spansRejected", r.spansRejected());
    out.put("pointsReceived", r.pointsReceived());
    out.put("pointsRejected", r.pointsRejected());
    out.put("probeRecordsReceived", r.probeRecordsReceived());
    out.put("probeRecordsRejected", r.probeRecordsRejected());
    out.put("probeRecordsNotKlat", r.probeRecordsNotKlat());
    out.put("probeBrokersAlive", (long) probeTimelines.liveBrokers(System.nanoTime()));
    out.put("probeRanges", probeTimelines.ranges());
    out.put("probePartitionsEvicted", probeTimelines.partitionsEvicted());
    out.put("probeRangesDroppedYoung", probeTimelines.rangesDroppedYoung());
    out.put("probeEstimatedBytes", probeTimelines.estimatedBytes());
    out.put("probeCommitRangesWithFollower", probeTimelines.commitRangesWithFollower());
    out.put("probeAppendRangesWithRequest", probeTimelines.appendRangesWithRequest());
    out.put("probeStableRanges", probeTimelines.stableRanges());
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
    out.put("evictedRecordsForBytes", c.evictedForBytes());
    out.put("pendingRecordsEstimatedBytes", c.pendingBytes());
    out.put("consumerGroupsRefused", c.groupsRefused());
    out.put("implausibleClockBounds", c.implausibleClockBounds());
    Correlator.TailStats t = c.tail();
    out.put("tailProducerSpans", t.producerSpans());
    out.put("tailConsumerSpans", t.consumerSpans());
    out.put("tailJoined", t.joined());
    out.put("tailProducerOnly", t.producerOnly());
    out.put("tailConsumerOnly", t.consumerOnly());
    out.put("tailInvalid", t.invalid());
    out.put("tailEvicted", t.evicted());
    out.put("tailDroppedSpans", t.droppedSpans());
    out.put("tailPendingRecords", (long) t.pendingRecords());
    out.put("tailPendingBytes", t.pendingBytes());
    // Section 11: share consumers' deliveries.
    Correlator.ShareStats share = c.share();
    out.put("shareDeliveries", share.deliveries());
    out.put("shareRecords", share.records());
    out.put("shareRedeliveredRecords", share.redeliveredRecords());
    out.put("shareDuplicates", share.duplicates());
    out.put("shareRefused", share.refused());
    out.put("shareLate", share.late());
    out.put("shareEvicted", share.evicted());
    InstrumentedStats o = c.otel();
    out.put("otelProducerSpans", o.producerSpans());
    out.put("otelConsumerSpans", o.consumerSpans());
    out.put("otelJoined", o.joined());
    out.put("otelProducerOnly", o.producerOnly());
    out.put("otelConsumerOnly", o.consumerOnly());
    out.put("otelWithoutBrokerData", o.withoutBrokerData());
    out.put("otelInvalid", o.invalid());
    out.put("otelDuplicates", o.duplicates());
    out.put("otelSuperseded", o.superseded());
    out.put("otelAgentAfterInstrumented", o.agentAfterInstrumented());
    out.put("otelPlacedAfterWaiting", o.placedAfterWaiting());
    out.put("otelUnplaced", o.unplaced());
    out.put("otelEvicted", o.evicted());
    out.put("otelDroppedSpans", o.droppedSpans());
    out.put("otelUnplaceable", o.unplaceable());
    out.put("otelPlacementTopicMismatches", o.placementTopicMismatches());
    out.put("otelImplausibleClockBounds", o.implausibleClockBounds());
    out.put("otelWaitingProducers", (long) o.waitingProducers());
    out.put("otelWaitingBytes", o.waitingBytes());
    long[] metricCounts = agentMetrics.counts();
    out.put("metricPointsIgnored", metricCounts[0]);
    out.put("agentRestartsSeen", metricCounts[1]);
    out.put("metricStreams", (long) agentMetrics.streamCount());
    long[] labelCounts = agentMetrics.labelCounts();
    out.put("metricPointsFolded", labelCounts[0]);
    out.put("metricTopicGroupsExpired", labelCounts[1]);
    out.put("metricSeriesFolded", labelCounts[2]);
    out.put("topicGroupsFolded", breakdownMetrics.overflow());
    out.put("brokersFolded", breakdownMetrics.brokersFolded());
    out.put("segmentHistogramsFolded", breakdownMetrics.histogramsFolded());
    out.put("replicaTopicsEvicted", brokers.replicaTopicsEvicted());
    out.put("tracesExported", traceExporter == null ? 0 : traceExporter.exported());
    out.put("tracesDropped", traceExporter == null ? 0 : traceExporter.dropped());
    if (joinMember != null) {
      JoinMemberStats j = joinMember.stats();
      out.put("spanRecordsRead", j.spanRecordsRead());
      out.put("spanRecordsMalformed", j.spanRecordsMalformed());
      out.put("metricRecordsRead", j.metricRecordsRead());
      out.put("metricRecordsMalformed", j.metricRecordsMalformed());
      out.put("breakdownsCounted", j.breakdownsCounted());
      out.put("breakdownsReplayed", j.breakdownsReplayed());
      out.put("breakdownsHandedOver", j.breakdownsHandedOver());
      out.put("breakdownsCountedUncommitted", j.breakdownsCountedUncommitted());
      out.put("spanTopicCommits", j.commits());
      out.put("spanTopicCommitsFailed", j.commitsFailed());
      out.put("spanPartitionsOwned", (long) j.spanPartitionsOwned());
      out.put("millisSinceLastCommit", j.millisSinceLastCommit());
    }
    if (probeReader != null) {
      out.put("probeTopicRecordsRead", probeReader.recordsRead());
      out.put("probeTopicRecordsMalformed", probeReader.recordsMalformed());
      out.put("probeTopicReaderRetries", probeReader.startRetries());
    }
    r.requestsRejected().forEach((reason, n) -> out.put("requestsRejected." + reason, n));
    r.spansRejectedByReason().forEach((reason, n) -> out.put("spansRejected." + reason, n));
    r.pointsRejectedByReason().forEach((reason, n) -> out.put("pointsRejected." + reason, n));
    r.otelSpans().forEach((outcome, n) -> out.put("otelSpans." + outcome, n));
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

  // What the join made of instrumentations' record spans (section 10), one series per outcome.
  private static void otelJoinSeries(InstrumentedStats o, List<Exposition.Series> series) {
    long[] counts = {
      o.joined(),
      o.producerOnly(),
      o.consumerOnly(),
      o.withoutBrokerData(),
      o.invalid(),
      o.duplicates(),
      o.superseded(),
      o.agentAfterInstrumented(),
      o.placedAfterWaiting(),
      o.unplaced(),
      o.evicted(),
      o.droppedSpans(),
      o.implausibleClockBounds()
    };
    String[] outcomes = {
      "joined",
      "producer-only",
      "consumer-only",
      "without-broker-data",
      "invalid",
      "duplicate",
      "superseded",
      "agent-after-instrumented",
      "placed",
      "unplaced",
      "evicted",
      "dropped",
      "implausible-clock-bound"
    };
    for (int i = 0; i < counts.length; i++) {
      series.add(Exposition.Series.scalar(Map.of(TagKeys.OUTCOME, outcomes[i]), counts[i]));
    }
  }
}

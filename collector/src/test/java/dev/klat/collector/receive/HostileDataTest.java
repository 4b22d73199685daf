package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.BreakdownMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.hostile.DataAttacks;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The data attacks of issue 43, replayed through the ingest as the receivers hand them over. */
class HostileDataTest {
  private static final long NOW = 1_800_000_000_000_000_000L;

  private final List<JoinedBreakdown> joined = new ArrayList<>();
  private final Correlator correlator =
      new Correlator(
          new Correlator.Settings(60_000_000_000L, 500_000, 300_000_000_000L, 10_000),
          () -> 0L,
          BrokerInstants.logAppendTime(),
          joined::add);
  private final AgentMetrics agentMetrics = new AgentMetrics(20_000, Long.MAX_VALUE);
  private final OtlpIngest ingest = new OtlpIngest(correlator, agentMetrics);

  @Test
  void twentyThousandTopicsInOneMetricsRequestStayUnderTheTopicGroupCap() throws Exception {
    byte[] body = DataAttacks.metricsOfManyTopics(20_000, NOW);
    assertThat(body.length).isBetween(2_000_000, 3_000_000);

    ingest.metrics(body, body.length, false);

    var series = agentMetrics.merged(MetricDef.E2E_LATENCY, NOW);
    // metrics.max-topic-groups' default, and the one series the rest fold into.
    assertThat(series.size()).isLessThanOrEqualTo(1_000 + 1);
    assertThat(series.keySet())
        .anySatisfy(labels -> assertThat(labels).containsEntry(TagKeys.TOPIC, "_other"));
  }

  @Test
  void fiveThousandLeaderIdsFoldBeyondTheBrokerCap() throws Exception {
    BreakdownMetrics metrics = new BreakdownMetrics(1_000, () -> 0L);
    byte[] body = DataAttacks.tracesOfManyLeaders(5_000, NOW);

    ingest.traces(body, body.length, false);
    joined.forEach(metrics::record);

    assertThat(joined).hasSize(5_000);
    Set<String> brokers = new HashSet<>();
    for (Exposition.Series s : metrics.segmentSeries()) {
      brokers.add(s.labels().get(TagKeys.BROKER));
    }
    // metrics.max-brokers' default, and the one label the rest fold into.
    assertThat(brokers).hasSizeLessThanOrEqualTo(64 + 1).contains("_other");
  }

  @Test
  void segmentHistogramsAreAtMostWhatMetricsMaxBytesCanShow() throws Exception {
    BreakdownMetrics metrics =
        new BreakdownMetrics(1_000, 5_000, 100, id -> false, () -> 0L); // 100 histograms
    byte[] body = DataAttacks.tracesOfManyLeaders(5_000, NOW);

    ingest.traces(body, body.length, false);
    joined.forEach(metrics::record);

    // 100 histograms, then one all-_other per segment and quality the breakdowns know.
    assertThat(metrics.segmentSeries()).hasSizeLessThanOrEqualTo(100 + 20);
    assertThat(metrics.histogramsFolded()).isPositive();
  }

  @Test
  void topicNamesKafkaWouldRefuseAreRefusedWhereTheyEnter() throws Exception {
    byte[] body = DataAttacks.tracesOfLongTopics(20, 64 * 1024, NOW);

    byte[] answer = ingest.traces(body, body.length, false);

    assertThat(correlator.pendingRecords()).isZero();
    assertThat(ingest.stats().spansRejected()).isEqualTo(20);
    assertThat(new String(answer, java.nio.charset.StandardCharsets.UTF_8))
        .contains("topic name of 65536 characters (at most 249)");
  }

  @Test
  void aForgedSpanPairCannotMoveASyncedClockPairByMoreThanTheMaxStep() throws Exception {
    byte[] forged = DataAttacks.tracesOfForgedClockPair(NOW);
    byte[] honest = DataAttacks.tracesOfHonestRecord(NOW + 1_000_000_000L);

    ingest.traces(forged, forged.length, false);
    ingest.traces(honest, honest.length, false);

    JoinedBreakdown last = joined.get(joined.size() - 1);
    assertThat(last.key().offset()).isEqualTo(8);
    assertThat(correlator.stats().implausibleClockBounds()).isEqualTo(1);
    // 15 ms from send to poll; the clocks agree within 0.4 ms, and clock.max-step is 1 s.
    assertThat(last.breakdown().e2eNanos()).isBetween(14_000_000L, 16_000_000L);
  }

  @Test
  void namesLongerThanTheLimitAreRefusedPerSpanAndCountedByReason() throws Exception {
    String longGroup = "g".repeat(WireNames.MAX_NAME_CHARS + 1);
    byte[] body = DataAttacks.tracesOfManyGroups(1, NOW);
    io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.Builder request =
        io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.parseFrom(body)
            .toBuilder();
    var span = request.getResourceSpansBuilder(0).getScopeSpansBuilder(0).getSpansBuilder(0);
    for (int i = 0; i < span.getAttributesCount(); i++) {
      if (span.getAttributes(i).getKey().equals("messaging.consumer.group.name")) {
        span.setAttributes(i, OtlpValues.str("messaging.consumer.group.name", longGroup));
      }
    }
    byte[] refused = request.build().toByteArray();

    byte[] answer = ingest.traces(refused, refused.length, false);

    assertThat(ingest.stats().spansRejectedByReason()).containsEntry(WireNames.REASON_NAME, 1L);
    assertThat(new String(answer, java.nio.charset.StandardCharsets.UTF_8))
        .contains("of 256 characters (at most 255)");
  }

  @Test
  void aKlatMetricPointWithATopicKafkaWouldRefuseIsRejectedInThePartialSuccess() throws Exception {
    byte[] body =
        new String(
                DataAttacks.metricsOfManyTopics(2, NOW),
                java.nio.charset.StandardCharsets.ISO_8859_1)
            .replace("topic-00001", "topic/00001")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

    byte[] answer = ingest.metrics(body, body.length, false);

    assertThat(ingest.stats().pointsRejectedByReason()).containsEntry(WireNames.REASON_TOPIC, 1L);
    assertThat(new String(answer, java.nio.charset.StandardCharsets.UTF_8))
        .contains("klat.e2e.latency: topic name with a character Kafka does not allow");
    assertThat(agentMetrics.merged(MetricDef.E2E_LATENCY, NOW)).hasSize(1);
  }

  @Test
  void fortyThousandGroupsOnOneRecordJoinOnlyTheCap() throws Exception {
    byte[] body = DataAttacks.tracesOfManyGroups(40_000, NOW);

    ingest.traces(body, body.length, false);

    assertThat(joined).hasSize(64); // join.max-groups-per-record's default
    assertThat(correlator.stats().groupsRefused()).isEqualTo(40_000 - 64);
  }

  @Test
  void probeDataOfMorePartitionsThanTheCapKeepsTheNewestPartitions() throws Exception {
    ProbeTimelines timelines = new ProbeTimelines(4_096, 16);
    OtlpIngest probes =
        new OtlpIngest(correlator, agentMetrics, timelines, (broker, offset, uncertainty) -> {});
    byte[] body = DataAttacks.probeLogsOfManyPartitions("orders", 5_000, NOW);

    probes.logs(body, body.length);

    assertThat(probes.stats().probeRecordsRejected()).isZero();
    assertThat(timelines.lookup("orders", 4_999, 5, 1).hasAppend()).isTrue();
    assertThat(timelines.lookup("orders", 0, 5, 1).hasAppend()).isFalse();
    assertThat(timelines.partitionsEvicted()).isEqualTo(5_000 - 4_096);
  }
}

package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TimePoint;
import java.util.List;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The diagnosis of records seen through OpenTelemetry instrumentations (section 10 of the latency
 * model): their breakdowns know {@code produce+publish} and {@code catch-up+fetch} only together,
 * and commit exactly from the probe. Built as the join hands them over ({@link JoinedBreakdown}s
 * with the capture {@code opentelemetry}), through the aggregate's ring, to the report.
 */
class OpenTelemetryDiagnosisTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final long WINDOW = 300_000 * MS;
  private static final String TOPIC = "orders";
  private static final String GROUP = "service:billing";
  private static final EstimationMethod SPAN = EstimationMethod.OPENTELEMETRY_SPAN;

  /**
   * A record from an instrumented producer to an instrumented consumer: {@code S} and {@code P}
   * from their spans, {@code L} and {@code H} from leader 1's probe, which timed its produce
   * request ({@code queueMs}, {@code localMs}; -1 untimed).
   */
  private static JoinedBreakdown instrumented(
      long offset,
      double produceAndPublishMs,
      double commitMs,
      double catchUpAndFetchMs,
      double queueMs,
      double localMs) {
    long s = T0 + offset * 1_000 * MS;
    long l = s + (long) (produceAndPublishMs * MS);
    long h = l + (long) (commitMs * MS);
    long p = h + (long) (catchUpAndFetchMs * MS);
    Instants instants =
        Instants.builder()
            .send(s)
            .method(TimePoint.SEND, SPAN)
            .append(l, EstimationMethod.BROKER_PROBE)
            .commit(h, EstimationMethod.BROKER_PROBE)
            .poll(p)
            .method(TimePoint.POLL, SPAN)
            .build();
    return joined(offset, instants, queueMs, localMs, ProducerEvidence.UNKNOWN);
  }

  private static JoinedBreakdown joined(
      long offset,
      Instants instants,
      double queueMs,
      double localMs,
      ProducerEvidence producerEvidence) {
    return new JoinedBreakdown(
        new RecordKey(TOPIC, 0, offset),
        GROUP,
        1,
        offset + 1,
        offset + 1,
        offset + 2,
        Breakdown.compute(instants),
        new ClockOffset("producer", "consumer", 0, 0, 0, 0),
        new ClockOffset("producer", "broker", 0, 0, 0, 0),
        Set.of(),
        false,
        1,
        -1,
        queueMs < 0 ? -1 : (long) (queueMs * MS),
        localMs < 0 ? -1 : (long) (localMs * MS),
        producerEvidence,
        ConsumerEvidence.UNKNOWN,
        Capture.OPENTELEMETRY);
  }

  /** 95 quick records and 5 slow ones, through the aggregate's ring, diagnosed. */
  private static DiagnosisReport diagnose(
      List<JoinedBreakdown> quick, List<JoinedBreakdown> slow, BrokerTimings brokers) {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    quick.forEach(b -> recent.add(b, 0));
    slow.forEach(b -> recent.add(b, 0));
    List<TailRecord> tail = recent.tail(TOPIC, GROUP, WINDOW, 1, Diagnosis.MIN_TAIL_RECORDS);
    return Diagnosis.diagnose(
        recent.summarise(TOPIC, GROUP, WINDOW, 1), tail, brokers, CommitWaits.NONE, T0, WINDOW);
  }

  private static List<JoinedBreakdown> quick(double queueMs, double localMs) {
    return java.util.stream.LongStream.range(0, 95)
        .mapToObj(o -> instrumented(o, 5, 1, 5, queueMs, localMs))
        .toList();
  }

  private static List<JoinedBreakdown> slow(
      double produceAndPublishMs,
      double commitMs,
      double catchUpAndFetchMs,
      double queueMs,
      double localMs) {
    return java.util.stream.LongStream.range(95, 100)
        .mapToObj(
            o ->
                instrumented(o, produceAndPublishMs, commitMs, catchUpAndFetchMs, queueMs, localMs))
        .toList();
  }

  private static Finding finding(DiagnosisReport report, String segment, String knob) {
    return report.findings().stream()
        .filter(f -> f.segment().equals(segment) && f.knob().equals(knob))
        .findFirst()
        .orElseThrow(() -> new AssertionError(segment + " " + knob + " not in " + report));
  }

  @Test
  void aSlowProducerNamesProduceAndPublishAndTheKnobsItCannotTellApart() {
    DiagnosisReport report =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 0.1, 0.2), BrokerTimings.NONE);

    // The instrumentation's records are weighed against their own p99, apart from sampled ones.
    assertThat(report.records()).isZero();
    assertThat(report.tailRecords()).isEqualTo(5);
    assertThat(report.tailOpentelemetry()).isEqualTo(5);
    assertThat(report.tailCaptured()).isZero();
    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("produce+publish");
    assertThat(top.knob()).isEqualTo("in the producer or on the way to broker 1");
    assertThat(top.records()).isEqualTo(5);
    // 400 ms less the request's 0.3 ms at the leader, of a 406 ms record.
    assertThat(top.tailShare()).isCloseTo(399.7 / 406, Offset.offset(0.001));
    assertThat(top.evidence().get("not told apart without klat's agent").toString())
        .contains("linger.ms", "batch.size", "max.in.flight.requests.per.connection")
        .doesNotContain("request queue");
    assertThat(top.suggestion()).contains("linger.ms", "klat's agent");
    // No rule of the segments these records lack weighs them.
    assertThat(report.findings())
        .extracting(Finding::segment)
        .doesNotContain("produce", "publish", "catch-up", "fetch");
  }

  @Test
  void theLeadersQueueFromTheProbesRequestTimesIsTakenOutOfProduceAndPublish() {
    DiagnosisReport report =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 300, 0.2), BrokerTimings.NONE);

    Finding queue = report.findings().get(0);
    assertThat(queue.segment()).isEqualTo("produce+publish");
    assertThat(queue.knob()).isEqualTo("broker 1 request queue");
    assertThat(queue.explainedSeconds()).isCloseTo(0.300, Offset.offset(1e-6));
    assertThat(queue.evidence())
        .containsEntry("tail records with their own request times (broker probe)", "5 of 5");
    // What the queue leaves (about 100 ms of 406) is under the share a segment's cause needs.
    assertThat(report.findings())
        .extracting(Finding::knob)
        .doesNotContain("in the producer or on the way to broker 1");
  }

  @Test
  void withoutTheLeadersTimingsTheQueueAndAppendAreNamedAsNotToldApart() {
    DiagnosisReport report = diagnose(quick(-1, -1), slow(400, 1, 5, -1, -1), BrokerTimings.NONE);

    Finding top = finding(report, "produce+publish", "in the producer or on the way to broker 1");
    assertThat(top.evidence().get("not told apart without klat's agent").toString())
        .contains("the leader's request queue and log append");
    assertThat(top.suggestion()).contains("brokers.*");
  }

  @Test
  void aSlowConsumerNamesCatchUpAndFetchAndTheKnobsItCannotTellApart() {
    DiagnosisReport report =
        diagnose(quick(0.1, 0.2), slow(5, 1, 600, 0.1, 0.2), BrokerTimings.NONE);

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("catch-up+fetch");
    assertThat(top.knob()).isEqualTo("consumer lag or fetch wait");
    assertThat(top.tailShare()).isCloseTo(600.0 / 606, Offset.offset(0.001));
    assertThat(top.records()).isEqualTo(5);
    assertThat(top.evidence())
        .containsEntry("tail records over 500 ms (the default fetch.max.wait.ms)", "5 of 5")
        .containsEntry("consumer settings", "unknown (no klat agent on the consumer)");
    assertThat(top.evidence().get("not told apart without klat's agent").toString())
        .contains("consumer lag", "fetch.min.bytes", "fetch.max.wait.ms");
  }

  @Test
  void theLeadersFetchQueueIsLookedUpWhereTheRecordWasAppended() {
    // Broker 1's consumer fetches queued 200 ms over the interval of the slow records' appends.
    long slowFrom = T0 + 95 * 1_000 * MS;
    BrokerTimings.RequestTimings fetchQueue =
        new BrokerTimings.RequestTimings(100, 200 * MS, 0, 0, 0, 0, 0, 200 * MS, 0, 0);
    BrokerTimings brokers =
        (node, request, at) ->
            node == 1 && request == BrokerTimings.Request.FETCH_CONSUMER && at >= slowFrom
                ? fetchQueue
                : null;

    DiagnosisReport report = diagnose(quick(0.1, 0.2), slow(5, 1, 300, 0.1, 0.2), brokers);

    Finding queue = finding(report, "catch-up+fetch", "broker 1 fetch queue");
    assertThat(queue.explainedSeconds()).isCloseTo(0.200, Offset.offset(1e-6));
    // The other 100 ms of 306 are named as the segment's cause.
    assertThat(finding(report, "catch-up+fetch", "consumer lag or fetch wait").explainedSeconds())
        .isCloseTo(0.100, Offset.offset(1e-6));
  }

  @Test
  void commitIsExactFromTheProbeAndNamedByTheCommitRule() {
    DiagnosisReport report =
        diagnose(quick(0.1, 0.2), slow(5, 300, 5, 0.1, 0.2), BrokerTimings.NONE);

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("commit");
    assertThat(top.knob()).isEqualTo("broker 1 replication");
    assertThat(top.tailShare()).isCloseTo(300.0 / 310, Offset.offset(0.001));
  }

  @Test
  void aKlatProducerKeepsItsSegmentsBesideAnInstrumentedConsumer() {
    // klat's agent on the producer (D, its settings: linger.ms 100), an instrumentation on the
    // consumer; the slow records lingered.
    ProducerEvidence lingering =
        new ProducerEvidence(100, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    List<JoinedBreakdown> quick =
        java.util.stream.LongStream.range(0, 95)
            .mapToObj(o -> klatProducer(o, 1, lingering))
            .toList();
    List<JoinedBreakdown> slow =
        java.util.stream.LongStream.range(95, 100)
            .mapToObj(o -> klatProducer(o, 100, lingering))
            .toList();

    DiagnosisReport report = diagnose(quick, slow, BrokerTimings.NONE);

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("produce");
    assertThat(top.knob()).isEqualTo("linger.ms");
    assertThat(report.findings()).extracting(Finding::segment).doesNotContain("produce+publish");
  }

  private static JoinedBreakdown klatProducer(long offset, double produceMs, ProducerEvidence e) {
    long s = T0 + offset * 1_000 * MS;
    long d = s + (long) (produceMs * MS);
    long l = d + MS;
    long h = l + MS;
    Instants instants =
        Instants.builder()
            .send(s)
            .drain(d)
            .append(l, EstimationMethod.BROKER_PROBE)
            .commit(h, EstimationMethod.BROKER_PROBE)
            .poll(h + 2 * MS)
            .method(TimePoint.POLL, SPAN)
            .build();
    return joined(offset, instants, 0.1, 0.2, e);
  }

  // A sampled record of klat's agents, of this end to end (ms).
  private static JoinedBreakdown sampled(long offset, double e2eMs) {
    long s = T0;
    long p = s + (long) (e2eMs * MS);
    Instants instants =
        Instants.builder()
            .send(s)
            .drain(s + MS)
            .commit(p, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(p)
            .fetchResponse(p)
            .poll(p)
            .build();
    return new JoinedBreakdown(
        new RecordKey(TOPIC, 1, offset),
        "billing",
        1,
        offset + 1_000,
        1,
        2,
        Breakdown.compute(instants),
        new ClockOffset("a", "b", 0, 0, 0, 0),
        null,
        Set.of(),
        false,
        -1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN);
  }

  @Test
  void sampledRecordsAndInstrumentedOnesAreEachWeighedAgainstTheirOwnP99() {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    // The sampled records are all slower than the instrumented ones: the instrumented ones' own
    // slowest still make their tail.
    for (int ms = 1; ms <= 100; ms++) {
      recent.add(sampled(ms, 1_000 + ms), 0);
    }
    quick(0.1, 0.2).forEach(b -> recent.add(b, 0));
    slow(50, 1, 5, 0.1, 0.2).forEach(b -> recent.add(b, 0));

    List<TailRecord> tail = recent.tail(TOPIC, null, WINDOW, 1, Diagnosis.MIN_TAIL_RECORDS);

    assertThat(tail).filteredOn(r -> r.capture() == Capture.OPENTELEMETRY).hasSize(5);
    assertThat(tail)
        .filteredOn(r -> r.capture() == Capture.OPENTELEMETRY)
        .allSatisfy(r -> assertThat(r.produceAndPublishNanos()).isEqualTo(50 * MS))
        .allSatisfy(r -> assertThat(r.catchUpAndFetchNanos()).isEqualTo(5 * MS))
        .allSatisfy(r -> assertThat(r.appendEpochNanos()).isPositive());
    assertThat(tail).filteredOn(r -> r.capture() == Capture.SAMPLED).hasSize(5);
  }
}

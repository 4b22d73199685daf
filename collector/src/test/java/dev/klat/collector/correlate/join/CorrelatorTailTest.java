package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.Replicas;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TailTraceIds;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The join of tail spans (section 8 of the latency model), with real probe data and clocks. */
class CorrelatorTailTest {
  private static final long WINDOW_NANOS = 10_000_000_000L;
  private static final long MS = 1_000_000L;
  // The leader of every span in Spans is broker 1.
  private static final TermKey LEADER = new TermKey(1, 0xABCL, 3);

  private long nowNanos = 1_000_000_000L;
  private final ProbeTimelines probes = new ProbeTimelines(100, 100);
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private final List<Long> sources = new ArrayList<>();

  private Correlator correlator(BrokerInstants brokerInstants, long maxTailBytes) {
    return Correlator.sourced(
        new Correlator.Settings(
            WINDOW_NANOS,
            100,
            60_000_000_000L,
            100,
            Correlator.Settings.DEFAULT_MAX_PENDING_BYTES,
            64,
            Correlator.Settings.DEFAULT_CLOCK_MAX_STEP_NANOS,
            maxTailBytes),
        () -> nowNanos,
        brokerInstants,
        (breakdown, source) -> {
          out.add(breakdown);
          sources.add(source);
        });
  }

  private Correlator withProbe() {
    return correlator(
        BrokerInstants.probeFirst(probes, (node, request, at) -> null, Replicas.UNKNOWN, MS),
        Correlator.Settings.DEFAULT_MAX_PENDING_TAIL_BYTES);
  }

  private void probed(long offset, double appendMs, double commitMs) {
    probes.append(LEADER, "orders", 0, offset, offset, ms(appendMs), ms(appendMs));
    probes.commit(LEADER, "orders", 0, offset, offset, ms(commitMs), ms(commitMs), 2);
  }

  private void windowEnds(Correlator c) {
    nowNanos += WINDOW_NANOS;
    c.expire();
  }

  static long derivedHigh(RecordKey key) {
    return TailTraceIds.high(TailTraceIds.topicHash(key.topic()), key.partition(), key.offset());
  }

  static long derivedLow(RecordKey key) {
    return TailTraceIds.low(TailTraceIds.topicHash(key.topic()), key.partition(), key.offset());
  }

  /** A producer tail span of an unsampled record: its trace id derived from the record. */
  static ProducerSpan tailProducer(long offset, double s, double d, double a) {
    ProducerSpan p = Spans.producer(offset, s, d, a);
    return new ProducerSpan(
        p.key(),
        derivedHigh(p.key()),
        derivedLow(p.key()),
        p.spanId(),
        p.instanceId(),
        p.sendNanos(),
        p.drainNanos(),
        p.ackNanos(),
        p.logAppendTimeMs(),
        p.leaderNodeId(),
        p.clientId(),
        p.evidence(),
        Capture.TAIL,
        5 * MS);
  }

  /**
   * A consumer tail span of an unsampled record, with the record timestamp of a CreateTime topic
   * ({@code createTimeMs}) or of a LogAppendTime one ({@code logAppendTimeMs}), -1 for neither.
   */
  static ConsumerSpan tailConsumer(
      long offset,
      String group,
      double f,
      double r,
      double p,
      long createTimeMs,
      long logAppendTimeMs) {
    ConsumerSpan c = Spans.consumer(offset, group, f, r, p);
    return new ConsumerSpan(
        c.key(),
        c.group(),
        derivedHigh(c.key()),
        derivedLow(c.key()),
        c.spanId(),
        0,
        c.instanceId(),
        c.fetchRequestNanos(),
        c.fetchResponseNanos(),
        c.pollNanos(),
        logAppendTimeMs,
        c.clientId(),
        c.evidence(),
        c.responseReadPromptly(),
        c.uncommittedNanos(),
        createTimeMs,
        Capture.TAIL,
        20 * MS);
  }

  private static long epochMs(double msAfterT0) {
    return ms(msAfterT0) / MS;
  }

  @Test
  void aRecordFlaggedOnBothSidesGetsAllFiveSegmentsAndIsTail() {
    Correlator c = withProbe();
    probed(5, 12, 30);
    c.offerProducer(tailProducer(5, 0, 10, 32));
    c.offerConsumer(tailConsumer(5, "g", 20, 34, 35, epochMs(0), -1));

    assertThat(out).hasSize(1);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.TAIL);
    for (Segment segment : Segment.values()) {
      assertThat(j.breakdown().isKnown(segment)).as(segment.id()).isTrue();
    }
    assertThat(j.breakdown().quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    assertThat(j.breakdown().sumOfSegmentsNanos()).isEqualTo(j.breakdown().e2eNanos());
    assertThat(TailTraceIds.isDerived(j.traceIdHigh())).isTrue();
    Correlator.TailStats tail = c.stats().tail();
    assertThat(tail.joined()).isEqualTo(1);
    assertThat(tail.producerSpans()).isEqualTo(1);
    assertThat(tail.consumerSpans()).isEqualTo(1);
    assertThat(c.stats().joined()).isEqualTo(1);
    // Nothing left for the window's end.
    windowEnds(c);
    assertThat(out).hasSize(1);
    assertThat(c.stats().tail().producerOnly()).isZero();
  }

  @Test
  void aProducerTailSpanNoGroupJoinedBecomesAProduceSideBreakdownWhenItsWindowEnds() {
    Correlator c = withProbe();
    probed(5, 12, 30);
    c.offerProducer(tailProducer(5, 0, 10, 32), 77);
    assertThat(out).isEmpty();

    windowEnds(c);

    assertThat(out).hasSize(1);
    JoinedBreakdown j = out.get(0);
    assertThat(sources).containsExactly(77L);
    assertThat(j.capture()).isEqualTo(Capture.TAIL);
    assertThat(j.group()).isNull();
    assertThat(j.consumerSpanId()).isZero();
    assertThat(j.producerSpanId()).isEqualTo(105);
    Breakdown b = j.breakdown();
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(10 * MS);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(2 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(18 * MS);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.isKnown(Segment.CATCH_UP)).isFalse();
    assertThat(b.isKnown(Segment.FETCH)).isFalse();
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(j.e2eFlagged()).isFalse();
    assertThat(j.commitFollowerId()).isEqualTo(2);
    Correlator.Stats stats = c.stats();
    assertThat(stats.tail().producerOnly()).isEqualTo(1);
    assertThat(stats.unjoinedProducerSpans()).as("a tail span is not unjoined").isZero();
    assertThat(stats.pendingRecords()).isZero();
  }

  @Test
  void aProducerOnlyRecordWithoutBrokerDataOrAcksAllHasNoCommit() {
    Correlator c =
        correlator(
            BrokerInstants.logAppendTime(), Correlator.Settings.DEFAULT_MAX_PENDING_TAIL_BYTES);
    c.offerProducer(tailProducer(5, 0, 10, 32));
    windowEnds(c);

    Breakdown b = out.get(0).breakdown();
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(10 * MS);
    assertThat(b.instants().has(TimePoint.COMMIT)).isFalse();
    assertThat(b.publishAndCommitNanos()).isEqualTo(-1);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(10 * MS);
    assertThat(out.get(0).brokerOffset()).isNull();
  }

  @Test
  void aConsumerTailSpanOnACreateTimeTopicTakesSFromTheTimestampAndLAndHFromTheProbe() {
    Correlator c = withProbe();
    probed(5, 12, 30);
    c.offerConsumer(tailConsumer(5, "g", 20, 34, 35, epochMs(0), -1), 91);

    windowEnds(c);

    assertThat(out).hasSize(1);
    assertThat(sources).containsExactly(91L);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.TAIL);
    assertThat(j.group()).isEqualTo("g");
    assertThat(j.producerSpanId()).isZero();
    assertThat(j.leaderNodeId()).as("the leader whose probe had the record").isEqualTo(1);
    Breakdown b = j.breakdown();
    // S is the middle of the timestamp's millisecond; the broker's clock is taken as it reads.
    assertThat(b.instants().nanos(TimePoint.SEND)).isEqualTo(ms(0.5));
    assertThat(b.instants().method(TimePoint.SEND)).isEqualTo(EstimationMethod.CREATE_TIMESTAMP);
    assertThat(b.isKnown(Segment.PRODUCE)).isFalse();
    assertThat(b.isKnown(Segment.PUBLISH)).isFalse();
    assertThat(b.produceAndPublishNanos()).isEqualTo(11_500_000L);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(18 * MS);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(1 * MS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(4 * MS);
    assertThat(b.isEndToEndKnown()).isTrue();
    assertThat(b.e2eNanos()).isEqualTo(34_500_000L);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.quality()).isEqualTo(Quality.CREATE_TIME);
    // S is on a clock klat cannot align with the consumer's.
    assertThat(j.e2eFlagged()).isTrue();
    assertThat(j.consumerOffset().offsetNanos()).isZero();
    assertThat(j.brokerOffset()).isNotNull();
    assertThat(c.stats().tail().consumerOnly()).isEqualTo(1);
    assertThat(c.stats().unjoinedConsumerSpans()).isZero();
  }

  @Test
  void aConsumerTailSpanOnALogAppendTimeTopicHasLFromTheTimestampAndNoEndToEnd() {
    Correlator c =
        correlator(
            BrokerInstants.logAppendTime(), Correlator.Settings.DEFAULT_MAX_PENDING_TAIL_BYTES);
    c.offerConsumer(tailConsumer(5, "g", 20, 34, 35, -1, epochMs(12)));

    windowEnds(c);

    Breakdown b = out.get(0).breakdown();
    assertThat(b.instants().has(TimePoint.SEND)).isFalse();
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(out.get(0).e2eFlagged()).isFalse();
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(b.instants().method(TimePoint.APPEND))
        .isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    // L in the middle of its millisecond, H bounded by R.
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(21_500_000L);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(1 * MS);
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(ms(35) - ms(12.5));
    assertThat(b.produceAndPublishNanos()).isEqualTo(-1);
  }

  @Test
  void aTailSpanJoinsASampledSpanAndTheRealTraceIdWins() {
    Correlator c = withProbe();
    probed(5, 12, 30);
    // The producer sampled the record (its real trace id), the consumer flagged it as slow.
    c.offerConsumer(tailConsumer(5, "g", 20, 34, 35, epochMs(0), -1));
    c.offerProducer(Spans.producer(5, 0, 10, 32));

    assertThat(out).hasSize(1);
    assertThat(c.stats().traceMismatches()).isZero();
    assertThat(out.get(0).capture()).isEqualTo(Capture.TAIL);
    assertThat(out.get(0).traceIdHigh()).isEqualTo(7);
    assertThat(out.get(0).traceIdLow()).isEqualTo(6);
    assertThat(out.get(0).breakdown().isKnown(Segment.PRODUCE)).isTrue();
    // The record moved to the sampled table, and its window's end makes nothing more of it.
    windowEnds(c);
    assertThat(out).hasSize(1);
  }

  @Test
  void sampledSpansKeepTodaysBehaviourBesideTailSpans() {
    Correlator c = withProbe();
    c.offerProducer(Spans.producer(1, 0, 10, 32));
    c.offerConsumer(Spans.consumer(2, "g", 20, 34, 35));
    c.offerProducer(Spans.producer(3, 0, 10, 32));
    c.offerConsumer(Spans.consumer(3, "g", 20, 34, 35));
    c.offerProducer(tailProducer(4, 0, 10, 32));

    windowEnds(c);

    Correlator.Stats stats = c.stats();
    assertThat(out)
        .extracting(JoinedBreakdown::capture)
        .containsExactly(Capture.SAMPLED, Capture.TAIL);
    assertThat(out.get(1).group()).isNull();
    assertThat(stats.joined()).isEqualTo(1);
    assertThat(stats.unjoinedProducerSpans()).isEqualTo(1);
    assertThat(stats.unjoinedConsumerSpans()).isEqualTo(1);
    assertThat(stats.tail().producerOnly()).isEqualTo(1);
    assertThat(stats.tail().joined()).isZero();
  }

  @Test
  void tailSpansHaveTheirOwnBudgetAndNeverEvictASampledRecord() {
    // Room for about three tail-only records of one span each.
    long perRecord = JoinTable.ENTRY_BYTES + "orders".length() + JoinTable.SPAN_BYTES + 41;
    Correlator c = correlator(BrokerInstants.logAppendTime(), 3 * perRecord + perRecord / 2);
    for (long offset = 0; offset < 10; offset++) {
      c.offerProducer(Spans.producer(offset, 0, 10, 32));
    }
    for (long offset = 100; offset < 150; offset++) {
      c.offerProducer(tailProducer(offset, 0, 10, 32));
    }

    Correlator.Stats stats = c.stats();
    assertThat(stats.evicted()).as("no sampled record made room for tail ones").isZero();
    assertThat(stats.tail().evicted()).isEqualTo(47);
    assertThat(stats.tail().droppedSpans()).isEqualTo(47);
    assertThat(stats.tail().pendingRecords()).isEqualTo(3);
    assertThat(stats.tail().pendingBytes()).isLessThanOrEqualTo(3 * perRecord + perRecord / 2);
    assertThat(stats.pendingRecords()).isEqualTo(13);
    assertThat(stats.pendingBytes()).as("the sampled budget is apart").isEqualTo(10 * (perRecord));
    // Every sampled record still joins.
    for (long offset = 0; offset < 10; offset++) {
      c.offerConsumer(Spans.consumer(offset, "g", 20, 34, 35));
    }
    assertThat(c.stats().joined()).isEqualTo(10);
    // The three tail records the budget kept become producer-only breakdowns.
    windowEnds(c);
    assertThat(c.stats().tail().producerOnly()).isEqualTo(3);
  }
}

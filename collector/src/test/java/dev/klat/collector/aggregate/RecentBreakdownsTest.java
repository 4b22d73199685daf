package dev.klat.collector.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.Quality;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecentBreakdownsTest {
  static JoinedBreakdown breakdown(String topic, long produceNanos, long e2eNanos) {
    long s = 1_000_000_000L;
    long d = s + produceNanos;
    long p = s + e2eNanos;
    Instants i =
        Instants.builder()
            .send(s)
            .drain(d)
            .commit(p, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(p)
            .fetchResponse(p)
            .poll(p)
            .build();
    return new JoinedBreakdown(
        new RecordKey(topic, 0, 0),
        "g",
        1,
        2,
        3,
        4,
        Breakdown.compute(i),
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
  void theTailCarriesItsRecordsEvidence() {
    RecentBreakdowns r = new RecentBreakdowns(1_000);
    ProducerEvidence lingering =
        new ProducerEvidence(100, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    for (int ms = 1; ms <= 200; ms++) {
      JoinedBreakdown b = breakdown("orders", 1_000_000L, ms * 1_000_000L);
      if (ms >= 198) {
        b = withRequestTimes(withEvidence(b, lingering), 5_000, 7_000);
      }
      r.add(b, 0);
    }

    java.util.List<TailRecord> tail = r.tail("orders", null, 10, 5, 1);

    // p99 of 1..200 ms is 198 ms: the three slowest; asked for at least five, the five slowest.
    assertThat(r.tail("orders", null, 10, 5, 5))
        .extracting(TailRecord::e2eNanos)
        .containsExactly(196_000_000L, 197_000_000L, 198_000_000L, 199_000_000L, 200_000_000L);
    assertThat(tail).hasSize(3);
    assertThat(tail).allSatisfy(t -> assertThat(t.producer()).isEqualTo(lingering));
    assertThat(tail)
        .extracting(TailRecord::e2eNanos)
        .containsExactly(198_000_000L, 199_000_000L, 200_000_000L);
    // F = R = P: nothing sat in the buffer; H = P, so the consumer asked no later than the commit.
    assertThat(tail).allSatisfy(t -> assertThat(t.bufferedNanos()).isZero());
    assertThat(tail).allSatisfy(t -> assertThat(t.lagNanos()).isZero());
    assertThat(tail).allSatisfy(t -> assertThat(t.drainEpochNanos()).isPositive());
    assertThat(r.tail("other", null, 10, 5, 5)).isEmpty();
    assertThat(tail).allSatisfy(t -> assertThat(t.requestQueueNanos()).isEqualTo(5_000));
    assertThat(tail).allSatisfy(t -> assertThat(t.requestLocalNanos()).isEqualTo(7_000));
    assertThat(r.tail("orders", null, 10, 5, 5).get(0).hasRequestTimes()).isFalse();
  }

  private static JoinedBreakdown withRequestTimes(
      JoinedBreakdown b, long queueNanos, long localNanos) {
    return new JoinedBreakdown(
        b.key(),
        b.group(),
        b.traceIdHigh(),
        b.traceIdLow(),
        b.producerSpanId(),
        b.consumerSpanId(),
        b.breakdown(),
        b.consumerOffset(),
        b.brokerOffset(),
        b.flagged(),
        b.e2eFlagged(),
        b.leaderNodeId(),
        b.commitFollowerId(),
        queueNanos,
        localNanos,
        b.producerEvidence(),
        b.consumerEvidence());
  }

  private static JoinedBreakdown withEvidence(JoinedBreakdown b, ProducerEvidence evidence) {
    return new JoinedBreakdown(
        b.key(),
        b.group(),
        b.traceIdHigh(),
        b.traceIdLow(),
        b.producerSpanId(),
        b.consumerSpanId(),
        b.breakdown(),
        b.consumerOffset(),
        b.brokerOffset(),
        b.flagged(),
        b.e2eFlagged(),
        b.leaderNodeId(),
        b.commitFollowerId(),
        b.requestQueueNanos(),
        b.requestLocalNanos(),
        evidence,
        b.consumerEvidence());
  }

  @Test
  void quantilesAndTheTailMeansComeFromTheWindow() {
    RecentBreakdowns r = new RecentBreakdowns(10_000);
    // 1000 records: e2e 1..1000 ms; produce is 1 ms except in the slowest 10, where it is 900 ms.
    for (int ms = 1; ms <= 1000; ms++) {
      long produce = ms > 990 ? 900_000_000L : 1_000_000L;
      r.add(breakdown("orders", produce, ms * 1_000_000L), 0);
    }
    r.add(breakdown("other", 1, 5_000_000_000L), 0);
    RecentBreakdowns.Summary s = r.summarise("orders", "g", 10, 5);
    assertThat(s.count()).isEqualTo(1000);
    assertThat(s.p50Nanos()).isEqualTo(500_000_000L);
    assertThat(s.p99Nanos()).isEqualTo(990_000_000L);
    assertThat(s.p999Nanos()).isEqualTo(999_000_000L);
    // The tail is e2e >= p99: 990..1000 ms, 11 records, 10 of them with a 900 ms produce.
    assertThat(s.tailCount()).isEqualTo(11);
    assertThat(s.tailMeanNanos().get("produce")).isEqualTo((10 * 900e6 + 1e6) / 11);
    assertThat(s.tailMeanNanos().get("publish")).isNull();
    // Per segment over the whole window: produce is 1 ms in 990 records, 900 ms in 10, so the p99
    // (the 990th value) is still 1 ms; publish is known in none.
    assertThat(s.segments().get("produce"))
        .isEqualTo(new RecentBreakdowns.SegmentQuantiles(1000, 1_000_000L, 1_000_000L));
    assertThat(s.segments().get("publish"))
        .isEqualTo(new RecentBreakdowns.SegmentQuantiles(0, -1, -1));
    // H is the fetch response's bound: what depends on it is estimated, and says so per segment.
    assertThat(s.segmentQualities().get("catch-up"))
        .containsEntry("estimated", 1000)
        .containsEntry("exact", 0);
    assertThat(s.segmentQualities().get("publish+commit")).containsEntry("estimated", 1000);
    // R - F is read on the consumer's clock alone.
    assertThat(s.segmentQualities().get("fetch-round-trip")).containsEntry("exact", 1000);
    // publish+commit is e2e - produce: 0..989 ms for the fast records and 91..100 ms for the slow
    // ones, so 500 values are at most 489 ms.
    assertThat(s.segments().get("publish+commit").p50Nanos()).isEqualTo(489_000_000L);
    assertThat(r.summarise(null, null, 10, 5).count()).isEqualTo(1001);
    assertThat(r.summarise("orders", null, 10, 100).count()).isZero();
  }

  @Test
  void theSlowestRecordsComeSlowestFirstWithTheirSegmentsAndTraceId() {
    RecentBreakdowns r = new RecentBreakdowns(100);
    r.add(breakdown("orders", 1_000_000, 10_000_000), 100);
    r.add(breakdown("orders", 2_000_000, 30_000_000), 100);
    r.add(breakdown("orders", 3_000_000, 20_000_000), 100);
    r.add(breakdown("other", 4_000_000, 90_000_000), 100);

    List<SlowRecord> slowest = r.slowest("orders", null, 50, 120, 2);

    assertThat(slowest).extracting(SlowRecord::e2eNanos).containsExactly(30_000_000L, 20_000_000L);
    SlowRecord first = slowest.get(0);
    assertThat(first.segments().get(0))
        .isEqualTo(new SlowRecord.Part("produce", 2_000_000, Quality.EXACT, false));
    assertThat(first.segments())
        .extracting(SlowRecord.Part::segment)
        .containsExactly("produce", "publish", "commit", "catch-up", "fetch");
    assertThat(first.traceIdHex()).isEqualTo("00000000000000010000000000000002");
    assertThat(first.group()).isEqualTo("g");
  }

  @Test
  void theBusiestPairsComeFirstAndOnlyFromTheWindow() {
    RecentBreakdowns r = new RecentBreakdowns(100);
    r.add(breakdown("old", 1, 10), 0);
    for (int i = 0; i < 3; i++) {
      r.add(breakdown("busy", 1, 10), 100);
    }
    r.add(breakdown("quiet", 1, 10), 100);

    assertThat(r.busiestPairs(50, 120, 10))
        .containsExactly(new TopicGroup("busy", "g", 3), new TopicGroup("quiet", "g", 1));
    assertThat(r.busiestPairs(50, 120, 1)).hasSize(1);
  }

  @Test
  void theRingKeepsTheNewestRecords() {
    RecentBreakdowns r = new RecentBreakdowns(3);
    for (int i = 1; i <= 5; i++) {
      r.add(breakdown("t", 1, i * 1_000_000L), i);
    }
    RecentBreakdowns.Summary s = r.summarise(null, null, 100, 5);
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.p50Nanos()).isEqualTo(4_000_000L);
  }

  /** A breakdown whose L is the log-append timestamp and whose H is bounded by R. */
  static JoinedBreakdown withLogAppendTime(String topic) {
    long s = 1_000_000_000L;
    Instants i =
        Instants.builder()
            .send(s)
            .drain(s + 1)
            .append(s + 2, EstimationMethod.LOG_APPEND_TIMESTAMP)
            .commit(s + 3, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(s + 3)
            .fetchResponse(s + 3)
            .poll(s + 4)
            .build();
    JoinedBreakdown plain = breakdown(topic, 1, 4);
    return new JoinedBreakdown(
        plain.key(),
        plain.group(),
        1,
        2,
        3,
        4,
        Breakdown.compute(i),
        plain.consumerOffset(),
        null,
        Set.of(),
        false,
        1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN);
  }

  @Test
  void eachSegmentCountsTheBreakdownsOfEveryQuality() {
    RecentBreakdowns r = new RecentBreakdowns(100);
    for (int i = 0; i < 3; i++) {
      r.add(breakdown("orders", 1, 5), 0);
    }
    r.add(withLogAppendTime("orders"), 0);
    Map<String, Map<String, Integer>> q = r.summarise(null, null, 10, 5).segmentQualities();
    assertThat(q.get("produce"))
        .containsExactly(
            Map.entry("exact", 4),
            Map.entry("log-append-time", 0),
            Map.entry("client-clock", 0),
            Map.entry("create-time", 0),
            Map.entry("estimated", 0),
            Map.entry("none", 0));
    // Without L publish is not known: none; with the timestamp, log-append-time.
    assertThat(q.get("publish")).containsEntry("log-append-time", 1).containsEntry("none", 3);
    // Commit ends at the bound on H: estimated where known.
    assertThat(q.get("commit")).containsEntry("estimated", 1).containsEntry("none", 3);
    assertThat(q.get("publish+commit")).containsEntry("estimated", 4);
    assertThat(q.get("fetch")).containsEntry("estimated", 4);
    assertThat(r.summarise("none", null, 10, 5).segmentQualities().get("produce"))
        .containsEntry("exact", 0);
  }

  /** The same breakdown, captured as a tail record, in {@code group} (null: producer-only). */
  static JoinedBreakdown asTail(JoinedBreakdown b, String group) {
    return new JoinedBreakdown(
        b.key(),
        group,
        b.traceIdHigh(),
        b.traceIdLow(),
        b.producerSpanId(),
        group == null ? 0 : b.consumerSpanId(),
        b.breakdown(),
        b.consumerOffset(),
        b.brokerOffset(),
        b.flagged(),
        b.e2eFlagged(),
        b.leaderNodeId(),
        b.commitFollowerId(),
        b.requestQueueNanos(),
        b.requestLocalNanos(),
        b.producerEvidence(),
        b.consumerEvidence(),
        Capture.TAIL);
  }

  // Partial tail records (no D, no S or no P) cannot be built with today's Instants (only A and L
  // are optional); tail-join's model change makes them possible. Until then a producer-only record
  // is one without a group: the sides, the null group and the listing are what these tests pin.
  @Test
  void tailRecordsStayOutOfTheSampledFiguresAndAreSplitApart() {
    RecentBreakdowns r = new RecentBreakdowns(1_000);
    for (int ms = 1; ms <= 100; ms++) {
      r.add(breakdown("orders", 1_000_000L, ms * 1_000_000L), 0);
    }
    // Ten tail records of 1 s, 900 ms of it produce; two of them flagged by the producer alone.
    for (int i = 0; i < 10; i++) {
      r.add(asTail(breakdown("orders", 900_000_000L, 1_000_000_000L), i < 2 ? null : "g"), 0);
    }

    RecentBreakdowns.Summary s = r.summarise("orders", null, 10, 5);

    assertThat(s.count()).isEqualTo(100);
    assertThat(s.p99Nanos()).isEqualTo(99_000_000L);
    assertThat(s.segments().get("produce").p99Nanos()).isEqualTo(1_000_000L);
    assertThat(s.segmentQualities().get("produce")).containsEntry("exact", 100);
    RecentBreakdowns.TailSplit tail = s.tail();
    assertThat(tail.count()).isEqualTo(10);
    assertThat(tail.full()).isEqualTo(8);
    assertThat(tail.producerOnly()).isEqualTo(2);
    assertThat(tail.consumerOnly()).isZero();
    assertThat(tail.e2e().count()).isEqualTo(10);
    assertThat(tail.e2e().p99Nanos()).isEqualTo(1_000_000_000L);
    RecentBreakdowns.TailSegment produce = tail.segments().get("produce");
    assertThat(produce.count()).isEqualTo(10);
    assertThat(produce.p50Nanos()).isEqualTo(900_000_000L);
    assertThat(produce.share()).isEqualTo(0.9);
    assertThat(produce.shareCount()).isEqualTo(10);
    // No L: publish alone is unknown, publish+commit is H - D; produce+publish needs L.
    assertThat(tail.segments().get("publish").count()).isZero();
    assertThat(tail.segments().get("publish").share()).isEqualTo(-1);
    assertThat(tail.segments().get("publish+commit").meanNanos()).isEqualTo(100_000_000.0);
    assertThat(tail.segments().get("produce+publish").count()).isZero();
    assertThat(tail.segments())
        .containsOnlyKeys(
            "produce",
            "publish",
            "commit",
            "catch-up",
            "fetch",
            "publish+commit",
            "produce+publish");
    // Asked for a group, the producer-only records are in it (every group reads the record), and
    // not in another topic's.
    assertThat(r.summarise("orders", "g", 10, 5).tail().count()).isEqualTo(10);
    assertThat(r.summarise("orders", "h", 10, 5).tail().producerOnly()).isEqualTo(2);
    assertThat(r.summarise("other", "g", 10, 5).tail().count()).isZero();
    assertThat(r.summarise("orders", "g", 10, 5).count()).isEqualTo(100);
    // Only tail records in the window: no sampled figure, the tail still counted.
    RecentBreakdowns onlyTail = new RecentBreakdowns(10);
    onlyTail.add(asTail(breakdown("orders", 1, 5), "g"), 0);
    assertThat(onlyTail.summarise(null, null, 10, 5).count()).isZero();
    assertThat(onlyTail.summarise(null, null, 10, 5).p99Nanos()).isEqualTo(-1);
    assertThat(onlyTail.summarise(null, null, 10, 5).tail().count()).isEqualTo(1);
    assertThat(new RecentBreakdowns(1).summarise(null, null, 10, 5).tail())
        .isEqualTo(RecentBreakdowns.TailSplit.EMPTY);
  }

  @Test
  void theDiagnosisTailIsTheTailRecordsInTheP99TailAndTheSampledP99Tail() {
    RecentBreakdowns r = new RecentBreakdowns(1_000);
    for (int ms = 1; ms <= 200; ms++) {
      r.add(breakdown("orders", 1_000_000L, ms * 1_000_000L), 0);
    }
    for (int i = 0; i < 6; i++) {
      r.add(asTail(breakdown("orders", 50_000_000L, 250_000_000L), i == 0 ? null : "g"), 0);
    }
    // Slow on the side that flagged it, but under the sampled p99 (198 ms): not in the tail.
    r.add(asTail(breakdown("orders", 50_000_000L, 150_000_000L), "g"), 0);

    List<TailRecord> tail = r.tail("orders", null, 10, 5, 5);

    // Six tail records at or above the sampled p99, then the sampled p99 tail (198, 199 and 200
    // ms), not widened: six tail records are already more than five.
    assertThat(tail).hasSize(9);
    assertThat(tail).filteredOn(t -> t.capture() == Capture.TAIL).hasSize(6);
    assertThat(tail)
        .filteredOn(t -> t.capture() == Capture.TAIL)
        .extracting(TailRecord::latencyNanos)
        .containsOnly(250_000_000L);
    assertThat(tail)
        .filteredOn(t -> t.capture() == Capture.SAMPLED)
        .extracting(TailRecord::e2eNanos)
        .containsExactly(198_000_000L, 199_000_000L, 200_000_000L);
    assertThat(tail.get(0).publishAndCommitNanos()).isEqualTo(200_000_000L);
    // Another group has the producer-only one; with one tail record, the sampled records widen to
    // the five records asked for.
    assertThat(r.tail("orders", "h", 10, 5, 5))
        .singleElement()
        .satisfies(t -> assertThat(t.capture()).isEqualTo(Capture.TAIL));
    RecentBreakdowns few = new RecentBreakdowns(100);
    for (int ms = 1; ms <= 20; ms++) {
      few.add(breakdown("orders", 1, ms * 1_000_000L), 0);
    }
    few.add(asTail(breakdown("orders", 1, 30_000_000L), "g"), 0);
    few.add(asTail(breakdown("orders", 1, 5_000_000L), "g"), 0);
    assertThat(few.tail(null, null, 10, 5, 5))
        .extracting(TailRecord::e2eNanos)
        .containsExactly(30_000_000L, 17_000_000L, 18_000_000L, 19_000_000L, 20_000_000L);
    // Without sampled records, every tail record is the tail.
    RecentBreakdowns onlyTail = new RecentBreakdowns(100);
    onlyTail.add(asTail(breakdown("orders", 1, 5_000_000L), "g"), 0);
    assertThat(onlyTail.tail(null, null, 10, 5, 5)).hasSize(1);
  }

  @Test
  void theSlowestListTailRecordsWithTheirCaptureAndAProducerOnlyOneWithoutAGroup() {
    RecentBreakdowns r = new RecentBreakdowns(100);
    r.add(breakdown("orders", 1_000_000, 10_000_000), 100);
    r.add(asTail(breakdown("orders", 2_000_000, 30_000_000), "g"), 100);
    r.add(asTail(breakdown("orders", 3_000_000, 20_000_000), null), 100);

    List<SlowRecord> all = r.slowest("orders", null, 50, 120, 10);

    assertThat(all)
        .extracting(SlowRecord::capture)
        .containsExactly(Capture.TAIL, Capture.TAIL, Capture.SAMPLED);
    assertThat(all).extracting(SlowRecord::group).containsExactly("g", null, "g");
    assertThat(all.get(1).topic()).isEqualTo("orders");
    assertThat(all.get(0).combined())
        .containsExactly(
            new SlowRecord.Part("publish+commit", 28_000_000, Quality.ESTIMATED, false),
            new SlowRecord.Part("produce+publish", -1, Quality.NONE, false),
            new SlowRecord.Part("catch-up+fetch", -1, Quality.NONE, false));
    assertThat(r.slowest("orders", null, Capture.SAMPLED, 50, 120, 10)).hasSize(1);
    assertThat(r.slowest("orders", null, Capture.TAIL, 50, 120, 10)).hasSize(2);
    assertThat(r.slowest("orders", "g", 50, 120, 10)).hasSize(3);
    assertThat(r.slowest("orders", "h", 50, 120, 10))
        .extracting(SlowRecord::group)
        .containsExactly((String) null);
    // The page's picker lists the pairs of sampled records: a tail record's group-less pair is not
    // one.
    assertThat(r.busiestPairs(50, 120, 10)).containsExactly(new TopicGroup("orders", "g", 1));
  }
}

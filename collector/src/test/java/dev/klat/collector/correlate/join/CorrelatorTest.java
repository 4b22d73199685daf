package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.consumer;
import static dev.klat.collector.correlate.join.Spans.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CorrelatorTest {
  private static final long WINDOW_NANOS = 10_000_000_000L;

  private long nowNanos = 0;
  private final List<JoinedBreakdown> out = new ArrayList<>();

  private Correlator correlator(int maxPending) {
    return new Correlator(
        new Correlator.Settings(WINDOW_NANOS, maxPending, 60_000_000_000L, 100),
        () -> nowNanos,
        BrokerInstants.logAppendTime(),
        out::add);
  }

  @Test
  void producerThenConsumerGivesTheHandComputedBreakdown() {
    Correlator c = correlator(100);
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    assertThat(out).hasSize(1);
    Breakdown b = out.get(0).breakdown();
    // No broker data: H is R (fetch-response-bound); publish and commit only together, H - D.
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(2_000_000);
    assertThat(b.isKnown(Segment.PUBLISH)).isFalse();
    assertThat(b.isKnown(Segment.COMMIT)).isFalse();
    assertThat(b.publishAndCommitNanos()).isEqualTo(10_000_000);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(3_000_000);
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.e2eNanos()).isEqualTo(15_000_000);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.quality(Segment.FETCH)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.method(Segment.FETCH)).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(b.quality(Segment.PUBLISH)).isEqualTo(Quality.NONE);
    // One direction of traffic only: the offset is bounded on one side, so not trusted.
    assertThat(out.get(0).consumerOffset().bounded()).isFalse();
    assertThat(out.get(0).consumerOffset().offsetNanos()).isZero();
    assertThat(out.get(0).e2eFlagged()).isTrue();
    assertThat(out.get(0).traceIdHex()).isEqualTo("0000000000000007" + "0000000000000002");
  }

  @Test
  void aJoinedPairCarriesItsPlaceInAPipeline() {
    Correlator c = correlator(100);
    ProducerSpan p = producer(1, 0, 2, 10);
    RecordLinks links =
        new RecordLinks(
            List.of(new RecordLink(new RecordKey("upstream", 0, 9), "enricher", 7, 2, 0x66)), 1, 0);
    c.offerProducer(
        new ProducerSpan(
            p.key(),
            p.traceIdHigh(),
            p.traceIdLow(),
            p.spanId(),
            p.instanceId(),
            p.sendNanos(),
            p.drainNanos(),
            p.ackNanos(),
            p.logAppendTimeMs(),
            p.leaderNodeId(),
            p.clientId(),
            p.evidence(),
            p.capture(),
            p.tailThresholdNanos(),
            0x66,
            links));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    ChainContext chain = out.get(0).chain();
    assertThat(chain.links()).isEqualTo(links);
    assertThat(chain.producerParentSpanId()).isEqualTo(0x66);
    assertThat(chain.producerInstanceId()).isEqualTo(Spans.PRODUCER_HOST);
    assertThat(chain.consumerInstanceId()).isEqualTo(Spans.CONSUMER_HOST);
    // S and P on their own hosts' clocks, as the agents read them: processing needs one clock.
    assertThat(chain.sendNanos()).isEqualTo(Spans.ms(0));
    assertThat(chain.pollNanos()).isEqualTo(Spans.ms(15));
  }

  @Test
  void withAcksAllTheAcknowledgementBoundsTheCommitSoTheFetchWaitStaysInFetch() {
    Correlator c = correlator(100);
    ProducerSpan p = producer(1, 0, 2, 10);
    c.offerProducer(Spans.acksAll(p));
    // The consumer asked at 5 ms and its long poll answered at 12: after the ack at 10.
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    Breakdown b = out.get(0).breakdown();
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(10));
    assertThat(b.publishAndCommitNanos()).isEqualTo(8_000_000);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(2_000_000);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(3_000_000);
    assertThat(b.method(Segment.FETCH)).isEqualTo(EstimationMethod.ACK_BOUND);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void logAppendTimeGivesPublishAndCommitWithTheSmallestBrokerCorrection() {
    Correlator c = correlator(100);
    long lMs = Spans.T0 / 1_000_000 + 4; // L read as T0 + 4 ms on the broker: true L in [4, 5)
    c.offerProducer(producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 2, 10, lMs));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    Breakdown b = out.get(0).breakdown();
    // Broker bounds from this record: clock(b) - clock(p) in [A - (L - 0.5), (L + 0.5) - D] =
    // [4.5 - 10 - 0.5, 4.5 + 0.5 - 2] ms = [-6, 3] ms. Zero is inside, so the broker's clock is
    // taken as it reads (+- 4.5 ms) and L lands at 4.5 ms on the producer's clock.
    ClockOffset broker = out.get(0).brokerOffset();
    assertThat(broker.offsetNanos()).isZero();
    assertThat(broker.uncertaintyNanos()).isEqualTo(4_500_000);
    assertThat(b.instants().nanos(TimePoint.APPEND)).isEqualTo(Spans.ms(4.5));
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(2_000_000);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(2_500_000);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(7_500_000);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(3_000_000);
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.quality(Segment.PUBLISH)).isEqualTo(Quality.LOG_APPEND_TIME);
    assertThat(b.method(Segment.PUBLISH)).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(15_000_000);
    // The broker offset is uncertain by 4.5 + 0.5 ms, more than the 2.5 ms publish segment.
    assertThat(out.get(0).flagged()).contains(Segment.PUBLISH);
    assertThat(out.get(0).flagged()).doesNotContain(Segment.PRODUCE);
  }

  @Test
  void consumerFirstJoinsWhenTheProducerArrives() {
    Correlator c = correlator(100);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    assertThat(out).isEmpty();
    nowNanos += WINDOW_NANOS - 1;
    c.offerProducer(producer(1, 0, 2, 10));
    assertThat(out).hasSize(1);
    assertThat(out.get(0).breakdown().e2eNanos()).isEqualTo(15_000_000);
  }

  @Test
  void duplicatesOfEitherSideJoinOnce() {
    Correlator c = correlator(100);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    assertThat(out).hasSize(1);
    Correlator.Stats stats = c.stats();
    assertThat(stats.duplicates()).isEqualTo(3);
    assertThat(stats.joined()).isEqualTo(1);
    nowNanos += WINDOW_NANOS;
    c.expire();
    assertThat(c.stats().unjoinedConsumerSpans()).isZero();
    assertThat(c.stats().unjoinedProducerSpans()).isZero();
    assertThat(c.stats().pendingRecords()).isZero();
  }

  @Test
  void everyGroupJoinsTheSharedProducerSpanOnce() {
    Correlator c = correlator(100);
    c.offerConsumer(consumer(1, "a", 5, 12, 15));
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerConsumer(consumer(1, "b", 20, 30, 31));
    c.offerConsumer(consumer(1, "b", 20, 30, 31));

    assertThat(out).extracting(JoinedBreakdown::group).containsExactly("a", "b");
    assertThat(out.get(1).breakdown().e2eNanos()).isEqualTo(31_000_000);
    // The producer side is shared: same produce segment for both groups.
    assertThat(out.get(1).breakdown().nanos(Segment.PRODUCE))
        .isEqualTo(out.get(0).breakdown().nanos(Segment.PRODUCE));
  }

  @Test
  void spansWithoutPartnerAreCountedUnjoinedWhenTheWindowEnds() {
    Correlator c = correlator(100);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    c.offerProducer(producer(2, 0, 2, 10));
    nowNanos += WINDOW_NANOS - 1;
    c.expire();
    assertThat(c.stats().pendingRecords()).isEqualTo(2);
    nowNanos += 1;
    c.expire();
    Correlator.Stats stats = c.stats();
    assertThat(stats.unjoinedConsumerSpans()).isEqualTo(1);
    assertThat(stats.unjoinedProducerSpans()).isEqualTo(1);
    assertThat(stats.pendingRecords()).isZero();
    assertThat(out).isEmpty();
  }

  @Test
  void aPartnerArrivingAfterTheWindowIsNotJoined() {
    Correlator c = correlator(100);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    nowNanos += WINDOW_NANOS;
    c.offerProducer(producer(1, 0, 2, 10));
    assertThat(out).isEmpty();
    assertThat(c.stats().unjoinedConsumerSpans()).isEqualTo(1);
    nowNanos += WINDOW_NANOS;
    c.expire();
    assertThat(c.stats().unjoinedProducerSpans()).isEqualTo(1);
  }

  @Test
  void aDifferentTraceOnTheSameOffsetIsNotJoined() {
    Correlator c = correlator(100);
    c.offerProducer(producer(1, 0, 2, 10));
    ConsumerSpan other = consumer(1, "g", 5, 12, 15);
    c.offerConsumer(
        new ConsumerSpan(
            other.key(),
            "g",
            99,
            99,
            1,
            2,
            other.instanceId(),
            other.fetchRequestNanos(),
            other.fetchResponseNanos(),
            other.pollNanos(),
            -1,
            "",
            ConsumerEvidence.UNKNOWN,
            false,
            0));
    assertThat(out).isEmpty();
    assertThat(c.stats().traceMismatches()).isEqualTo(1);
  }

  @Test
  void aFullTableIsSaturatedOnlyWhileItsRecordsAreYoung() {
    Correlator c = correlator(2);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    assertThat(c.saturated()).isFalse();
    c.offerConsumer(consumer(2, "g", 5, 12, 15));
    assertThat(c.saturated()).isTrue();
    nowNanos += WINDOW_NANOS / 2;
    assertThat(c.saturated()).isFalse();
  }

  @Test
  void aFullTableDropsTheOldestRecord() {
    Correlator c = correlator(2);
    c.offerConsumer(consumer(1, "g", 5, 12, 15));
    c.offerConsumer(consumer(2, "g", 5, 12, 15));
    c.offerConsumer(consumer(3, "g", 5, 12, 15));
    assertThat(c.pendingRecords()).isEqualTo(2);
    assertThat(c.stats().evicted()).isEqualTo(1);
    assertThat(c.stats().droppedSpans()).isEqualTo(1);
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerProducer(producer(3, 0, 2, 10));
    assertThat(out).extracting(j -> j.key().offset()).containsExactly(3L);
  }

  @Test
  void anyOrderAndRepetitionGivesTheSameBreakdownsAndTheSumIdentity() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      List<Object> spans = new ArrayList<>();
      int records = 1 + random.nextInt(20);
      for (int i = 0; i < records; i++) {
        double s = random.nextInt(1000);
        double d = s + random.nextInt(50);
        double a = d + random.nextInt(50);
        spans.add(producer(i, s, d, a));
        for (String g : new String[] {"a", "b"}) {
          if (random.nextInt(4) == 0) {
            continue; // this group never reads the record
          }
          // Deliberately out of order sometimes: the model clamps, the identity must hold.
          double f = d + random.nextInt(40) - 20;
          double r = f + random.nextInt(30);
          double p = r + random.nextInt(30) - 5;
          spans.add(consumer(i, g, f, r, p));
        }
      }
      List<Object> delivered = new ArrayList<>(spans);
      for (Object span : spans) {
        if (random.nextInt(3) == 0) {
          delivered.add(span);
        }
      }
      Collections.shuffle(delivered, random);
      out.clear();
      Correlator c = correlator(1000);
      for (Object span : delivered) {
        if (span instanceof ProducerSpan p) {
          c.offerProducer(p);
        } else {
          c.offerConsumer((ConsumerSpan) span);
        }
      }
      long consumers = spans.stream().filter(x -> x instanceof ConsumerSpan).count();
      assertThat(out).hasSize((int) consumers);
      assertThat(out).extracting(j -> j.key().offset() + "/" + j.group()).doesNotHaveDuplicates();
      for (JoinedBreakdown j : out) {
        Breakdown b = j.breakdown();
        assertThat(b.sumOfSegmentsNanos()).as("%s", b).isEqualTo(b.e2eNanos());
        for (Segment segment : Segment.values()) {
          if (b.isKnown(segment)) {
            assertThat(b.nanos(segment)).isNotNegative();
          }
        }
      }
      assertThat(c.stats().duplicates()).isEqualTo(delivered.size() - spans.size());
    }
  }

  @Test
  void aKnownSkewIsEstimatedFromTrafficInBothDirections() {
    Correlator c = correlator(10_000);
    // The consumer host's clock is 50 ms behind the producer host's. True latencies: drain 1 ms
    // after send, fetched 3 to 8 ms after drain. Records also flow the other way (the consumer
    // host produces, the producer host consumes), which bounds the other side.
    double skewMs = -50;
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      double s = i * 10;
      double d = s + 1;
      double r = d + 3 + random.nextInt(6);
      c.offerProducer(producer(Spans.key(i), Spans.PRODUCER_HOST, s, d, d + 2, -1));
      c.offerConsumer(
          consumer(
              Spans.key(i), "g", Spans.CONSUMER_HOST, r - 1 + skewMs, r + skewMs, r + 1 + skewMs));
      RecordKey back = new RecordKey("replies", 0, i);
      double rb = d + 3 + random.nextInt(6);
      c.offerProducer(
          producer(back, Spans.CONSUMER_HOST, s + skewMs, d + skewMs, d + 2 + skewMs, -1));
      c.offerConsumer(consumer(back, "h", Spans.PRODUCER_HOST, rb - 1, rb, rb + 1));
    }
    JoinedBreakdown last = out.get(out.size() - 2);
    assertThat(last.group()).isEqualTo("g");
    ClockOffset offset = last.consumerOffset();
    // Bounds: clock(c) - clock(p) <= min(R - D) - 50 = -47 and >= 50 - ... = -53 ms: midpoint
    // -50 ms, uncertainty 3 ms (the smallest one-way delay).
    assertThat(offset.bounded()).isTrue();
    assertThat(offset.offsetNanos()).isEqualTo(-50_000_000);
    assertThat(offset.uncertaintyNanos()).isEqualTo(3_000_000);
    // Aligned, the consumer's instants are back in order: e2e is true latency, nothing clamped.
    Breakdown b = last.breakdown();
    assertThat(b.clampCount()).isZero();
    assertThat(b.e2eNanos()).isBetween(5_000_000L, 11_000_000L);
    assertThat(c.clockOffsets())
        .anySatisfy(o -> assertThat(Math.abs(o.offsetNanos())).isEqualTo(50_000_000));
  }

  @Test
  void withoutAlignmentASkewedConsumerIsClampedAndCounted() {
    Correlator c = correlator(100);
    // Consumer 50 ms behind, one direction only: the bound says at least 40 ms behind (R - D =
    // 10 ms true), so instants are moved by the smallest correction and nothing goes negative.
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerConsumer(consumer(1, "g", 5 - 50, 12 - 50, 15 - 50));
    JoinedBreakdown j = out.get(0);
    assertThat(j.consumerOffset().offsetNanos()).isEqualTo(-50_000_000 + 10_000_000);
    assertThat(j.breakdown().e2eNanos()).isEqualTo(5_000_000);
    assertThat(j.breakdown().sumOfSegmentsNanos()).isEqualTo(5_000_000);
  }

  // The consumer host's clock runs skewMs ahead of the producer host's; records flow one way only.
  // True timeline on the producer's clock: S = 10 i, D = +1, A = +3 (acks=all), F = +2, R = +5,
  // P = +6: publish and commit 2 ms (A - D), fetch 2 ms (R - A), catch-up 1 ms, e2e 6 ms.
  private List<JoinedBreakdown> oneWayTraffic(Correlator c, double skewMs, int records) {
    for (int i = 0; i < records; i++) {
      double s = i * 10;
      ProducerSpan p = producer(Spans.key(i), Spans.PRODUCER_HOST, s, s + 1, s + 3, -1);
      c.offerProducer(Spans.acksAll(p));
      c.offerConsumer(
          consumer(
              Spans.key(i),
              "g",
              Spans.CONSUMER_HOST,
              s + 2 + skewMs,
              s + 5 + skewMs,
              s + 6 + skewMs));
    }
    return out;
  }

  @Test
  void aConsumerClockAheadIsCorrectedByTheAgentsCollectorClockSync() {
    skewedConsumerIsCorrectedByClockSync(250);
  }

  @Test
  void aConsumerClockBehindIsCorrectedByTheAgentsCollectorClockSync() {
    skewedConsumerIsCorrectedByClockSync(-250);
  }

  private void skewedConsumerIsCorrectedByClockSync(double skewMs) {
    Correlator c = correlator(10_000);
    // The collector's clock is 0.1 ms ahead of the producer host's. Each agent measured
    // clock(collector) - clock(agent) with an error inside its uncertainty.
    c.offerClockSync(Spans.PRODUCER_HOST, 100_000, 200_000);
    long consumerTruth = 100_000 - Math.round(skewMs * 1_000_000);
    c.offerClockSync(Spans.CONSUMER_HOST, consumerTruth + 100_000, 300_000);

    List<JoinedBreakdown> joined = oneWayTraffic(c, skewMs, 50);

    assertThat(joined).hasSize(50);
    for (JoinedBreakdown j : joined) {
      ClockOffset offset = j.consumerOffset();
      // o_p - o_c = skew - 0.1 ms, within 0.2 + 0.3 ms.
      assertThat(offset.bounded()).isTrue();
      assertThat(offset.offsetNanos()).isEqualTo(Math.round(skewMs * 1_000_000) - 100_000);
      assertThat(offset.uncertaintyNanos()).isEqualTo(500_000);
      Breakdown b = j.breakdown();
      assertThat(b.clampCount()).isZero();
      assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(1_000_000);
      assertThat(b.nanos(Segment.FETCH)).isEqualTo(2_100_000);
      assertThat(b.e2eNanos()).isEqualTo(6_100_000);
      assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
      assertThat(j.e2eFlagged()).isFalse();
    }
    // What /api/clocks and klat_clock_offset_seconds report.
    assertThat(c.clockOffsets())
        .singleElement()
        .satisfies(
            o -> {
              long sign = o.fromHost().equals(String.format("%016x", Spans.PRODUCER_HOST)) ? 1 : -1;
              assertThat(sign * o.offsetNanos())
                  .isEqualTo(Math.round(skewMs * 1_000_000) - 100_000);
              assertThat(o.uncertaintyNanos()).isEqualTo(500_000);
            });
  }

  @Test
  void withoutClockSyncAConsumerClockAheadInflatesCatchUpAndFetch() {
    Correlator c = correlator(10_000);
    List<JoinedBreakdown> joined = oneWayTraffic(c, 250, 10);

    // The one-way bound R - D cannot see a clock ahead: the skew lands in catch-up and fetch
    // (3 ms true).
    JoinedBreakdown j = joined.get(joined.size() - 1);
    assertThat(j.consumerOffset().bounded()).isFalse();
    assertThat(j.breakdown().nanos(Segment.CATCH_UP) + j.breakdown().nanos(Segment.FETCH))
        .isEqualTo(253_000_000);
  }

  @Test
  void aClockSyncOfOneSideOnlyOrAStaleOneAddsNoBound() {
    Correlator c = correlator(10_000);
    c.offerClockSync(Spans.PRODUCER_HOST, 0, 200_000);
    oneWayTraffic(c, 250, 5);
    assertThat(out.get(4).consumerOffset().bounded()).isFalse();

    out.clear();
    Correlator stale = correlator(10_000);
    stale.offerClockSync(Spans.PRODUCER_HOST, 0, 200_000);
    stale.offerClockSync(Spans.CONSUMER_HOST, -250_000_000, 200_000);
    nowNanos += 61_000_000_000L; // past the 60 s clock window
    oneWayTraffic(stale, 250, 5);
    assertThat(out.get(4).consumerOffset().bounded()).isFalse();

    out.clear();
    Correlator garbage = correlator(10_000);
    garbage.offerClockSync(Spans.PRODUCER_HOST, 0, -1);
    garbage.offerClockSync(Spans.CONSUMER_HOST, Long.MIN_VALUE, 200_000);
    oneWayTraffic(garbage, 250, 5);
    assertThat(out.get(4).consumerOffset().bounded()).isFalse();
  }
}

package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Section 10 of the latency model: records whose producer or consumer is seen through an
 * OpenTelemetry instrumentation's span, which gives {@code S} (and perhaps {@code A}) without
 * {@code D}, and {@code P} without {@code F} and {@code R}.
 */
class BreakdownInstrumentedClientTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final EstimationMethod SPAN = EstimationMethod.OPENTELEMETRY_SPAN;

  @Test
  void bothSidesInstrumentedSplitIntoProduceAndPublishCommitAndCatchUpAndFetch() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, SPAN)
                .ack(T0 + 40 * MS)
                .method(TimePoint.ACK, SPAN)
                .append(T0 + 30 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 35 * MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 100 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.produceAndPublishNanos()).isEqualTo(30 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(5 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(65 * MS);
    assertThat(b.e2eNanos()).isEqualTo(100 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.isKnown(Segment.PRODUCE)).isFalse();
    assertThat(b.isKnown(Segment.CATCH_UP)).isFalse();
    assertThat(b.isKnown(Segment.FETCH)).isFalse();
    // Commit's two instants are the leader's: exact; the rest crosses a client's clock.
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    assertThat(b.quality()).isEqualTo(Quality.CLIENT_CLOCK);
    assertThat(b.clampCount()).isZero();
  }

  @Test
  void klatProducerAndInstrumentedConsumerKeepTheProducersSegments() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 10 * MS)
                .append(T0 + 12 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 15 * MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 50 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(10 * MS);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(2 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(35 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(50 * MS);
    assertThat(b.quality()).isEqualTo(Quality.CLIENT_CLOCK);
  }

  @Test
  void transactionalRecordReadCommittedWaitsForVisibilityInsideCommit() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, SPAN)
                .append(T0 + 5 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 8 * MS, EstimationMethod.BROKER_PROBE)
                .visible(T0 + 60 * MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 70 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(55 * MS);
    assertThat(b.transactionWaitNanos()).isEqualTo(52 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(10 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(70 * MS);
  }

  @Test
  void withoutTheProbeOnlyTheEndToEndIsKnown() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, SPAN)
                .poll(T0 + 80 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.e2eNanos()).isEqualTo(80 * MS);
    assertThat(b.produceAndPublishNanos()).isEqualTo(-1);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(-1);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(80 * MS);
    for (Segment segment : Segment.values()) {
      assertThat(b.isKnown(segment)).as(segment.id()).isFalse();
    }
  }

  @Test
  void aConsumerClockBehindTheLeaderGivesWayToH() {
    // P read before H on the consumer's unaligned clock: P is the frame's origin, so H and L are
    // moved back to it and the clamp is counted.
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, SPAN)
                .append(T0 + 30 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 35 * MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 20 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.clampCount()).isPositive();
    assertThat(b.catchUpAndFetchNanos()).isZero();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void aKlatConsumerStillNeedsItsFetchInstants() {
    // Only an instrumentation's P excuses F and R: klat's agent measures them on every record.
    assertThatThrownBy(
            () ->
                Instants.builder()
                    .send(T0)
                    .drain(T0 + MS)
                    .commit(T0 + 2 * MS)
                    .poll(T0 + 3 * MS)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("F (FETCH_REQUEST)");
  }

  @Test
  void anInstrumentedProducerAloneKeepsItsBrokerInstants() {
    // Section 10: a producer span with its offset and no consumer span: S and A from the span, L
    // and H from the probe; no consumer instant bounds them from above.
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, SPAN)
                .ack(T0 + 40 * MS)
                .method(TimePoint.ACK, SPAN)
                .append(T0 + 30 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 35 * MS, EstimationMethod.BROKER_PROBE)
                .build());

    assertThat(b.clampCount()).isZero();
    assertThat(b.produceAndPublishNanos()).isEqualTo(30 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(5 * MS);
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(35 * MS);
  }

  @Test
  void anInstrumentedConsumerAloneSplitsCommitAndCatchUpAndFetch() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .append(T0 + 30 * MS, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 35 * MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 100 * MS)
                .method(TimePoint.POLL, SPAN)
                .build());

    assertThat(b.clampCount()).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(5 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(65 * MS);
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(70 * MS);
  }
}

package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Section 9 of the latency model: a {@code read_committed} group reading a record written in a
 * transaction reads it at {@code V}, not {@code H}; commit is {@code V - L} in two parts, and
 * catch-up and fetch use {@code V} where they used {@code H}.
 */
class BreakdownTransactionTest {

  private static final long S = 1_700_000_000_000_000_000L;

  // S=0 D=1000 A=5000 L=2000 H=3000 F, R=90000 P=95000 (nanoseconds after S).
  private static Instants.Builder record(long fetchRequestAfterS) {
    return Instants.builder()
        .send(S)
        .drain(S + 1_000)
        .ack(S + 5_000)
        .append(S + 2_000, EstimationMethod.BROKER_PROBE)
        .commit(S + 3_000, EstimationMethod.BROKER_PROBE)
        .fetchRequest(S + fetchRequestAfterS)
        .fetchResponse(S + 90_000)
        .poll(S + 95_000);
  }

  @Test
  void commitHoldsTheTransactionWaitAndTheConsumerWasAlreadyWaiting() {
    // F before V: the consumer asked at 1000 and was answered once the record was stable at 80000.
    Breakdown b =
        Breakdown.compute(record(1_000).visible(S + 80_000, EstimationMethod.BROKER_PROBE).build());

    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(78_000); // V - L
    assertThat(b.replicationNanos()).isEqualTo(1_000); // H - L
    assertThat(b.transactionWaitNanos()).isEqualTo(77_000); // V - H
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(5_000); // max(0, F - V) + (P - R)
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(10_000); // R - max(F, V)
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(95_000);
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    assertThat(b.visibleMethod()).isEqualTo(EstimationMethod.BROKER_PROBE);
    BreakdownInvariants.check(b);
  }

  @Test
  void aConsumerThatAskedAfterVHasCatchUpFromV() {
    // V before F: stable at 40000, asked at 60000.
    Breakdown b =
        Breakdown.compute(
            record(60_000).visible(S + 40_000, EstimationMethod.BROKER_PROBE).build());

    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(38_000);
    assertThat(b.transactionWaitNanos()).isEqualTo(37_000);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(20_000 + 5_000);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(30_000);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(95_000);
    BreakdownInvariants.check(b);
  }

  @Test
  void withoutVEveryNumberIsAsWithoutTransactions() {
    Breakdown plain = Breakdown.compute(record(60_000).build());
    Breakdown atH =
        Breakdown.compute(record(60_000).visible(S + 3_000, EstimationMethod.BROKER_PROBE).build());

    assertThat(plain.transactionWaitNanos()).isZero();
    assertThat(plain.replicationNanos()).isEqualTo(plain.nanos(Segment.COMMIT)).isEqualTo(1_000);
    assertThat(plain.visibleMethod()).isEqualTo(EstimationMethod.UNKNOWN);
    assertThat(plain.toString()).doesNotContain("transaction");
    for (Segment segment : Segment.values()) {
      assertThat(atH.nanos(segment)).as(segment.id()).isEqualTo(plain.nanos(segment));
    }
    assertThat(atH.transactionWaitNanos()).isZero();
  }

  @Test
  void anEstimatedVIsFittedBetweenHAndRAndLowersTheQualityOfWhatUsesIt() {
    // The producer's commit (V = C) after the consumer received the record: V = R.
    Breakdown late =
        Breakdown.compute(
            record(1_000).visible(S + 120_000, EstimationMethod.TRANSACTION_COMMIT).build());
    assertThat(late.instants().visibleNanos()).isEqualTo(S + 90_000);
    assertThat(late.wasVisibleClamped()).isTrue();
    assertThat(late.clamps()).isEmpty();
    assertThat(late.transactionWaitNanos()).isEqualTo(87_000);
    assertThat(late.nanos(Segment.FETCH)).isZero();
    assertThat(late.quality(Segment.COMMIT)).isEqualTo(Quality.ESTIMATED);
    assertThat(late.method(Segment.COMMIT)).isEqualTo(EstimationMethod.TRANSACTION_COMMIT);
    assertThat(late.method(Segment.FETCH)).isEqualTo(EstimationMethod.TRANSACTION_COMMIT);
    assertThat(late.quality(Segment.PUBLISH)).isEqualTo(Quality.EXACT);
    BreakdownInvariants.check(late);

    // Before H (clock skew): V = H, no wait.
    Breakdown early =
        Breakdown.compute(
            record(1_000).visible(S + 2_500, EstimationMethod.TRANSACTION_COMMIT).build());
    assertThat(early.transactionWaitNanos()).isZero();
    assertThat(early.wasVisibleClamped()).isTrue();
    BreakdownInvariants.check(early);
  }

  @Test
  void withoutLCommitIsUnknownAndPublishPlusCommitEndsAtV() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(S)
                .drain(S + 1_000)
                .commit(S + 3_000, EstimationMethod.PRODUCE_REMOTE_TIME)
                .visible(S + 50_000, EstimationMethod.TRANSACTION_COMMIT)
                .fetchRequest(S + 1_000)
                .fetchResponse(S + 60_000)
                .poll(S + 61_000)
                .build());
    assertThat(b.isKnown(Segment.COMMIT)).isFalse();
    assertThat(b.replicationNanos()).isEqualTo(-1);
    assertThat(b.transactionWaitNanos()).isEqualTo(47_000);
    assertThat(b.publishAndCommitNanos()).isEqualTo(49_000);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    BreakdownInvariants.check(b);
  }

  @Test
  void vNeedsH() {
    assertThatThrownBy(
            () ->
                Instants.builder()
                    .send(S)
                    .drain(S + 1)
                    .visible(S + 2, EstimationMethod.BROKER_PROBE)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("V (visible) without H");
  }

  @Test
  void theIdentityHoldsForRandomTransactionalRecordsInEitherOrderOfFAndV() {
    Random random = new Random(45);
    int fBeforeV = 0;
    for (int i = 0; i < 20_000; i++) {
      long seed = random.nextLong();
      Random r = new Random(seed);
      long d = S + r.nextInt(1_000_000);
      long l = d + r.nextInt(1_000_000) - 100_000;
      long h = l + r.nextInt(1_000_000) - 100_000;
      long v = h + r.nextInt(10_000_000) - 1_000_000;
      long f = S + r.nextInt(20_000_000);
      long resp = Math.max(f, v) + r.nextInt(1_000_000) - 500_000;
      long p = resp + r.nextInt(1_000_000);
      Instants.Builder builder =
          Instants.builder()
              .send(S)
              .drain(d)
              .commit(h, EstimationMethod.BROKER_PROBE)
              .visible(
                  v,
                  r.nextBoolean()
                      ? EstimationMethod.BROKER_PROBE
                      : EstimationMethod.TRANSACTION_COMMIT)
              .fetchRequest(f)
              .fetchResponse(resp)
              .poll(p);
      if (r.nextBoolean()) {
        builder.append(l, EstimationMethod.BROKER_PROBE);
      }
      Breakdown b = Breakdown.compute(builder.build());
      BreakdownInvariants.check(b, () -> "seed " + seed);
      if (b.instants().nanos(TimePoint.FETCH_REQUEST) < b.instants().visibleNanos()) {
        fBeforeV++;
      }
    }
    // Both orders were drawn often.
    assertThat(fBeforeV).isBetween(2_000, 18_000);
  }
}

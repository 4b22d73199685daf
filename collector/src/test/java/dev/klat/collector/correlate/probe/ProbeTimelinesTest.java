package dev.klat.collector.correlate.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.probe.ProbeTimelines.Instants;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import org.junit.jupiter.api.Test;

class ProbeTimelinesTest {

  private final TermKey broker1 = new TermKey(1, 0xAAL, 5);

  @Test
  void aPartitionBeyondTheCapEvictsTheLeastRecentlyUpdatedOneInsteadOfBeingLostForGood() {
    ProbeTimelines timelines = new ProbeTimelines(4, 100);
    for (int p = 0; p < 4; p++) {
      timelines.append(broker1, "t", p, 0, 9, 1_000, 1_000);
    }
    timelines.append(broker1, "t", 0, 10, 19, 2_000, 2_000); // 0 is now the most recent

    timelines.append(broker1, "t", 4, 0, 9, 3_000, 3_000);

    assertThat(timelines.lookup("t", 4, 5, 1).hasAppend()).isTrue();
    assertThat(timelines.lookup("t", 1, 5, 1).hasAppend()).as("least recently updated").isFalse();
    assertThat(timelines.lookup("t", 0, 5, 1).hasAppend()).isTrue();
  }

  @Test
  void anOffsetGetsTheAppendAndTheCommitOfItsRanges() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(broker1, "t", 0, 100, 109, 1_000, 1_000);
    timelines.commit(broker1, "t", 0, 100, 104, 2_000, 2_000, -1);
    timelines.commit(broker1, "t", 0, 105, 109, 3_000, 3_000, -1);

    assertThat(timelines.lookup("t", 0, 107, 1))
        .isEqualTo(new Instants(1, 1_000, 0, 3_000, 0, -1, -1, -1));
    assertThat(timelines.lookup("t", 0, 100, 1))
        .isEqualTo(new Instants(1, 1_000, 0, 2_000, 0, -1, -1, -1));
  }

  @Test
  void anOffsetKnowsTheFollowerWhoseFetchCommittedIt() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(broker1, "t", 0, 100, 109, 1_000, 1_000);
    timelines.commit(broker1, "t", 0, 100, 104, 2_000, 2_000, 3);
    timelines.commit(broker1, "t", 0, 105, 109, 3_000, 3_000, 2);

    assertThat(timelines.lookup("t", 0, 101, 1).commitFollowerId()).isEqualTo(3);
    assertThat(timelines.lookup("t", 0, 107, 1).commitFollowerId()).isEqualTo(2);
  }

  @Test
  void anOffsetKnowsTheProduceRequestThatAppendedItEvenAfterTheRingGrewAndWrapped() {
    ProbeTimelines timelines = new ProbeTimelines(10, 6);
    // Ten ranges of ten offsets into a ring of six: it grows from 4 to 6, then overwrites.
    for (int i = 0; i < 10; i++) {
      timelines.append(broker1, "t", 0, 10 * i, 10 * i + 9, ms(i), ms(i), 1_000 * i, 100 * i + 7);
    }
    timelines.append(broker1, "t", 0, 100, 109, ms(10), ms(10));

    Instants eighth = timelines.lookup("t", 0, 75, 1);
    assertThat(eighth.requestQueueNanos()).isEqualTo(7_000);
    assertThat(eighth.requestLocalNanos()).isEqualTo(707);
    assertThat(eighth.commitFollowerId()).isEqualTo(-1);
    Instants oldest = timelines.lookup("t", 0, 51, 1);
    assertThat(oldest.appendNanos()).isEqualTo(ms(5));
    assertThat(oldest.requestQueueNanos()).isEqualTo(5_000);
    assertThat(oldest.requestLocalNanos()).isEqualTo(507);
    assertThat(timelines.lookup("t", 0, 41, 1).hasAppend()).as("overwritten").isFalse();
    Instants unknown = timelines.lookup("t", 0, 100, 1);
    assertThat(unknown.requestQueueNanos()).isEqualTo(-1);
    assertThat(unknown.requestLocalNanos()).isEqualTo(-1);
    assertThat(timelines.appendRangesWithRequest()).isEqualTo(10);
  }

  @Test
  void theTimeTheHighWatermarkWaitedInAnIntervalIsTheUnionOfItsWaitsWithTheFollowerOfMost() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    assertThat(timelines.heldDuring(1, 0, Long.MAX_VALUE)).as("no probe reports").isNull();
    timelines.covered(1, 10_000_000, 0);
    // Partition 0: offsets 0-19 appended at 1 and 2 ms, held until follower 3 fetched them at 900.
    timelines.append(broker1, "t", 0, 0, 9, ms(1), ms(1));
    timelines.append(broker1, "t", 0, 10, 19, ms(2), ms(2));
    timelines.commit(broker1, "t", 0, 0, 19, ms(900), ms(900), 3);
    // Partition 1: appended at 899, committed by follower 2 at 901: overlaps partition 0's wait.
    timelines.append(broker1, "t", 1, 0, 4, ms(899), ms(899));
    timelines.commit(broker1, "t", 1, 0, 4, ms(901), ms(901), 2);
    // Another leader's wait is not broker 1's.
    timelines.append(new TermKey(2, 0xBBL, 1), "t", 2, 0, 4, 0, 0);
    timelines.commit(new TermKey(2, 0xBBL, 1), "t", 2, 0, 4, ms(950), ms(950), 3);

    assertThat(timelines.heldDuring(1, ms(500), ms(1000)))
        .as("500 to 901 ms, 400 of them ended by follower 3")
        .isEqualTo(new CommitWaits.CommitWait(ms(401), 3));
    assertThat(timelines.heldDuring(1, ms(900.5), ms(1000)))
        .as("only partition 1's wait ended in the interval")
        .isEqualTo(new CommitWaits.CommitWait(ms(0.5), 2));
    assertThat(timelines.heldDuring(1, 0, ms(800))).isEqualTo(CommitWaits.CommitWait.NONE);
  }

  private static long ms(double millis) {
    return Math.round(millis * 1_000_000);
  }

  @Test
  void aJoinedRangePlacesItsOffsetsInTheMiddleAndSaysHowWide() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(broker1, "t", 0, 100, 109, 1_000_000, 1_800_000);
    Instants instants = timelines.lookup("t", 0, 100, 1);
    assertThat(instants.appendNanos()).isEqualTo(1_400_000);
    assertThat(instants.appendWidthNanos()).isEqualTo(800_000);
  }

  @Test
  void anOffsetNoRangeCoversIsUnknownNeverGuessed() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(broker1, "t", 0, 100, 109, 1_000, 1_000);
    timelines.commit(broker1, "t", 0, 100, 104, 2_000, 2_000, -1);

    assertThat(timelines.lookup("t", 0, 110, 1).hasAppend()).isFalse();
    Instants appendedNotCommitted = timelines.lookup("t", 0, 105, 1);
    assertThat(appendedNotCommitted.hasAppend()).isTrue();
    assertThat(appendedNotCommitted.hasCommit()).isFalse();
    assertThat(timelines.lookup("t", 1, 100, 1).hasAppend()).isFalse();
  }

  @Test
  void anotherLeadersDataNeverAnswersForTheRecordsLeader() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(new TermKey(2, 0xBBL, 6), "t", 0, 100, 109, 1_000, 1_000);
    timelines.commit(new TermKey(2, 0xBBL, 6), "t", 0, 100, 109, 2_000, 2_000, -1);

    assertThat(timelines.lookup("t", 0, 105, 1).hasAppend()).isFalse();
    assertThat(timelines.lookup("t", 0, 105, 2).hasAppend()).isTrue();
  }

  @Test
  void aCommitOfAnotherTermIsNotPairedWithTheAppend() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    // Appended before the broker restarted (old probe instance), committed after it.
    timelines.append(broker1, "t", 0, 100, 109, 1_000, 1_000);
    timelines.commit(new TermKey(1, 0xCCL, 7), "t", 0, 100, 109, 9_000, 9_000, -1);

    Instants instants = timelines.lookup("t", 0, 105, 1);
    assertThat(instants.appendNanos()).isEqualTo(1_000);
    assertThat(instants.hasCommit()).isFalse();
  }

  @Test
  void eachTermKeepsItsLatestRangesOnly() {
    ProbeTimelines timelines = new ProbeTimelines(10, 4);
    for (int i = 0; i < 10; i++) {
      timelines.append(broker1, "t", 0, i * 10, i * 10 + 9, i, i);
    }
    assertThat(timelines.lookup("t", 0, 95, 1).appendNanos()).isEqualTo(9);
    assertThat(timelines.lookup("t", 0, 60, 1).appendNanos()).isEqualTo(6);
    assertThat(timelines.lookup("t", 0, 55, 1).hasAppend()).isFalse();
  }

  @Test
  void appendsReportedOutOfOrderByRacingHooksAreStillFound() {
    ProbeTimelines timelines = new ProbeTimelines(10, 100);
    timelines.append(broker1, "t", 0, 0, 9, 1, 1);
    timelines.append(broker1, "t", 0, 20, 29, 3, 3);
    timelines.append(broker1, "t", 0, 10, 19, 2, 2);
    timelines.append(broker1, "t", 0, 30, 39, 4, 4);
    assertThat(timelines.lookup("t", 0, 15, 1).appendNanos()).isEqualTo(2);
    assertThat(timelines.lookup("t", 0, 25, 1).appendNanos()).isEqualTo(3);
    assertThat(timelines.lookup("t", 0, 35, 1).appendNanos()).isEqualTo(4);
    assertThat(timelines.lookup("t", 0, 40, 1).hasAppend()).isFalse();
  }

  @Test
  void aWrappedRingFindsEveryRangeItStillHolds() {
    ProbeTimelines timelines = new ProbeTimelines(10, 64);
    for (int i = 0; i < 1000; i++) {
      timelines.append(broker1, "t", 0, i * 10, i * 10 + 9, i, i);
    }
    for (int i = 936; i < 1000; i++) {
      assertThat(timelines.lookup("t", 0, i * 10 + 5, 1).appendNanos()).isEqualTo(i);
    }
    assertThat(timelines.lookup("t", 0, 935 * 10 + 5, 1).hasAppend()).isFalse();
  }

  @Test
  void aPartitionBeyondTheLimitEvictsTheOtherAndIsCounted() {
    ProbeTimelines timelines = new ProbeTimelines(1, 4);
    timelines.append(broker1, "t", 0, 0, 0, 1, 1);
    timelines.append(broker1, "t", 1, 0, 0, 1, 1);
    assertThat(timelines.partitionsEvicted()).isEqualTo(1);
    assertThat(timelines.lookup("t", 1, 0, 1).hasAppend()).isTrue();
    assertThat(timelines.lookup("t", 0, 0, 1).hasAppend()).isFalse();
  }

  @Test
  void theEstimatedBytesStayUnderTheBudgetTheLeastRecentlyUpdatedLeavingFirst() {
    long budget = 64 * 1024;
    ProbeTimelines timelines = new ProbeTimelines(4096, 4096, budget);
    for (int p = 0; p < 100; p++) {
      for (int i = 0; i < 50; i++) {
        timelines.append(broker1, "t", p, i * 10, i * 10 + 9, i, i);
        timelines.commit(broker1, "t", p, i * 10, i * 10 + 9, i, i, -1);
      }
      assertThat(timelines.estimatedBytes()).isLessThanOrEqualTo(budget);
    }
    assertThat(timelines.partitionsEvicted()).isPositive();
    assertThat(timelines.lookup("t", 99, 5, 1).hasAppend()).isTrue();
    assertThat(timelines.lookup("t", 0, 5, 1).hasAppend()).isFalse();
  }

  @Test
  void coverageIsForgottenWhenTheProbeStopsReporting() {
    ProbeTimelines timelines = new ProbeTimelines(10, 4);
    timelines.covered(1, 5_000, 100);
    assertThat(timelines.coveredUntilNanos(1, 50)).isEqualTo(5_000);
    assertThat(timelines.coveredUntilNanos(1, 200)).isEqualTo(Long.MIN_VALUE);
    assertThat(timelines.coveredUntilNanos(2, 0)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aProbeIsAliveForFiveSecondsAfterItsLastReport() {
    ProbeTimelines timelines = new ProbeTimelines(10, 4);
    long second = 1_000_000_000L;
    timelines.covered(1, 5_000, 10 * second);
    timelines.covered(2, 5_000, 12 * second);

    assertThat(timelines.liveBrokers(12 * second)).isEqualTo(2);
    assertThat(timelines.liveBrokers(15 * second)).isEqualTo(2);
    assertThat(timelines.liveBrokers(15 * second + 1)).as("broker 1 silent for 5 s").isEqualTo(1);
    assertThat(timelines.liveBrokers(18 * second)).isZero();
  }
}

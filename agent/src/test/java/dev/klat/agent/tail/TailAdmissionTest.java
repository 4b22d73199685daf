package dev.klat.agent.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.Counter;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TailAdmissionTest {

  private static final long SECOND = 1_000_000_000L;
  private static final int CAP = 100;

  /**
   * Offers {@code count} flagged records evenly over the second starting at {@code startNanos};
   * returns how many were kept in each tenth of it.
   */
  private static int[] burst(TailAdmission admission, long startNanos, int count) {
    int[] keptPerTenth = new int[10];
    for (int i = 0; i < count; i++) {
      long offset = i * SECOND / count;
      if (admission.admit(startNanos + offset)) {
        keptPerTenth[(int) (offset * 10 / SECOND)]++;
      }
    }
    return keptPerTenth;
  }

  private static int sum(int[] counts) {
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    return total;
  }

  @Test
  void aBurstOfTenTimesTheCapKeepsAboutTheCapSpreadOverTheSecond() {
    Counter dropped = new Counter();
    Random random = new Random(42);
    TailAdmission admission = new TailAdmission(CAP, dropped, random::nextDouble);

    // The first second of the burst: nothing flagged the second before.
    int[] first = burst(admission, 50 * SECOND, 10 * CAP);
    assertThat(sum(first)).isBetween(90, CAP);
    // Spread: every tenth of the second gets its share, not the first N records.
    for (int tenth = 0; tenth < 10; tenth++) {
      assertThat(first[tenth])
          .as("tenth %d of %s", tenth, java.util.Arrays.toString(first))
          .isBetween(4, 20);
    }
    // A steady burst: the previous second's rate applies from the start.
    int[] second = burst(admission, 51 * SECOND, 10 * CAP);
    assertThat(sum(second)).isBetween(90, CAP);
    for (int tenth = 0; tenth < 10; tenth++) {
      assertThat(second[tenth]).isBetween(4, 17);
    }
    assertThat(dropped.value()).isEqualTo(20 * CAP - sum(first) - sum(second));
    assertThat(admission.droppedCount()).isEqualTo(dropped.value());
  }

  @Test
  void belowTheCapEveryFlaggedRecordIsKept() {
    TailAdmission admission = new TailAdmission(CAP, null, new Random(1)::nextDouble);
    int[] kept = burst(admission, 7 * SECOND, CAP / 2);
    assertThat(sum(kept)).isEqualTo(CAP / 2);
    assertThat(admission.droppedCount()).isZero();
  }

  @Test
  void neverMoreThanTheCapInASecondWhateverTheRandomNumbers() {
    // Random numbers of 0 keep every record the probability allows: the ceiling still holds.
    TailAdmission admission = new TailAdmission(CAP, null, () -> 0.0);
    assertThat(sum(burst(admission, 3 * SECOND, 10 * CAP))).isEqualTo(CAP);
    assertThat(sum(burst(admission, 4 * SECOND, 10 * CAP))).isEqualTo(CAP);
  }

  @Test
  void zeroKeepsNothingAndCountsEveryFlaggedRecord() {
    Counter dropped = new Counter();
    TailAdmission admission = new TailAdmission(0, dropped, null);
    assertThat(sum(burst(admission, SECOND, 50))).isZero();
    assertThat(dropped.value()).isEqualTo(50);
  }

  @Test
  void concurrentThreadsNeverPassTheCap() throws InterruptedException {
    TailAdmission admission = new TailAdmission(CAP, null, () -> 0.0);
    int[] kept = new int[4];
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      int index = t;
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < 10_000; i++) {
                  if (admission.admit(9 * SECOND + i)) {
                    kept[index]++;
                  }
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(sum(kept)).isEqualTo(CAP);
  }
}

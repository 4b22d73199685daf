package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WindowedMedianTest {

  @Test
  void theMedianOfTheValuesInTheWindow() {
    WindowedMedian median = new WindowedMedian(1_000, 3);
    median.add(5, 100);
    median.add(1, 200);
    assertThat(median.median(300)).as("below the minimum count").isEqualTo(Long.MIN_VALUE);
    median.add(9, 300);
    assertThat(median.median(300)).isEqualTo(5);
    // At 1,150 the value of time 100 has left the window: 1 and 9 remain, too few.
    assertThat(median.median(1_150)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void valuesNewerThanTheLookupAreLeftOut() {
    WindowedMedian median = new WindowedMedian(1_000, 1);
    median.add(7, 500);
    median.add(100, 900);
    assertThat(median.median(600)).isEqualTo(7);
  }

  @Test
  void onlyTheLastCapacityValuesCount() {
    WindowedMedian median = new WindowedMedian(Long.MAX_VALUE / 4, 1);
    for (int i = 0; i < WindowedMedian.CAPACITY; i++) {
      median.add(1_000, i);
    }
    for (int i = 0; i < WindowedMedian.CAPACITY; i++) {
      median.add(2, WindowedMedian.CAPACITY + i);
    }
    assertThat(median.median(2L * WindowedMedian.CAPACITY)).isEqualTo(2);
  }
}

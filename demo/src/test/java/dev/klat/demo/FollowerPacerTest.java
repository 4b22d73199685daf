package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FollowerPacerTest {

  @Test
  void pausesOneSecondInFourFromTheSecondSecondAndNotInTheLastTen() {
    assertThat(pauseStartsSeconds(25_000)).containsExactly(1L, 5L, 9L, 13L);
    assertThat(pauseStartsSeconds(45_000))
        .containsExactly(1L, 5L, 9L, 13L, 17L, 21L, 25L, 29L, 33L);
  }

  @Test
  void aPauseLastsOneSecond() {
    assertThat(FollowerPacer.pausedAt(999, 25_000)).isFalse();
    assertThat(FollowerPacer.pausedAt(1_000, 25_000)).isTrue();
    assertThat(FollowerPacer.pausedAt(1_999, 25_000)).isTrue();
    assertThat(FollowerPacer.pausedAt(2_000, 25_000)).isFalse();
  }

  @Test
  void theNextScenarioOpensOnATailWithoutPauses() {
    for (long scenarioMillis : new long[] {25_000, 45_000, 120_000}) {
      for (long at = scenarioMillis - FollowerPacer.PAUSE_FREE_TAIL_MILLIS;
          at < scenarioMillis;
          at += 50) {
        assertThat(FollowerPacer.pausedAt(at, scenarioMillis))
            .as("%d of %d", at, scenarioMillis)
            .isFalse();
      }
    }
  }

  private static List<Long> pauseStartsSeconds(long scenarioMillis) {
    List<Long> starts = new ArrayList<>();
    boolean paused = false;
    for (long at = 0; at < scenarioMillis; at += 50) {
      boolean now = FollowerPacer.pausedAt(at, scenarioMillis);
      if (now && !paused) {
        starts.add(at / 1000);
      }
      paused = now;
    }
    return starts;
  }
}

package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void unitsAndPlainMilliseconds() {
    assertThat(Durations.parseMillis("500ms")).isEqualTo(500);
    assertThat(Durations.parseMillis("10s")).isEqualTo(10_000);
    assertThat(Durations.parseMillis("5m")).isEqualTo(300_000);
    assertThat(Durations.parseMillis("1H")).isEqualTo(3_600_000);
    assertThat(Durations.parseMillis(" 60000 ")).isEqualTo(60_000);
    assertThat(Durations.parseMillis("2 s")).isEqualTo(2_000);
  }

  @Test
  void anythingElseIsRefusedSayingWhatADurationLooksLike() {
    for (String bad : new String[] {"", "-1s", "1.5s", "10d", "s", "1e3"}) {
      assertThatThrownBy(() -> Durations.parseMillis(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(Durations.EXPECTED);
    }
    assertThatThrownBy(() -> Durations.parseMillis("999999999999999999h"))
        .hasMessageContaining("too large");
  }
}

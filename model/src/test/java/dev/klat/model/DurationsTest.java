package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /** The regular expression the hand-written scanner replaced: it must accept the same strings. */
  private static final Pattern REFERENCE =
      Pattern.compile("\\s*(\\d{1,18})\\s*(ms|s|m|h)?\\s*", Pattern.CASE_INSENSITIVE);

  @Test
  void acceptsExactlyWhatTheRegularExpressionItReplacedAccepts() {
    String alphabet = "0123456789 \t\n\u000B\f\rmMsShHdk.-+\u00a0\u212a\u0660";
    for (String s : RandomStrings.of(7, 200_000, alphabet, 24)) {
      assertSameAsReference(s);
    }
    for (String s :
        new String[] {
          "1",
          "1ms",
          "1 MS",
          "1mS ",
          " 1 m",
          "1h",
          "1sm",
          "1 m s",
          "999999999999999999",
          "1234567890123456789",
          "000000000000000001s",
          "\u000B5\u000B"
        }) {
      assertSameAsReference(s);
    }
  }

  private static void assertSameAsReference(String s) {
    Matcher m = REFERENCE.matcher(s);
    if (!m.matches()) {
      assertThatThrownBy(() -> Durations.parseMillis(s))
          .as("<%s>", s)
          .isInstanceOf(IllegalArgumentException.class);
      return;
    }
    String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
    long factor =
        unit.equals("h") ? 3_600_000L : unit.equals("m") ? 60_000L : unit.equals("s") ? 1000L : 1L;
    long amount = Long.parseLong(m.group(1));
    if (amount > Long.MAX_VALUE / factor) {
      assertThatThrownBy(() -> Durations.parseMillis(s)).hasMessageContaining("too large");
    } else {
      assertThat(Durations.parseMillis(s)).as("<%s>", s).isEqualTo(amount * factor);
    }
  }

  @Test
  void formatWritesTheLargestUnitThatDividesAndParsesBack() {
    for (long millis : new long[] {0, 1, 100, 1_000, 1_500, 60_000, 90_000, 3_600_000, 5_400_000}) {
      assertThat(Durations.parseMillis(Durations.format(millis))).isEqualTo(millis);
    }
    assertThat(Durations.format(100)).isEqualTo("100ms");
    assertThat(Durations.format(10_000)).isEqualTo("10s");
    assertThat(Durations.format(600_000)).isEqualTo("10m");
    assertThat(Durations.format(3_600_000)).isEqualTo("1h");
    assertThat(Durations.format(90_000)).isEqualTo("90s");
  }
}

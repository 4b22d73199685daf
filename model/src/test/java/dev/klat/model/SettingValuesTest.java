package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SettingValuesTest {

  @Test
  void booleansAreTrueOrFalseInAnyCaseAndNothingElse() {
    for (String yes : new String[] {"true", "True", " TRUE "}) {
      assertThat(SettingValues.parseBoolean(yes)).as(yes).isTrue();
    }
    assertThat(SettingValues.parseBoolean(" FALSE ")).isFalse();
    for (String bad : new String[] {"yes", "no", "1", "0", "on", "off", "", "t", "truee", null}) {
      assertThatThrownBy(() -> SettingValues.parseBoolean(bad))
          .as(bad)
          .isInstanceOf(SettingValueException.class)
          .hasMessage("expected true or false");
    }
  }

  @Test
  void integersTakeASignAndUnderscoresBetweenDigits() {
    assertThat(SettingValues.parseLong("32768", 1, Long.MAX_VALUE)).isEqualTo(32_768);
    assertThat(SettingValues.parseLong(" 32_768 ", 1, Long.MAX_VALUE)).isEqualTo(32_768);
    assertThat(SettingValues.parseLong("1_000_000", 1, Long.MAX_VALUE)).isEqualTo(1_000_000);
    assertThat(SettingValues.parseLong("-5", -10, 10)).isEqualTo(-5);
    assertThat(SettingValues.parseLong("+5", -10, 10)).isEqualTo(5);
    assertThat(SettingValues.parseInt("2147483647", 1, Integer.MAX_VALUE))
        .isEqualTo(Integer.MAX_VALUE);
    for (String bad :
        new String[] {"", "_1", "1_", "1__0", "1.5", "1e3", "0x10", "ten", "-", "+", " 1 2", "٣"}) {
      assertThatThrownBy(() -> SettingValues.parseLong(bad, 1, Long.MAX_VALUE))
          .as(bad)
          .isInstanceOf(SettingValueException.class)
          .hasMessage("expected an integer > 0");
    }
  }

  @Test
  void integersOutOfRangeSayTheRange() {
    assertThatThrownBy(() -> SettingValues.parseInt("0", 1, Integer.MAX_VALUE))
        .hasMessage("expected an integer > 0");
    assertThatThrownBy(() -> SettingValues.parseInt("99999999999", 1, Integer.MAX_VALUE))
        .hasMessage("expected an integer from 1 to 2147483647");
    assertThatThrownBy(() -> SettingValues.parseLong("99999999999999999999", 0, Long.MAX_VALUE))
        .hasMessage("expected an integer >= 0");
    assertThatThrownBy(() -> SettingValues.parseInt("1023", 1024, 1 << 24))
        .hasMessage("expected an integer from 1024 to 16777216");
    assertThatThrownBy(() -> SettingValues.parseInt("16_777_217", 1024, 1 << 24))
        .hasMessage("expected an integer from 1024 to 16777216");
  }

  @Test
  void decimalsArePlainFiniteAndInRange() {
    assertThat(SettingValues.parseDecimal("0.05", 0, 1)).isEqualTo(0.05);
    assertThat(SettingValues.parseDecimal("1e-3", 0, 1)).isEqualTo(0.001);
    assertThat(SettingValues.parseDecimal(".5", 0, 1)).isEqualTo(0.5);
    assertThat(SettingValues.parseDecimal("100", 0, Double.POSITIVE_INFINITY)).isEqualTo(100);
    for (String bad : new String[] {"1.5", "-0.1", "NaN", "Infinity", "0x1p-3", "1d", "", "."}) {
      assertThatThrownBy(() -> SettingValues.parseDecimal(bad, 0, 1))
          .as(bad)
          .hasMessage("expected a number from 0 to 1");
    }
    assertThatThrownBy(() -> SettingValues.parseDecimal("1e400", 0, Double.POSITIVE_INFINITY))
        .hasMessage("expected a number >= 0");
    assertThatThrownBy(() -> SettingValues.parseDecimal("-1", 0, Double.POSITIVE_INFINITY))
        .hasMessage("expected a number >= 0");
  }

  @Test
  void theDecimalScannerAcceptsExactlyWhatTheRegexItReplacedAccepts() {
    Pattern reference = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    String alphabet = "0123456789.+-eExdNaIfy \u0661";
    for (String s : RandomStrings.of(11, 200_000, alphabet, 10)) {
      assertThat(SettingValues.isPlainDecimal(s))
          .as("<%s>", s)
          .isEqualTo(reference.matcher(s).matches());
    }
  }

  @Test
  void durationsAreDurationsWithinTheirRange() {
    assertThat(SettingValues.parseDurationMillis("10s", 1, Long.MAX_VALUE)).isEqualTo(10_000);
    assertThat(SettingValues.parseDurationMillis(" 250 ", 0, 1_000)).isEqualTo(250);
    assertThatThrownBy(() -> SettingValues.parseDurationMillis("-1s", 1, Long.MAX_VALUE))
        .hasMessage("expected " + Durations.EXPECTED);
    assertThatThrownBy(() -> SettingValues.parseDurationMillis("0", 1, Long.MAX_VALUE))
        .hasMessage("expected more than zero");
    assertThatThrownBy(() -> SettingValues.parseDurationMillis("50ms", 100, Long.MAX_VALUE))
        .hasMessage("expected at least 100ms");
    assertThatThrownBy(() -> SettingValues.parseDurationMillis("11s", 10, 10_000))
        .hasMessage("expected from 10ms to 10s");
  }

  @Test
  void choicesIgnoreCaseAndAnswerAsListed() {
    assertThat(SettingValues.parseChoice(" INFO ", "off", "info")).isEqualTo("info");
    assertThatThrownBy(() -> SettingValues.parseChoice("verbose", "off", "info"))
        .hasMessage("expected one of off, info");
  }

  @Test
  void baseUrlsAreHttpWithAHostAndNoQuery() {
    assertThat(SettingValues.parseBaseUrl("https://gw/otlp").getPath()).isEqualTo("/otlp");
    assertThat(SettingValues.parseBaseUrl(" http://collector:4318 ").getPort()).isEqualTo(4318);
    assertThatThrownBy(() -> SettingValues.parseBaseUrl("tempo:4318"))
        .hasMessageContaining("the scheme must be http or https");
    assertThatThrownBy(() -> SettingValues.parseBaseUrl("http://"))
        .hasMessageStartingWith("expected an http or https URL");
    assertThatThrownBy(() -> SettingValues.parseBaseUrl("http://c:4318/?x=1"))
        .hasMessageContaining("no query or fragment");
    assertThatThrownBy(() -> SettingValues.parseBaseUrl("http://c 1"))
        .hasMessageContaining("at index");
  }

  @Test
  void anErrorForASettingNamesItAndCutsLongValues() {
    SettingValueException e =
        assertThrows(() -> SettingValues.parseBoolean("yes")).forSetting("klat.enabled", "yes");
    assertThat(e).hasMessage("klat.enabled must be true or false: yes");
    assertThat(e.expected()).isEqualTo("true or false");
    assertThat(e.getStackTrace()).isEmpty();
    String long_ = "x".repeat(300) + "\nsecret";
    assertThat(new SettingValueException("short").forSetting("k", long_).getMessage())
        .isEqualTo("k must be short: " + "x".repeat(200) + "...(307 chars)");
    assertThat(new SettingValueException("short").forSetting("k", "a\nb").getMessage())
        .isEqualTo("k must be short: a?b");
  }

  private static SettingValueException assertThrows(Runnable r) {
    try {
      r.run();
    } catch (SettingValueException e) {
      return e;
    }
    throw new AssertionError("no SettingValueException");
  }
}

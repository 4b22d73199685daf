package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SettingTypeTest {

  @Test
  void eachTypeDescribesItselfAsTheTablesWriteIt() {
    assertThat(SettingType.bool().describe()).isEqualTo("boolean");
    assertThat(SettingType.integer(1, Integer.MAX_VALUE).describe()).isEqualTo("integer > 0");
    assertThat(SettingType.integer(0, Long.MAX_VALUE).describe()).isEqualTo("integer >= 0");
    assertThat(SettingType.integer(16, 1 << 20).describe()).isEqualTo("integer from 16 to 1048576");
    assertThat(SettingType.port().describe()).isEqualTo("port");
    assertThat(SettingType.port().orEmpty().describe()).isEqualTo("port or empty");
    assertThat(SettingType.decimal(0, 1).describe()).isEqualTo("number in [0, 1]");
    assertThat(SettingType.decimal(0, Double.POSITIVE_INFINITY).describe())
        .isEqualTo("number >= 0");
    assertThat(SettingType.duration(0, Long.MAX_VALUE).describe()).isEqualTo("duration");
    assertThat(SettingType.duration(1, Long.MAX_VALUE).describe()).isEqualTo("duration > 0");
    assertThat(SettingType.duration(1_000, Long.MAX_VALUE).describe()).isEqualTo("duration >= 1s");
    assertThat(SettingType.duration(100, 600_000).describe())
        .isEqualTo("duration from 100ms to 10m");
    assertThat(SettingType.choice("all", "ingest", "join").describe())
        .isEqualTo("`all`, `ingest` or `join`");
    assertThat(SettingType.url().orEmpty().describe()).isEqualTo("URL or empty");
    assertThat(SettingType.text("host").describe()).isEqualTo("host");
  }

  @Test
  void checkUsesTheSameBoundsAsTheDescription() {
    SettingType queue = SettingType.integer(1024, 1 << 24);
    assertThatCode(() -> queue.check("32_768")).doesNotThrowAnyException();
    assertThatThrownBy(() -> queue.check("512"))
        .isInstanceOf(SettingValueException.class)
        .hasMessage("expected an integer from 1024 to 16777216");
    assertThatThrownBy(() -> SettingType.bool().check("yes")).hasMessage("expected true or false");
    assertThatThrownBy(() -> SettingType.port().check("70000"))
        .hasMessage("expected a port (0 to 65535)");
    assertThatThrownBy(() -> SettingType.duration(1, Long.MAX_VALUE).check("0"))
        .hasMessage("expected more than zero");
    assertThatThrownBy(() -> SettingType.choice("all", "join").check("some"))
        .hasMessage("expected one of all, join");
    assertThatThrownBy(() -> SettingType.url().check("")).isInstanceOf(SettingValueException.class);
    assertThatCode(() -> SettingType.text("host").check("anything")).doesNotThrowAnyException();
  }

  @Test
  void orEmptyAcceptsAnEmptyValueOnly() {
    assertThatCode(() -> SettingType.url().orEmpty().check(" ")).doesNotThrowAnyException();
    assertThatCode(() -> SettingType.port().orEmpty().check("")).doesNotThrowAnyException();
    assertThatThrownBy(() -> SettingType.port().orEmpty().check("x"))
        .hasMessage("expected a port (0 to 65535)");
    assertThat(SettingType.port().orEmpty().emptyAllowed()).isTrue();
    assertThat(SettingType.port().emptyAllowed()).isFalse();
  }

  @Test
  void typedValues() {
    assertThat(SettingType.bool().booleanValue("TRUE")).isTrue();
    assertThat(SettingType.integer(1, Integer.MAX_VALUE).intValue("12")).isEqualTo(12);
    assertThat(SettingType.port().intValue("4318")).isEqualTo(4318);
    assertThat(SettingType.decimal(0, 1).decimalValue("0.25")).isEqualTo(0.25);
    assertThat(SettingType.duration(1, Long.MAX_VALUE).millisValue("5m")).isEqualTo(300_000);
    assertThat(SettingType.choice("off", "info").choiceValue("Info")).isEqualTo("info");
    assertThat(SettingType.url().urlValue("http://c:4318").getHost()).isEqualTo("c");
  }

  @Test
  void readingASettingAsAnotherTypeIsABug() {
    assertThatThrownBy(() -> SettingType.bool().longValue("1"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> SettingType.integer(0, Long.MAX_VALUE).intValue("1"))
        .isInstanceOf(IllegalStateException.class);
  }
}

package dev.klat.agent.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.SettingValueException;
import org.junit.jupiter.api.Test;

class ThresholdSpecTest {

  @Test
  void autoIsAutoForEveryTopic() {
    ThresholdSpec spec = ThresholdSpec.parse("auto");
    assertThat(spec.nanosFor("orders")).isEqualTo(ThresholdSpec.AUTO);
    assertThat(spec.anyAuto()).isTrue();
    assertThat(ThresholdSpec.parse("AUTO").nanosFor("x")).isEqualTo(ThresholdSpec.AUTO);
  }

  @Test
  void aDurationIsEveryTopicsThreshold() {
    ThresholdSpec spec = ThresholdSpec.parse("250ms");
    assertThat(spec.nanosFor("orders")).isEqualTo(250_000_000L);
    assertThat(spec.anyAuto()).isFalse();
    assertThat(ThresholdSpec.parse("2s").nanosFor("x")).isEqualTo(2_000_000_000L);
  }

  @Test
  void aListSetsTopicsAndItsEntryWithoutTopicTheOthers() {
    ThresholdSpec spec = ThresholdSpec.parse("500ms, payments=100ms ,audit=auto");
    assertThat(spec.nanosFor("payments")).isEqualTo(100_000_000L);
    assertThat(spec.nanosFor("audit")).isEqualTo(ThresholdSpec.AUTO);
    assertThat(spec.nanosFor("orders")).isEqualTo(500_000_000L);
    assertThat(spec.anyAuto()).isTrue();
    assertThat(spec).hasToString("500ms, payments=100ms ,audit=auto");
  }

  @Test
  void aListWithoutDefaultLeavesTheOthersAuto() {
    ThresholdSpec spec = ThresholdSpec.parse("payments=100ms");
    assertThat(spec.nanosFor("payments")).isEqualTo(100_000_000L);
    assertThat(spec.nanosFor("orders")).isEqualTo(ThresholdSpec.AUTO);
  }

  @Test
  void badValuesSayWhatIsWrongAndWhere() {
    assertThatThrownBy(() -> ThresholdSpec.parse("fast"))
        .isInstanceOf(SettingValueException.class)
        .hasMessageContaining("\"fast\" is not auto or a duration")
        .hasMessageContaining("[topic=]value");
    assertThatThrownBy(() -> ThresholdSpec.parse("100ms,a=1s,,"))
        .hasMessageContaining("entry 3")
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> ThresholdSpec.parse("100ms,200ms"))
        .hasMessageContaining("entry 2")
        .hasMessageContaining("only one default");
    assertThatThrownBy(() -> ThresholdSpec.parse("a=1s,a=2s"))
        .hasMessageContaining("a is given twice");
    assertThatThrownBy(() -> ThresholdSpec.parse("=1s")).hasMessageContaining("no topic");
    assertThatThrownBy(() -> ThresholdSpec.parse("0ms")).hasMessageContaining("above 0");
    assertThatThrownBy(() -> ThresholdSpec.parse("25h")).hasMessageContaining("at most a day");
  }
}

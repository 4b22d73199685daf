package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BreakdownRowTest {

  @Test
  void anAnswerWithoutRecordsHasNoQuantilesAndNoTail() {
    BreakdownRow row =
        BreakdownRow.parse(
            "t", "g", "{\"count\":0,\"e2e\":{\"p50Seconds\":null},\"p99Tail\":null}");
    assertThat(row.count).isZero();
    assertThat(row.p50Seconds).isNull();
    assertThat(row.p99Seconds).isNull();
    assertThat(row.tailMeanSeconds).isEmpty();
  }

  @Test
  void readsTheQuantilesAndTheTailMeansInTheirOrder() {
    BreakdownRow row =
        BreakdownRow.parse(
            "t",
            "g",
            "{\"count\":3,\"e2e\":{\"p50Seconds\":0.01,\"p99Seconds\":0.2,\"p999Seconds\":0.3},"
                + "\"p99Tail\":{\"meanSeconds\":{\"fetch\":0.1,\"produce\":0.05}}}");
    assertThat(row.p999Seconds).isEqualTo(0.3);
    assertThat(row.tailMeanSeconds)
        .containsExactly(java.util.Map.entry("fetch", 0.1), java.util.Map.entry("produce", 0.05));
  }

  @Test
  void somethingThatIsNotJsonIsAClearError() {
    assertThatThrownBy(() -> BreakdownRow.parse("t", "g", "<html>"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not JSON");
  }
}

package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {

  @Test
  void medianOfAnOddCountIsTheMiddleAndOfAnEvenCountTheMeanOfTheTwoMiddles() {
    assertThat(Spread.of(List.of(9.0, 1.0, 5.0))).isEqualTo(new Spread(5.0, 1.0, 9.0, 3));
    assertThat(Spread.of(List.of(4.0, 1.0, 10.0, 2.0))).isEqualTo(new Spread(3.0, 1.0, 10.0, 4));
  }

  @Test
  void runsWithoutTheFigureAreLeftOutAndNoneGivesNoSpread() {
    assertThat(Spread.of(Arrays.asList(null, 7.0, Double.NaN, 3.0)))
        .isEqualTo(new Spread(5.0, 3.0, 7.0, 2));
    assertThat(Spread.of(Arrays.asList(null, null))).isNull();
  }

  @Test
  void rangesOverlapWhenTheyShareAValueAndSingleRunsOnlyWhenEqual() {
    Spread low = Spread.of(List.of(1.0, 2.0, 5.0));
    assertThat(low.overlaps(Spread.of(List.of(5.0, 8.0)))).isTrue();
    assertThat(low.overlaps(Spread.of(List.of(5.5, 8.0)))).isFalse();
    assertThat(Spread.of(List.of(3.0)).overlaps(Spread.of(List.of(3.1)))).isFalse();
    assertThat(Spread.of(List.of(3.0)).varies()).isFalse();
    assertThat(low.varies()).isTrue();
    assertThat(low.rangeMs()).isEqualTo("1.0..5.0 ms");
  }

  @Test
  void aRangeThatPrintsAsOneNumberIsNotShown() {
    Spread rate = Spread.of(List.of(199.96, 200.01, 199.84));
    assertThat(Findings.rate(rate)).isEqualTo("200");
    assertThat(Findings.rate(Spread.of(List.of(1000.0, 1200.0)))).isEqualTo("1100 (1000..1200)");
    assertThat(Findings.ms(Spread.of(List.of(109.2, 109.4)))).isEqualTo("109 ms");
    assertThat(Findings.ms(Spread.of(List.of(10.8, 20.9, 15.8))))
        .isEqualTo("15.8 ms (10.8..20.9 ms)");
  }
}

package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunOrderTest {

  @Test
  void repeatsAlternateForwardAndBackwardThroughTheValues() {
    List<RunOrder.Run> runs = RunOrder.of(4, 3);
    assertThat(runs)
        .extracting(RunOrder.Run::settingIndex)
        .containsExactly(0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3);
    assertThat(runs)
        .extracting(RunOrder.Run::repeat)
        .containsExactly(1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  }

  @Test
  void overTwoRepeatsEveryValueHasTheSameMeanPositionSoALinearDriftFavoursNone() {
    List<RunOrder.Run> runs = RunOrder.of(5, 2);
    double[] positions = new double[5];
    for (int position = 0; position < runs.size(); position++) {
      positions[runs.get(position).settingIndex()] += position;
    }
    for (double sum : positions) {
      assertThat(sum).isEqualTo(positions[0]);
    }
  }

  @Test
  void oneRepeatIsTheCatalogueOrderAsBefore() {
    assertThat(RunOrder.of(3, 1))
        .containsExactly(new RunOrder.Run(0, 1), new RunOrder.Run(1, 1), new RunOrder.Run(2, 1));
  }
}

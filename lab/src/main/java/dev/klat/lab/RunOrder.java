package dev.klat.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which an experiment's settings run when each runs more than once: forward, then
 * backward, then forward again (0, 5, 20, 100, then 100, 20, 5, 0, ...), so that a drift over the
 * experiment (a cluster still warming, a neighbour's load rising) falls on every value alike
 * instead of on the last ones.
 */
final class RunOrder {

  /**
   * One run of one setting.
   *
   * @param settingIndex the setting's position in its experiment
   * @param repeat 1 for the first run of the setting, up to the number of repeats
   */
  record Run(int settingIndex, int repeat) {}

  private RunOrder() {}

  static List<Run> of(int settings, int repeats) {
    List<Run> runs = new ArrayList<>();
    for (int repeat = 1; repeat <= repeats; repeat++) {
      for (int i = 0; i < settings; i++) {
        runs.add(new Run(repeat % 2 == 1 ? i : settings - 1 - i, repeat));
      }
    }
    return runs;
  }
}

package dev.klat.lab;

import java.util.List;

/**
 * One knob varied over a few values, everything else held.
 *
 * @param name the id users pass to {@code --experiment}
 * @param knob what varies, in words
 * @param held what stays the same across its settings, in words
 * @param settings the values, in the order the charts show them; the first is the baseline the
 *     findings compare the others with
 */
record Experiment(String name, String knob, String held, List<Setting> settings) {

  Experiment withSettings(List<Setting> kept) {
    return new Experiment(name, knob, held, kept);
  }
}

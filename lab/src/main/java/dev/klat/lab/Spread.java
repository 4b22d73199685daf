package dev.klat.lab;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * One figure over the repeated runs of a setting: the median, and the range the runs covered.
 *
 * @param median the middle value, or the mean of the two middle values of an even count
 * @param count the runs that had the figure
 */
record Spread(double median, double min, double max, int count) {

  /** The spread of the known values (nulls are runs without the figure); null when none is. */
  static Spread of(Collection<Double> values) {
    List<Double> known = new ArrayList<>();
    for (Double value : values) {
      if (value != null && !value.isNaN()) {
        known.add(value);
      }
    }
    if (known.isEmpty()) {
      return null;
    }
    known.sort(null);
    int n = known.size();
    double median = n % 2 == 1 ? known.get(n / 2) : (known.get(n / 2 - 1) + known.get(n / 2)) / 2;
    return new Spread(median, known.get(0), known.get(n - 1), n);
  }

  /** True when the runs differ: there is a range to show. */
  boolean varies() {
    return max > min;
  }

  /**
   * True when the two ranges share a value: a difference of the medians that the runs of either
   * setting also show among themselves. Single runs overlap only when equal.
   */
  boolean overlaps(Spread other) {
    return min <= other.max && other.min <= max;
  }

  /** True when the range shows as milliseconds: the lowest and highest run print differently. */
  boolean shownMs() {
    return !Findings.number(min).equals(Findings.number(max));
  }

  /** True when the range shows as a rate: the lowest and highest run print differently. */
  boolean shownRate() {
    return Math.round(min) != Math.round(max);
  }

  /** {@code 12.0..19.4 ms} as the findings print a range. */
  String rangeMs() {
    return Findings.number(min) + ".." + Findings.ms(max);
  }

  /** {@code 1200..1350} as the findings print a range of rates. */
  String rangeRate() {
    return String.format(Locale.ROOT, "%.0f..%.0f", min, max);
  }
}

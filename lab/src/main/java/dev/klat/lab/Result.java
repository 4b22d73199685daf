package dev.klat.lab;

import dev.klat.demo.BreakdownRow;
import java.util.Map;

/**
 * What one setting showed.
 *
 * @param fixedRateRecordsPerSecond acknowledged records per second over the measured window, all
 *     producers together (the fixed rate, unless the cluster could not keep up)
 * @param burstRecordsPerSecond acknowledged records per second of the unbounded-rate run, all
 *     producers together; null when the plan had no time for it
 * @param failedSends sends that failed in the measured window
 * @param breakdown the collector's {@code /api/breakdown} for the setting's topic and group over
 *     the measured window; null when the setting failed
 * @param error why the setting failed, or null
 */
record Result(
    Experiment experiment,
    Setting setting,
    double fixedRateRecordsPerSecond,
    Double burstRecordsPerSecond,
    long failedSends,
    BreakdownRow breakdown,
    String error) {

  static Result failed(Experiment experiment, Setting setting, String error) {
    return new Result(experiment, setting, 0, null, 0, null, error);
  }

  /** The p99 tail's mean of {@code segment} in milliseconds, or null when not known. */
  Double tailMs(String segment) {
    if (breakdown == null) {
      return null;
    }
    Double seconds = breakdown.knownSegments().get(segment);
    return seconds == null ? null : seconds * 1000;
  }

  /** The median of {@code segment} over the window in milliseconds, or null when not known. */
  Double p50Ms(String segment) {
    if (breakdown == null) {
      return null;
    }
    Map<String, Double> medians = breakdown.segmentP50Seconds;
    boolean split = medians.get("publish") != null || medians.get("commit") != null;
    Double seconds = split && segment.equals("publish+commit") ? null : medians.get(segment);
    return seconds == null ? null : seconds * 1000;
  }

  /** End-to-end p99 in milliseconds, or null. */
  Double p99Ms() {
    return breakdown == null || breakdown.p99Seconds == null ? null : breakdown.p99Seconds * 1000;
  }

  long breakdowns() {
    return breakdown == null ? 0 : breakdown.count;
  }
}

package dev.klat.lab;

import dev.klat.demo.BreakdownRow;
import java.util.Map;

/**
 * What one run of a setting showed.
 *
 * @param repeat which run of the setting this was, from 1
 * @param fixedRateRecordsPerSecond acknowledged records per second over the measured window, all
 *     producers together (the fixed rate, unless the cluster could not keep up)
 * @param burstRecordsPerSecond acknowledged records per second of the unbounded-rate run, all
 *     producers together; null when the plan had no time for it
 * @param consumerRecordsPerSecond records per second the consumer read of the unbounded-rate run's
 *     records, from its resume to its last record; null unless the setting is the consumer's
 * @param failedSends sends that failed in the measured window
 * @param breakdown the collector's {@code /api/breakdown} for the setting's topic and group over
 *     the measured window; null when the setting failed
 * @param error why the setting failed, or null
 */
record Result(
    Experiment experiment,
    Setting setting,
    int repeat,
    double fixedRateRecordsPerSecond,
    Double burstRecordsPerSecond,
    Double consumerRecordsPerSecond,
    long failedSends,
    BreakdownRow breakdown,
    String error)
    implements Figures {

  static Result failed(Experiment experiment, Setting setting, int repeat, String error) {
    return new Result(experiment, setting, repeat, 0, null, null, 0, null, error);
  }

  @Override
  public Double tailMs(String segment) {
    if (breakdown == null) {
      return null;
    }
    Double seconds = breakdown.knownSegments().get(segment);
    return seconds == null ? null : seconds * 1000;
  }

  @Override
  public Double p50Ms(String segment) {
    if (breakdown == null) {
      return null;
    }
    Map<String, Double> medians = breakdown.segmentP50Seconds;
    boolean split = medians.get("publish") != null || medians.get("commit") != null;
    Double seconds = split && segment.equals("publish+commit") ? null : medians.get(segment);
    return seconds == null ? null : seconds * 1000;
  }

  @Override
  public Double p99Ms() {
    return breakdown == null || breakdown.p99Seconds == null ? null : breakdown.p99Seconds * 1000;
  }

  /** End-to-end median in milliseconds, or null. */
  Double e2eP50Ms() {
    return breakdown == null || breakdown.p50Seconds == null ? null : breakdown.p50Seconds * 1000;
  }

  /** End-to-end p99.9 in milliseconds, or null. */
  Double p999Ms() {
    return breakdown == null || breakdown.p999Seconds == null ? null : breakdown.p999Seconds * 1000;
  }

  @Override
  public long breakdowns() {
    return breakdown == null ? 0 : breakdown.count;
  }
}

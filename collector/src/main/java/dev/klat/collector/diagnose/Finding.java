package dev.klat.collector.diagnose;

import java.util.Map;

/**
 * One explanation of part of the p99 tail.
 *
 * @param segment the segment it lives in ({@code produce}, {@code publish}, ...)
 * @param knob the setting or cause to look at, for example {@code linger.ms} or {@code broker 2
 *     request queue}
 * @param tailShare the fraction of the tail's mean end-to-end latency it explains, 0 to 1
 * @param explainedSeconds the seconds of the tail's mean it explains
 * @param evidence the measured figures and configured values behind it, by name
 * @param suggestion what to change, and what the change costs
 * @param records how many tail records the finding is computed from: those of the tail that know
 *     its segment (a partial tail record that lacks it is skipped)
 */
public record Finding(
    String segment,
    String knob,
    double tailShare,
    double explainedSeconds,
    Map<String, Object> evidence,
    String suggestion,
    int records) {

  /** A finding whose record count is not known. */
  public Finding(
      String segment,
      String knob,
      double tailShare,
      double explainedSeconds,
      Map<String, Object> evidence,
      String suggestion) {
    this(segment, knob, tailShare, explainedSeconds, evidence, suggestion, -1);
  }
}

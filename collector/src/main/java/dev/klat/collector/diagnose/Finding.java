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
 */
public record Finding(
    String segment,
    String knob,
    double tailShare,
    double explainedSeconds,
    Map<String, Object> evidence,
    String suggestion) {}

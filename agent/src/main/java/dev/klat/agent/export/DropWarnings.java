package dev.klat.agent.export;

import dev.klat.agent.metrics.MetricsRegistry;

/**
 * Warns, through the rate-limited log, when spans were dropped or metric series refused since the
 * last warning, with the count since then and the total. Exporter thread only.
 */
final class DropWarnings {
  private final RateLimitedLog log;
  private final int maxMetricSeries;
  private long droppedAtLastWarning;
  private long overflowAtLastWarning;

  DropWarnings(RateLimitedLog log, int maxMetricSeries) {
    this.log = log;
    this.maxMetricSeries = maxMetricSeries;
  }

  void check(long droppedSpans, long seriesOverflow) {
    if (droppedSpans > droppedAtLastWarning
        && log.warn(
            RateLimitedLog.Kind.SPANS_DROPPED,
            (droppedSpans - droppedAtLastWarning)
                + " spans dropped (queue full or export failed), "
                + droppedSpans
                + " in total")) {
      droppedAtLastWarning = droppedSpans;
    }
    if (seriesOverflow > overflowAtLastWarning
        && log.warn(
            RateLimitedLog.Kind.SERIES_OVERFLOW,
            "more than "
                + maxMetricSeries
                + " metric series; new ones are reported with tags \""
                + MetricsRegistry.OVERFLOW_TAG_VALUE
                + "\"")) {
      overflowAtLastWarning = seriesOverflow;
    }
  }
}

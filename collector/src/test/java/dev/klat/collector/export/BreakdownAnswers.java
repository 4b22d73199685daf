package dev.klat.collector.export;

import dev.klat.collector.aggregate.RecentBreakdowns;

/** {@code /api/breakdown}'s answer as the collector writes it, for tests of other packages. */
public final class BreakdownAnswers {
  private BreakdownAnswers() {}

  /** The answer for the query over the breakdowns {@code recent} holds at {@code nowNanos}. */
  public static String breakdown(
      RecentBreakdowns recent, String topic, String group, long windowNanos, long nowNanos) {
    return SummaryJson.breakdown(
        topic,
        group,
        windowNanos,
        recent.summarise(topic, group, windowNanos, nowNanos),
        recent.commitParts(topic, group, windowNanos, nowNanos),
        recent.opentelemetry(topic, group, windowNanos, nowNanos),
        recent.share(topic, group, windowNanos, nowNanos, 10));
  }
}

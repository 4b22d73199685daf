package dev.klat.collector.export;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.clienttelemetry.ClientTelemetry;

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
        recent.opentelemetry(topic, group, windowNanos, nowNanos));
  }

  /** The answer with the clients' own figures (KIP-714) that {@code clients} holds. */
  public static String breakdown(
      RecentBreakdowns recent,
      ClientTelemetry clients,
      String topic,
      String group,
      long windowNanos,
      long nowNanos) {
    return SummaryJson.withClientTelemetry(
        breakdown(recent, topic, group, windowNanos, nowNanos),
        clients.breakdownJson(topic, group));
  }
}

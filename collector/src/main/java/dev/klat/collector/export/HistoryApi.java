package dev.klat.collector.export;

import static dev.klat.collector.export.SummaryJson.seconds;
import static dev.klat.collector.export.SummaryJson.str;

import dev.klat.collector.aggregate.BreakdownHistory;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/history?topic=&group=&since=}: the points the collector kept of one topic and
 * consumer group pair (or, with neither, of all together), oldest first, each shaped like {@code
 * /api/breakdown}'s {@code e2e} and {@code p99Tail.meanSeconds} so that the page draws them with
 * the live points.
 */
final class HistoryApi {
  private HistoryApi() {}

  /**
   * The answer to the query's parameters.
   *
   * @throws IllegalArgumentException for a bad parameter, which the server answers with 400
   */
  static String answer(Map<String, String> params, BreakdownHistory history) {
    String topic = AdminServer.emptyToNull(params.get("topic"));
    String group = AdminServer.emptyToNull(params.get("group"));
    // Points are kept per pair and for all together, not per topic or per group alone.
    if ((topic == null) != (group == null)) {
      throw new IllegalArgumentException(
          "history is kept per topic and group pair: give both topic and group, or neither");
    }
    long sinceEpochMillis = since(params.get("since"));
    List<BreakdownHistory.Point> points = history.points(topic, group, sinceEpochMillis);
    StringBuilder out = new StringBuilder(128 + 320 * points.size());
    out.append("{\"topic\":").append(str(topic));
    out.append(",\"group\":").append(str(group));
    out.append(",\"intervalSeconds\":").append(seconds(history.intervalNanos()));
    out.append(",\"retentionSeconds\":")
        .append(seconds((double) history.intervalNanos() * history.pointsPerPair()));
    out.append(",\"points\":[");
    for (int i = 0; i < points.size(); i++) {
      BreakdownHistory.Point p = points.get(i);
      out.append(i == 0 ? "" : ",").append("{\"endEpochMs\":").append(p.endEpochMillis());
      out.append(",\"count\":").append(p.count()).append(',');
      SummaryJson.e2e(out, p.p50Nanos(), p.p99Nanos(), p.p999Nanos());
      out.append(",\"p99Tail\":{");
      SummaryJson.meanSeconds(out, p.tailMeanNanos());
      out.append("}}");
    }
    return out.append("]}").toString();
  }

  private static long since(String text) {
    if (text == null || text.isEmpty()) {
      return Long.MIN_VALUE;
    }
    try {
      long millis = Long.parseLong(text.trim());
      if (millis >= 0) {
        return millis;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new IllegalArgumentException(
        "since must be a time in milliseconds since the Unix epoch: " + text);
  }
}

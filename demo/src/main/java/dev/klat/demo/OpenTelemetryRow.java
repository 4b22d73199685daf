package dev.klat.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's kafkajs consumer at one refresh: the {@code opentelemetry} object of the collector's
 * {@code /api/breakdown} answer for its topic and group, the records seen through an OpenTelemetry
 * instrumentation (docs/clients.md), reported apart from the sampled ones.
 */
final class OpenTelemetryRow {
  private static final ObjectMapper JSON = new ObjectMapper();

  final long count;
  final Double p50Seconds;
  final Double p99Seconds;

  /** Each segment the records know, with its p99 over them, in the collector's order. */
  final Map<String, Double> segmentP99Seconds;

  private OpenTelemetryRow(
      long count, Double p50Seconds, Double p99Seconds, Map<String, Double> segmentP99Seconds) {
    this.count = count;
    this.p50Seconds = p50Seconds;
    this.p99Seconds = p99Seconds;
    this.segmentP99Seconds = segmentP99Seconds;
  }

  /**
   * Reads the {@code opentelemetry} object of one {@code /api/breakdown} answer; a collector
   * without it reads as no record.
   *
   * @throws IllegalArgumentException if the answer is not JSON
   */
  static OpenTelemetryRow parse(String json) {
    JsonNode answer;
    try {
      answer = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    JsonNode otel = answer.path("opentelemetry");
    Map<String, Double> segments = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = otel.path("segments").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> segment = it.next();
      if (segment.getValue().path("count").asLong() > 0) {
        segments.put(segment.getKey(), seconds(segment.getValue().path("p99Seconds")));
      }
    }
    JsonNode e2e = otel.path("e2e");
    return new OpenTelemetryRow(
        otel.path("count").asLong(),
        seconds(e2e.path("p50Seconds")),
        seconds(e2e.path("p99Seconds")),
        segments);
  }

  private static Double seconds(JsonNode value) {
    return value.isNumber() ? value.doubleValue() : null;
  }

  /**
   * The log line's part: {@code kafkajs=TOPIC/GROUP n=.. p50=.. p99=.. | segment p99s: produce=..
   * ...}; it holds neither {@code driver=} nor {@code why=} nor {@code pipeline=}, which mark the
   * demo's other lines.
   */
  String token(String topic, String group) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "kafkajs=%s/%s n=%d p50=%s p99=%s",
                topic,
                group,
                count,
                BreakdownRow.millis(p50Seconds),
                BreakdownRow.millis(p99Seconds)));
    if (!segmentP99Seconds.isEmpty()) {
      out.append(" | segment p99s:");
      for (Map.Entry<String, Double> s : segmentP99Seconds.entrySet()) {
        out.append(' ')
            .append(s.getKey())
            .append('=')
            .append(BreakdownRow.millis(s.getValue()).replace(" ", ""));
      }
    }
    return out.toString();
  }
}

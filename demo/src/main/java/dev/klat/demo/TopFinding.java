package dev.klat.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Locale;

/**
 * The first finding of the collector's {@code /api/diagnosis}: what the live table names, and how
 * many of the tail's records (tail-captured and sampled) it is computed from, -1 when the collector
 * does not say.
 */
record TopFinding(String segment, String knob, double tailShare, int records) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Reads one {@code /api/diagnosis} answer; null when it has no finding.
   *
   * @throws IllegalArgumentException if it is not JSON
   */
  static TopFinding parse(String json) {
    JsonNode answer;
    try {
      answer = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    JsonNode first = answer.path("findings").path(0);
    if (first.isMissingNode()) {
      return null;
    }
    return new TopFinding(
        first.path("segment").asText(),
        first.path("knob").asText(),
        first.path("tailShare").asDouble(),
        first.path("records").asInt(-1));
  }

  /** As the log line writes it: segment, knob (spaces as underscores) and share. */
  String token() {
    return String.format(
        Locale.ROOT, "%s:%s:%d%%", segment, knob.replace(' ', '_'), Math.round(tailShare * 100));
  }

  /**
   * The records it comes from, as the log line writes them after the token: {@code " from=412"}.
   */
  String recordsToken() {
    return records < 0 ? "" : " from=" + records;
  }

  /** As the screen writes it. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "%s (%s), %d%% of the p99 tail%s",
        knob,
        segment,
        Math.round(tailShare * 100),
        records < 0 ? "" : ", from " + records + " records");
  }
}

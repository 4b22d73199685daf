package dev.klat.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Locale;

/**
 * The demo pipeline in the collector's {@code /api/pipelines} answer: the pipeline from the demo's
 * first topic to its last group, its end-to-end quantiles and where its p99 tail is ({@code tail}:
 * the hop and segment with the largest mean share of the slowest chains).
 *
 * @param name the pipeline's name ({@code demo-orders->demo-billing} unless the collector names it)
 * @param hops how many hops its chains cross
 * @param chains complete chains in the window
 * @param tail where its p99 tail is, or null when the collector names no tail yet
 */
record PipelineRow(
    String name,
    int hops,
    long chains,
    Double p50Seconds,
    Double p99Seconds,
    Double p999Seconds,
    Tail tail) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The hop and segment (or {@code processing}) that hold the largest mean share of the chains at
   * or above the pipeline's p99; {@code part} is commit's part ({@code transaction}) or null.
   */
  record Tail(
      int hop,
      String inputTopic,
      String group,
      String segment,
      String part,
      double share,
      int records) {

    /** {@code hop 2 (demo-orders-enriched / demo-billing): catch-up}, as the demo checks it. */
    String where() {
      return "hop "
          + hop
          + " ("
          + inputTopic
          + " / "
          + group
          + "): "
          + segment
          + (part == null ? "" : " (" + part + ")");
    }

    /** The page's tail line, after "tail: ". */
    String describe() {
      return String.format(
          Locale.ROOT,
          "%s %d%% of the p99 tail, from %d chain%s",
          where(),
          Math.round(share * 100),
          records,
          records == 1 ? "" : "s");
    }
  }

  /**
   * The pipeline from {@code firstTopic} to {@code lastGroup} in one {@code /api/pipelines} answer,
   * or null when there is none (no links yet, or none in the window).
   *
   * @throws IllegalArgumentException if it is not JSON
   */
  static PipelineRow parse(String firstTopic, String lastGroup, String json) {
    JsonNode answer;
    try {
      answer = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    for (JsonNode pipeline : answer.path("pipelines")) {
      if (firstTopic.equals(pipeline.path("firstTopic").asText())
          && lastGroup.equals(pipeline.path("lastGroup").asText())) {
        JsonNode e2e = pipeline.path("e2e");
        return new PipelineRow(
            pipeline.path("name").asText(),
            pipeline.path("hops").size(),
            pipeline.path("count").asLong(),
            seconds(e2e.path("p50Seconds")),
            seconds(e2e.path("p99Seconds")),
            seconds(e2e.path("p999Seconds")),
            tail(pipeline));
      }
    }
    return null;
  }

  private static Tail tail(JsonNode pipeline) {
    JsonNode tail = pipeline.path("tail");
    if (!tail.path("hop").isInt() || !tail.path("segment").isTextual()) {
      return null;
    }
    int hop = tail.path("hop").asInt();
    JsonNode where = null;
    for (JsonNode h : pipeline.path("hops")) {
      if (h.path("index").asInt() == hop) {
        where = h;
      }
    }
    return new Tail(
        hop,
        where == null ? "?" : where.path("inputTopic").asText("?"),
        where == null ? "?" : where.path("group").asText("?"),
        tail.path("segment").asText(),
        tail.path("part").isTextual() ? tail.path("part").asText() : null,
        tail.path("share").asDouble(),
        tail.path("records").asInt());
  }

  private static Double seconds(JsonNode value) {
    return value.isNumber() ? value.doubleValue() : null;
  }

  /**
   * As the log line writes it: {@code pipeline=NAME hops=2 n=412 p50=.. p99=.. p99.9=.. tail: hop 2
   * (topic / group): segment N% of the p99 tail, from K chains}.
   */
  String token() {
    return String.format(
        Locale.ROOT,
        "pipeline=%s hops=%d n=%d p50=%s p99=%s p99.9=%s tail: %s",
        name,
        hops,
        chains,
        BreakdownRow.millis(p50Seconds),
        BreakdownRow.millis(p99Seconds),
        BreakdownRow.millis(p999Seconds),
        tail == null ? "-" : tail.describe());
  }

  /** As the screen writes it. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "%s (%d hops, %d chains): end to end p99 %s; tail: %s",
        name,
        hops,
        chains,
        BreakdownRow.millis(p99Seconds),
        tail == null ? "none yet" : tail.describe());
  }
}

package dev.klat.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One line of the live table: the collector's {@code /api/breakdown} answer for a topic and group.
 */
public final class BreakdownRow {
  private static final ObjectMapper JSON = new ObjectMapper();

  public final String topic;
  public final String group;
  public final long count;
  public final Double p50Seconds;
  public final Double p99Seconds;
  public final Double p999Seconds;

  /** Mean seconds per segment over the p99 tail; null where the segment is not known. */
  public final Map<String, Double> tailMeanSeconds;

  /**
   * Each segment's own median over the window's breakdowns that know it; null where none does. The
   * lab compares medians to tell a setting's effect from a spike in a tail of a few records.
   */
  public final Map<String, Double> segmentP50Seconds;

  private BreakdownRow(
      String topic,
      String group,
      long count,
      Double p50Seconds,
      Double p99Seconds,
      Double p999Seconds,
      Map<String, Double> tailMeanSeconds,
      Map<String, Double> segmentP50Seconds) {
    this.topic = topic;
    this.group = group;
    this.count = count;
    this.p50Seconds = p50Seconds;
    this.p99Seconds = p99Seconds;
    this.p999Seconds = p999Seconds;
    this.tailMeanSeconds = tailMeanSeconds;
    this.segmentP50Seconds = segmentP50Seconds;
  }

  /**
   * Reads one {@code /api/breakdown} answer.
   *
   * @throws IllegalArgumentException if it is not JSON
   */
  public static BreakdownRow parse(String topic, String group, String json) {
    JsonNode answer;
    try {
      answer = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    JsonNode e2e = answer.path("e2e");
    Map<String, Double> means = new LinkedHashMap<>();
    JsonNode tailMeans = answer.path("p99Tail").path("meanSeconds");
    for (Iterator<Map.Entry<String, JsonNode>> it = tailMeans.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> mean = it.next();
      means.put(mean.getKey(), seconds(mean.getValue()));
    }
    Map<String, Double> medians = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = answer.path("segments").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> segment = it.next();
      medians.put(segment.getKey(), seconds(segment.getValue().path("p50Seconds")));
    }
    return new BreakdownRow(
        topic,
        group,
        answer.path("count").asLong(),
        seconds(e2e.path("p50Seconds")),
        seconds(e2e.path("p99Seconds")),
        seconds(e2e.path("p999Seconds")),
        means,
        medians);
  }

  private static Double seconds(JsonNode value) {
    return value.isNumber() ? value.doubleValue() : null;
  }

  /**
   * The segments to compare: every known one, with publish and commit reported together ("publish
   * and commit", no broker timing for the records) only when neither is known on its own.
   */
  public Map<String, Double> knownSegments() {
    Map<String, Double> known = new LinkedHashMap<>();
    boolean split = tailMeanSeconds.get("publish") != null || tailMeanSeconds.get("commit") != null;
    for (Map.Entry<String, Double> mean : tailMeanSeconds.entrySet()) {
      if (mean.getValue() != null && !(split && mean.getKey().equals("publish+commit"))) {
        known.put(mean.getKey(), mean.getValue());
      }
    }
    return known;
  }

  /** The segment with the largest mean in the p99 tail, or null when none is known. */
  String drivingSegment() {
    String driver = null;
    double largest = -1;
    for (Map.Entry<String, Double> mean : knownSegments().entrySet()) {
      if (mean.getValue() > largest) {
        largest = mean.getValue();
        driver = mean.getKey();
      }
    }
    return driver;
  }

  /** The driving segment's share of the sum of the tail's segment means, 0 to 1. */
  double drivingShare() {
    Map<String, Double> known = knownSegments();
    String driver = drivingSegment();
    double total = 0;
    for (double mean : known.values()) {
      total += Math.max(0, mean);
    }
    return driver == null || total <= 0 ? 0 : Math.max(0, known.get(driver)) / total;
  }

  public static String millis(Double seconds) {
    if (seconds == null) {
      return "-";
    }
    double ms = seconds * 1000;
    return ms >= 100
        ? String.format(Locale.ROOT, "%.0f ms", ms)
        : String.format(Locale.ROOT, "%.1f ms", ms);
  }
}

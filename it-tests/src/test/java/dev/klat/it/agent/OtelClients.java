package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What OtelNodeClientsIT and OtelJavaClientsIT share (issue 46, docs/latency-model.md section 10):
 * the truth the client application measured, the collector's {@code opentelemetry} figures of a
 * topic and group, and the checks on them.
 *
 * <p>The accuracy check is the accuracy suite's p50 criterion (docs/accuracy.md "The accuracy
 * suite"): against a control stream that runs at the same moment without the delay, the combined
 * segment the delay belongs to grew as much as the application's own end-to-end latency grew,
 * within 20% of that growth or 5 ms, whichever is larger (widened to 20% of the control's own
 * median on a loaded machine), every other segment stayed within the same tolerance of the
 * control's, and klat's end to end is the application's (means, within 5 ms or 2%).
 */
final class OtelClients {
  static final String PRODUCE_AND_PUBLISH = "produce+publish";
  static final String COMMIT = "commit";
  static final String CATCH_UP_AND_FETCH = "catch-up+fetch";
  static final String[] SEGMENTS = {PRODUCE_AND_PUBLISH, COMMIT, CATCH_UP_AND_FETCH};

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double TOLERANCE_SHARE = 0.2;
  private static final double TOLERANCE_FLOOR_MS = 5;

  private OtelClients() {}

  /**
   * One stream's truth, from the application's line {@code klat-truth {json}}: how many records it
   * consumed and the median and mean of what it measured from just before the send to the moment
   * its handler got each record.
   */
  record Truth(String topic, int count, double p50Ms, double meanMs) {}

  /** The truth lines of an application's output, by topic. */
  static Map<String, Truth> truths(String output) {
    Map<String, Truth> byTopic = new LinkedHashMap<>();
    output
        .lines()
        .filter(line -> line.startsWith("klat-truth "))
        .forEach(
            line -> {
              JsonNode t = read(line.substring("klat-truth ".length()));
              byTopic.put(
                  t.path("topic").asText(),
                  new Truth(
                      t.path("topic").asText(),
                      t.path("count").asInt(),
                      t.path("p50Ms").asDouble(),
                      t.path("meanMs").asDouble()));
            });
    return byTopic;
  }

  /**
   * The collector read every span as the instrumentation shaped it ({@code otelSpans.<outcome>} of
   * {@code /api/stats}): {@code producers} producer record spans, {@code consumers} consumer record
   * spans, and none it could not place, refused or took for failed. Waits up to 20 s for the
   * exporters' last batches.
   */
  static String assertSpansRead(int adminPort, int producers, int consumers) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
    while ((BrokerProbeIT.number(stats, "otelSpans.producer") < producers
            || BrokerProbeIT.number(stats, "otelSpans.consumer") < consumers)
        && System.nanoTime() < deadline) {
      Thread.sleep(250);
      stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
    }
    System.out.println("stats: " + stats);
    assertThat(BrokerProbeIT.number(stats, "otelSpans.producer")).as(stats).isEqualTo(producers);
    assertThat(BrokerProbeIT.number(stats, "otelSpans.consumer")).as(stats).isEqualTo(consumers);
    for (String outcome : new String[] {"unplaceable", "failed", "refused", "not-kafka"}) {
      assertThat(BrokerProbeIT.number(stats, "otelSpans." + outcome)).as(stats).isZero();
    }
    assertThat(stats).contains("\"spansRejected\":0").doesNotContain("requestsRejected.");
    return stats;
  }

  /**
   * The join's own count ({@code otel*} of {@code /api/stats}): {@code records} pairs joined, none
   * left one-sided, unplaced, invalid or dropped.
   */
  static void assertJoinCounts(int adminPort, int records) throws Exception {
    String stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
    assertThat(BrokerProbeIT.number(stats, "otelJoined")).as(stats).isEqualTo(records);
    for (String none :
        new String[] {
          "otelProducerOnly", "otelConsumerOnly", "otelUnplaced", "otelInvalid", "otelDroppedSpans"
        }) {
      assertThat(BrokerProbeIT.number(stats, none)).as("%s in %s", none, stats).isZero();
    }
  }

  /**
   * Every breakdown of topic and group the collector exported as a trace ({@code tempo}, its {@code
   * traces.endpoint}) is a record seen through the instrumentations: root {@code klat <topic>
   * <group>} with {@code klat.capture=opentelemetry}, whose children are exactly the three combined
   * segments, and they add up to the root's end to end, record by record (the identity the means
   * check for all records at once).
   */
  static void assertExportedTracesAddUp(OtlpReceiver tempo, String topic, String group, int count)
      throws InterruptedException {
    String rootName = "klat " + topic + " " + group;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    Map<String, Span> roots = new LinkedHashMap<>();
    Map<String, List<Span>> children = new HashMap<>();
    do {
      roots.clear();
      children.clear();
      for (Span span : tempo.spans()) {
        String parent = HexFormat.of().formatHex(span.getParentSpanId().toByteArray());
        if (span.getName().equals(rootName)) {
          roots.put(HexFormat.of().formatHex(span.getSpanId().toByteArray()), span);
        } else if (!parent.isEmpty()) {
          children.computeIfAbsent(parent, k -> new ArrayList<>()).add(span);
        }
      }
      if (roots.size() >= count) {
        break;
      }
      Thread.sleep(250);
    } while (System.nanoTime() < deadline);
    assertThat(roots).as("exported breakdowns of %s", rootName).hasSize(count);
    for (Map.Entry<String, Span> root : roots.entrySet()) {
      Span span = root.getValue();
      assertThat(attribute(span, "klat.capture")).as("%s", span).isEqualTo("opentelemetry");
      List<Span> parts = children.getOrDefault(root.getKey(), List.of());
      assertThat(parts.stream().map(Span::getName))
          .as("the parts of %s", span)
          .containsExactlyInAnyOrder(PRODUCE_AND_PUBLISH, COMMIT, CATCH_UP_AND_FETCH);
      long sumNanos = 0;
      for (Span part : parts) {
        sumNanos += part.getEndTimeUnixNano() - part.getStartTimeUnixNano();
      }
      assertThat(sumNanos)
          .as("produce+publish + commit + catch-up+fetch = e2e of %s", span)
          .isEqualTo(span.getEndTimeUnixNano() - span.getStartTimeUnixNano());
    }
  }

  private static String attribute(Span span, String key) {
    for (KeyValue kv : span.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        return kv.getValue().getStringValue();
      }
    }
    return null;
  }

  /** When the streams' breakdowns are awaited until: 60 s from now. */
  static long breakdownDeadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
  }

  /**
   * The {@code /api/breakdown} answer of topic and group once its {@code opentelemetry} object
   * counts {@code count} records, or at {@code deadlineNanos} ({@link #breakdownDeadline()}, shared
   * by a test's streams) the answer as it then is, which the caller's checks reject.
   */
  static JsonNode awaitOpentelemetry(
      int adminPort, String topic, String group, int count, long deadlineNanos) throws Exception {
    String query = "/api/breakdown?topic=" + topic + "&group=" + encode(group) + "&window=10m";
    JsonNode answer = read(CollectorEndToEndIT.get(adminPort, query, null));
    while (answer.path("opentelemetry").path("count").asInt() < count
        && System.nanoTime() < deadlineNanos) {
      Thread.sleep(500);
      answer = read(CollectorEndToEndIT.get(adminPort, query, null));
    }
    System.out.println("breakdown " + topic + " " + group + ": " + answer);
    return answer;
  }

  /**
   * Every record of the stream joined into an {@code opentelemetry} breakdown, none mistaken for a
   * sampled or tail one; each of the three combined segments measured for every record, commit
   * exact (both its instants the probe's, on the leader), the two with a client instant of quality
   * {@code client-clock}; and the segments add up to the end to end (means: the same records).
   */
  static void assertJoined(JsonNode answer, int count) {
    JsonNode otel = answer.path("opentelemetry");
    assertThat(otel.path("capture").asText()).as("%s", answer).isEqualTo("opentelemetry");
    assertThat(otel.path("count").asInt()).as("records joined: %s", answer).isEqualTo(count);
    assertThat(otel.path("instrumented").path("producer").asInt())
        .as("records whose producer was instrumented: %s", answer)
        .isEqualTo(count);
    assertThat(otel.path("instrumented").path("consumer").asInt())
        .as("records whose consumer was instrumented: %s", answer)
        .isEqualTo(count);
    assertThat(answer.path("count").asInt())
        .as("no OpenTelemetry record counted as one of klat's sampled records: %s", answer)
        .isZero();
    assertThat(answer.path("tail").path("count").asInt())
        .as("no OpenTelemetry record counted as a tail record: %s", answer)
        .isZero();
    for (String segment : SEGMENTS) {
      JsonNode s = otel.path("segments").path(segment);
      assertThat(s.path("count").asInt()).as("%s in %s", segment, answer).isEqualTo(count);
      String quality = segment.equals(COMMIT) ? "exact" : "client-clock";
      assertThat(s.path("quality").path(quality).asInt())
          .as("%s of quality %s in %s", segment, quality, answer)
          .isEqualTo(count);
    }
    double sumMs = 0;
    for (String segment : SEGMENTS) {
      sumMs += meanMs(otel.path("segments").path(segment), segment, answer);
    }
    assertThat(sumMs)
        .as(
            "produce+publish + commit + catch-up+fetch = e2e (means of the same records): %s",
            answer)
        .isCloseTo(
            meanMs(otel.path("e2e"), "e2e", answer), org.assertj.core.data.Offset.offset(0.01));
  }

  /**
   * The accuracy suite's p50 criterion for one delayed stream against its control: {@code
   * delayedSegment} grew as the application's end to end did, the other segments stayed, and klat's
   * end-to-end medians are the application's.
   */
  static void assertDelayLandsIn(
      String delayedSegment,
      JsonNode delayed,
      Truth delayedTruth,
      JsonNode control,
      Truth controlTruth) {
    JsonNode d = delayed.path("opentelemetry");
    JsonNode c = control.path("opentelemetry");
    double appGrowthMs = delayedTruth.p50Ms() - controlTruth.p50Ms();
    // The suite's tolerance, widened on a loaded machine to 20% of the control's own end to end:
    // the p50 of a segment is not its share of the p50 of the sum, and the more the control's
    // segments spread, the more the two differ (the suite widens its p99 checks likewise, to the
    // spread of two like streams).
    double toleranceMs =
        Math.max(
            TOLERANCE_FLOOR_MS,
            TOLERANCE_SHARE * Math.max(Math.abs(appGrowthMs), controlTruth.p50Ms()));
    String context =
        delayedTruth
            + " against "
            + controlTruth
            + "\n delayed: "
            + delayed
            + "\n control: "
            + control;
    System.out.printf(
        "%s: application p50 grew %.1f ms (tolerance %.1f ms)%n",
        delayedTruth.topic(), appGrowthMs, toleranceMs);
    assertThat(appGrowthMs)
        .as("the injected delay shows in what the application measured: %s", context)
        .isGreaterThan(2 * TOLERANCE_FLOOR_MS);
    // klat's end to end is the application's: means, exact over the same records (klat's
    // quantiles come from a histogram); the application reads its clock a little after the
    // instrumentation started its span (after every span of an eachBatch batch), hence 2%.
    for (Map.Entry<String, Truth> e :
        Map.of("delayed", delayedTruth, "control", controlTruth).entrySet()) {
      JsonNode o = e.getKey().equals("delayed") ? d : c;
      double appMeanMs = e.getValue().meanMs();
      assertThat(meanMs(o.path("e2e"), "e2e", context))
          .as("klat's e2e mean of the %s stream is the application's: %s", e.getKey(), context)
          .isCloseTo(
              appMeanMs,
              org.assertj.core.data.Offset.offset(Math.max(TOLERANCE_FLOOR_MS, 0.02 * appMeanMs)));
    }
    for (String segment : SEGMENTS) {
      double growthMs =
          p50Ms(d.path("segments").path(segment), segment, context)
              - p50Ms(c.path("segments").path(segment), segment, context);
      System.out.printf("  %s p50 grew %.1f ms%n", segment, growthMs);
      double expectedMs = segment.equals(delayedSegment) ? appGrowthMs : 0;
      assertThat(growthMs)
          .as(
              "%s p50 grew %.1f ms against the control, expected %.1f ms: %s",
              segment, growthMs, expectedMs, context)
          .isCloseTo(expectedMs, org.assertj.core.data.Offset.offset(toleranceMs));
    }
  }

  private static double p50Ms(JsonNode quantiles, String what, Object context) {
    JsonNode p50 = quantiles.path("p50Seconds");
    assertThat(p50.isNumber()).as("%s p50 in %s", what, context).isTrue();
    return p50.asDouble() * 1000;
  }

  private static double meanMs(JsonNode quantiles, String what, Object context) {
    JsonNode mean = quantiles.path("meanSeconds");
    assertThat(mean.isNumber()).as("%s mean in %s", what, context).isTrue();
    return mean.asDouble() * 1000;
  }

  static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + json, e);
    }
  }

  private static String encode(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }
}

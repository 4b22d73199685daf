package dev.klat.collector.export;

import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.MS;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.T0;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.bothInstrumented;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.klatProducerInstrumentedConsumer;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.aggregate.BreakdownMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.OpenTelemetryBreakdowns;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.TagKeys;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records seen through an OpenTelemetry instrumentation (section 10 of the latency model) in what
 * the collector shows: their own metric series, {@code /api/breakdown}'s {@code opentelemetry}
 * object and the exported trace, never mixed with the sampled records.
 */
class OpenTelemetryViewTest {
  private static final long WINDOW = 300_000 * MS;

  @Test
  void metricsGetCaptureOpentelemetryWithTheCombinedSegmentsAtClientClock() {
    BreakdownMetrics metrics = new BreakdownMetrics(100, () -> 0L);
    metrics.record(OpenTelemetryBreakdowns.sampled("orders", MS, 5 * MS));
    metrics.record(bothInstrumented("orders", "svc", 1, 30, 5, 65));
    metrics.record(bothInstrumented("orders", "svc", 2, 20, 5, 40));

    Map<String, Exposition.Series> otel = new LinkedHashMap<>();
    for (Exposition.Series s : metrics.segmentSeries()) {
      if (s.labels().get(TagKeys.CAPTURE).equals("opentelemetry")) {
        otel.put(s.labels().get(TagKeys.SEGMENT) + " " + s.labels().get(TagKeys.QUALITY), s);
      }
    }
    assertThat(otel)
        .containsOnlyKeys(
            "produce+publish client-clock", "commit exact", "catch-up+fetch client-clock");
    assertThat(otel.get("produce+publish client-clock").count()).isEqualTo(2);
    assertThat(otel.get("produce+publish client-clock").sum()).isEqualTo(0.05);
    assertThat(otel.get("catch-up+fetch client-clock").sum()).isEqualTo(0.105);
    assertThat(otel.get("commit exact").labels())
        .containsEntry(TagKeys.GROUP, "svc")
        .containsEntry(TagKeys.BROKER, "1");

    // Their end to end: a series of its own, not the agents' exemplars.
    List<Exposition.Series> e2e = metrics.opentelemetryE2eSeries();
    assertThat(e2e).hasSize(1);
    assertThat(e2e.get(0).labels())
        .containsExactly(
            Map.entry(TagKeys.TOPIC, "orders"),
            Map.entry(TagKeys.GROUP, "svc"),
            Map.entry(TagKeys.CAPTURE, "opentelemetry"));
    assertThat(e2e.get(0).count()).isEqualTo(2);
    assertThat(e2e.get(0).sum()).isEqualTo(0.1 + 0.065);
    assertThat(metrics.e2eExemplars("orders", "svc")).isNull();
  }

  @Test
  void aKlatProducerKeepsItsSegmentsBesideTheInstrumentedConsumersCatchUpAndFetch() {
    BreakdownMetrics metrics = new BreakdownMetrics(100, () -> 0L);
    metrics.record(klatProducerInstrumentedConsumer("orders", "svc", 1, 3, 35));

    assertThat(metrics.segmentSeries())
        .extracting(s -> s.labels().get(TagKeys.SEGMENT) + " " + s.labels().get(TagKeys.QUALITY))
        .containsExactlyInAnyOrder(
            "produce exact", "publish exact", "commit exact", "catch-up+fetch client-clock");
  }

  @Test
  void theOpentelemetrySeriesStayWithinTheHistogramCap() {
    BreakdownMetrics metrics = new BreakdownMetrics(100, 64, 2, id -> false, () -> 0L);
    for (int i = 0; i < 5; i++) {
      metrics.record(bothInstrumented("t" + i, "svc", i, 30, 5, 65));
    }
    // Two histograms of their own; everything else folded and counted.
    long own =
        metrics.segmentSeries().stream()
                .filter(s -> !s.labels().get(TagKeys.TOPIC).equals(BreakdownMetrics.OTHER))
                .count()
            + metrics.opentelemetryE2eSeries().stream()
                .filter(s -> !s.labels().get(TagKeys.TOPIC).equals(BreakdownMetrics.OTHER))
                .count();
    assertThat(own).isEqualTo(2);
    assertThat(metrics.histogramsFolded()).isEqualTo(5 * 4 - 2);
  }

  @Test
  void theBreakdownApiSplitsThemApartAndSaysWhichSidesTheyCameFrom() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(100);
    for (int i = 0; i < 10; i++) {
      recent.add(OpenTelemetryBreakdowns.sampled("orders", MS, 5 * MS), 0);
    }
    recent.add(bothInstrumented("orders", "svc", 1, 30, 5, 65), 0);
    recent.add(bothInstrumented("orders", "svc", 2, 20, 5, 40), 0);
    recent.add(klatProducerInstrumentedConsumer("orders", "svc", 3, 3, 35), 0);
    recent.add(bothInstrumented("payments", "service:checkout", 4, 10, 1, 9), 0);

    JsonNode answer =
        new ObjectMapper()
            .readTree(
                SummaryJson.breakdown(
                    "orders",
                    null,
                    WINDOW,
                    recent.summarise("orders", null, WINDOW, 0),
                    null,
                    recent.opentelemetry("orders", null, WINDOW, 0)));

    // The sampled figures are the sampled records' alone.
    assertThat(answer.get("count").asInt()).isEqualTo(10);
    assertThat(answer.at("/e2e/p99Seconds").asDouble()).isEqualTo(0.005);
    JsonNode otel = answer.get("opentelemetry");
    assertThat(otel.get("capture").asText()).isEqualTo("opentelemetry");
    assertThat(otel.get("count").asInt()).isEqualTo(3);
    assertThat(otel.at("/instrumented/producer").asInt()).isEqualTo(2);
    assertThat(otel.at("/instrumented/consumer").asInt()).isEqualTo(3);
    assertThat(otel.at("/klatAgent/producer").asInt()).isEqualTo(1);
    assertThat(otel.at("/klatAgent/consumer").asInt()).isZero();
    assertThat(otel.at("/quality/client-clock").asInt()).isEqualTo(3);
    assertThat(otel.at("/e2e/count").asInt()).isEqualTo(3);
    assertThat(otel.at("/e2e/p99Seconds").asDouble()).isEqualTo(0.1);
    assertThat(fieldNames(otel.get("segments")))
        .containsExactly(
            "produce+publish",
            "commit",
            "catch-up+fetch",
            "produce",
            "publish",
            "publish+commit",
            "catch-up",
            "fetch");
    JsonNode producePublish = otel.at("/segments/produce+publish");
    assertThat(producePublish.get("count").asInt()).isEqualTo(2);
    assertThat(producePublish.get("p50Seconds").asDouble()).isEqualTo(0.02);
    assertThat(producePublish.get("p99Seconds").asDouble()).isEqualTo(0.03);
    assertThat(producePublish.at("/quality/client-clock").asInt()).isEqualTo(2);
    assertThat(producePublish.at("/quality/none").asInt()).isEqualTo(1);
    // The klat producer's record gives produce and publish apart, from that record alone.
    assertThat(otel.at("/segments/produce/count").asInt()).isEqualTo(1);
    assertThat(otel.at("/segments/produce/quality/exact").asInt()).isEqualTo(1);
    assertThat(otel.at("/segments/commit/count").asInt()).isEqualTo(3);
    assertThat(otel.at("/segments/commit/quality/exact").asInt()).isEqualTo(3);
    JsonNode catchUpFetch = otel.at("/segments/catch-up+fetch");
    assertThat(catchUpFetch.get("count").asInt()).isEqualTo(3);
    assertThat(catchUpFetch.get("meanSeconds").asDouble()).isEqualTo(0.14 / 3, within());
    // (65 + 40 + 35) ms of (100 + 65 + 41) ms of end to end.
    assertThat(catchUpFetch.get("shareOfE2e").asDouble()).isEqualTo(0.6796);
    assertThat(catchUpFetch.get("shareRecords").asInt()).isEqualTo(3);
    assertThat(otel.at("/segments/fetch/count").asInt()).isZero();

    assertThat(otel.get("pairs")).hasSize(1);
    assertThat(otel.at("/pairs/0/topic").asText()).isEqualTo("orders");
    assertThat(otel.at("/pairs/0/group").asText()).isEqualTo("svc");
    assertThat(otel.at("/pairs/0/count").asInt()).isEqualTo(3);
    assertThat(otel.get("pairsNotShown").asInt()).isZero();

    // Without a filter, each pair is its own row; an instrumentation without a group attribute
    // names the service.
    JsonNode all =
        new ObjectMapper()
            .readTree(
                SummaryJson.breakdown(
                    null,
                    null,
                    WINDOW,
                    recent.summarise(null, null, WINDOW, 0),
                    null,
                    recent.opentelemetry(null, null, WINDOW, 0)));
    assertThat(all.at("/opentelemetry/count").asInt()).isEqualTo(4);
    assertThat(all.at("/opentelemetry/pairs/1/group").asText()).isEqualTo("service:checkout");
  }

  @Test
  void theSlowestListCarriesCatchUpAndFetchAsOneCombinedPart() {
    RecentBreakdowns recent = new RecentBreakdowns(10);
    recent.add(bothInstrumented("orders", "svc", 1, 30, 5, 65), 0);

    var record = recent.slowest(null, null, WINDOW, 0, 10).get(0);
    assertThat(record.capture().id()).isEqualTo("opentelemetry");
    assertThat(record.combined())
        .extracting(p -> p.segment() + "=" + p.nanos() / MS + " " + p.quality().id())
        .contains("produce+publish=30 client-clock", "catch-up+fetch=65 client-clock");
  }

  @Test
  void aTraceHasTheCombinedSegmentsAsSpansAroundCommit() {
    JoinedBreakdown jb = bothInstrumented("orders", "svc", 7, 30, 5, 65);
    List<BreakdownSpan> spans = BreakdownSpans.of(jb);
    SpanData root = spans.get(0);
    assertThat(root.getAttributes().get(AttributeKey.stringKey("klat.capture")))
        .isEqualTo("opentelemetry");
    assertThat(root.getAttributes().get(AttributeKey.stringKey("klat.quality")))
        .isEqualTo("client-clock");
    assertThat(root.getStartEpochNanos()).isEqualTo(T0);
    assertThat(root.getEndEpochNanos()).isEqualTo(T0 + 100 * MS);

    Map<String, String> parts = new LinkedHashMap<>();
    for (SpanData s : spans.subList(1, spans.size())) {
      assertThat(s.getParentSpanId()).isEqualTo(root.getSpanId());
      parts.put(
          s.getName(),
          (s.getStartEpochNanos() - T0) / MS
              + ".."
              + (s.getEndEpochNanos() - T0) / MS
              + " "
              + s.getAttributes().get(AttributeKey.stringKey("klat.segment"))
              + " "
              + s.getAttributes().get(AttributeKey.stringKey("klat.quality")));
    }
    assertThat(parts)
        .containsExactly(
            Map.entry("produce+publish", "0..30 produce+publish client-clock"),
            Map.entry("commit", "30..35 commit exact"),
            Map.entry("catch-up+fetch", "35..100 catch-up+fetch client-clock"));

    // A klat producer keeps its own parts.
    assertThat(BreakdownSpans.of(klatProducerInstrumentedConsumer("orders", "svc", 8, 3, 35)))
        .extracting(SpanData::getName)
        .containsExactly("klat orders svc", "produce", "publish", "commit", "catch-up+fetch");
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> out = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}

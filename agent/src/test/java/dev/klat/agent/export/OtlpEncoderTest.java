package dev.klat.agent.export;

import static dev.klat.agent.export.OtlpAssertions.attributes;
import static dev.klat.agent.export.OtlpAssertions.spanId;
import static dev.klat.agent.export.OtlpAssertions.stringAttributes;
import static dev.klat.agent.export.OtlpAssertions.traceId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.metrics.MetricFamily;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agentcore.clock.FixedTime;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.AttributeDef;
import dev.klat.model.LatencyBuckets;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TagKeys;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OtlpEncoderTest {

  private static final long T0 = 1_700_000_000_123_456_789L;

  private final OtlpEncoder encoder = new OtlpEncoder(resource(), "1.2.3");

  private static Map<String, Object> resource() {
    Map<String, Object> resource = new LinkedHashMap<>();
    resource.put("service.name", "orders-service");
    resource.put("service.instance.id", "00000000deadbeef");
    resource.put("host.name", "host-1");
    resource.put("telemetry.sdk.name", "klat");
    resource.put("telemetry.sdk.language", "java");
    resource.put("telemetry.sdk.version", "1.2.3");
    resource.put(SpanAttributes.INSTANCE_ID.name(), 0xdeadbeefL);
    return resource;
  }

  @Test
  void encodesEveryFieldOfAProducerSpan() throws Exception {
    SpanRecord span =
        new SpanRecord()
            .setTraceId(0x0102030405060708L, 0x1112131415161718L)
            .setSpanId(0x2122232425262728L)
            .setParentSpanId(0x3132333435363738L)
            .setName("orders publish")
            .setKind(SpanRecord.KIND_PRODUCER)
            .setStartEpochNanos(T0)
            .setEndEpochNanos(T0 + 5_000_000)
            .put(SpanAttributes.SEND_TIME, T0)
            .put(SpanAttributes.ACK_TIME, T0 + 5_000_000)
            .put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA)
            .put(SpanAttributes.MESSAGING_DESTINATION_NAME, "orders")
            .put(SpanAttributes.MESSAGING_KAFKA_OFFSET, -1L)
            .put(TestAttributes.of("test.ratio", AttributeDef.Type.DOUBLE), 0.25)
            .put(TestAttributes.of("test.flag", AttributeDef.Type.BOOLEAN), false);

    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(Collections.singletonList(span)));

    assertThat(request.getResourceSpansCount()).isEqualTo(1);
    ResourceSpans resourceSpans = request.getResourceSpans(0);
    assertResource(attributes(resourceSpans.getResource().getAttributesList()));
    ScopeSpans scopeSpans = resourceSpans.getScopeSpans(0);
    assertThat(scopeSpans.getScope().getName()).isEqualTo("dev.klat.agent");
    assertThat(scopeSpans.getScope().getVersion()).isEqualTo("1.2.3");
    Span s = scopeSpans.getSpans(0);
    assertThat(s.getTraceId().toByteArray())
        .isEqualTo(traceId(0x0102030405060708L, 0x1112131415161718L));
    assertThat(s.getSpanId().toByteArray()).isEqualTo(spanId(0x2122232425262728L));
    assertThat(s.getParentSpanId().toByteArray()).isEqualTo(spanId(0x3132333435363738L));
    assertThat(s.getName()).isEqualTo("orders publish");
    assertThat(s.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_PRODUCER);
    assertThat(s.getStartTimeUnixNano()).isEqualTo(T0);
    assertThat(s.getEndTimeUnixNano()).isEqualTo(T0 + 5_000_000);
    assertThat(s.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_UNSET);
    assertThat(s.getDroppedAttributesCount()).isZero();
    Map<String, AnyValue> attrs = attributes(s.getAttributesList());
    assertThat(attrs).hasSize(7);
    assertThat(attrs.get("klat.send.time_unix_nano").getIntValue()).isEqualTo(T0);
    assertThat(attrs.get("klat.ack.time_unix_nano").getIntValue()).isEqualTo(T0 + 5_000_000);
    assertThat(attrs.get("messaging.system").getStringValue()).isEqualTo("kafka");
    assertThat(attrs.get("messaging.destination.name").getStringValue()).isEqualTo("orders");
    assertThat(attrs.get("messaging.kafka.offset").getIntValue()).isEqualTo(-1L);
    assertThat(attrs.get("test.ratio").getDoubleValue()).isEqualTo(0.25);
    assertThat(attrs.get("test.flag").hasBoolValue()).isTrue();
    assertThat(attrs.get("test.flag").getBoolValue()).isFalse();
  }

  private static void assertResource(Map<String, AnyValue> resource) {
    assertThat(resource.get("service.name").getStringValue()).isEqualTo("orders-service");
    assertThat(resource.get("service.instance.id").getStringValue()).isEqualTo("00000000deadbeef");
    assertThat(resource.get("host.name").getStringValue()).isEqualTo("host-1");
    assertThat(resource.get("telemetry.sdk.name").getStringValue()).isEqualTo("klat");
    assertThat(resource.get("telemetry.sdk.language").getStringValue()).isEqualTo("java");
    assertThat(resource.get("telemetry.sdk.version").getStringValue()).isEqualTo("1.2.3");
    assertThat(resource.get("klat.instance.id").getIntValue()).isEqualTo(0xdeadbeefL);
  }

  @Test
  void encodesARootConsumerSpanWithAnErrorAndDroppedAttributes() throws Exception {
    SpanRecord span =
        new SpanRecord()
            .setTraceId(0, 1)
            .setSpanId(-1L)
            .setKind(SpanRecord.KIND_CONSUMER)
            .setName("orders process")
            .setError("boom")
            .put(SpanAttributes.MESSAGING_KAFKA_OFFSET, "not a long");

    Span s =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(List.of(span)))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpans(0);

    assertThat(s.getTraceId().toByteArray()).isEqualTo(traceId(0, 1));
    assertThat(s.getSpanId().toByteArray()).isEqualTo(spanId(-1L));
    assertThat(s.getParentSpanId().isEmpty()).isTrue();
    assertThat(s.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CONSUMER);
    assertThat(s.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
    assertThat(s.getStatus().getMessage()).isEqualTo("boom");
    assertThat(s.getAttributesCount()).isZero();
    assertThat(s.getDroppedAttributesCount()).isEqualTo(1);
  }

  @Test
  void encodesSpanLinksWithTheirAttributesAndCountsTheDroppedOnes() throws Exception {
    SpanRecord span =
        new SpanRecord()
            .setTraceId(3, 4)
            .setSpanId(5)
            .setParentSpanId(6)
            .setKind(SpanRecord.KIND_PRODUCER)
            .setName("send out")
            .put(SpanAttributes.LINK_TOPIC, "in")
            .put(SpanAttributes.LINK_COUNT, 40);
    for (int i = 0; i < SpanRecord.MAX_LINKS + 2; i++) {
      SpanRecord attributes =
          new SpanRecord(4, 2)
              .put(SpanAttributes.LINK_TOPIC, "in")
              .put(SpanAttributes.LINK_PARTITION, 2)
              .put(SpanAttributes.LINK_OFFSET, 100L + i)
              .put(SpanAttributes.LINK_GROUP, "enricher");
      span.addLink(7, 8 + i, 9 + i, i == 0 ? null : attributes);
    }

    Span s =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(List.of(span)))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpans(0);

    assertThat(s.getLinksCount()).isEqualTo(SpanRecord.MAX_LINKS);
    assertThat(s.getDroppedLinksCount()).isEqualTo(2);
    assertThat(s.getLinks(0).getTraceId().toByteArray()).isEqualTo(traceId(7, 8));
    assertThat(s.getLinks(0).getSpanId().toByteArray()).isEqualTo(spanId(9));
    assertThat(s.getLinks(0).getAttributesCount()).isZero();
    Span.Link second = s.getLinks(1);
    assertThat(second.getTraceId().toByteArray()).isEqualTo(traceId(7, 9));
    assertThat(second.getSpanId().toByteArray()).isEqualTo(spanId(10));
    Map<String, AnyValue> attributes = new LinkedHashMap<>();
    second.getAttributesList().forEach(kv -> attributes.put(kv.getKey(), kv.getValue()));
    assertThat(attributes.get("klat.link.topic").getStringValue()).isEqualTo("in");
    assertThat(attributes.get("klat.link.partition").getIntValue()).isEqualTo(2);
    assertThat(attributes.get("klat.link.offset").getIntValue()).isEqualTo(101);
    assertThat(attributes.get("klat.link.group").getStringValue()).isEqualTo("enricher");
    // The span's own attributes are untouched by its links'.
    assertThat(s.getAttributesCount()).isEqualTo(2);
  }

  @Test
  void encodesManySpansWithNonAsciiStrings() throws Exception {
    String[] topics = {"注文", "заказы", "commandes-été", "🚀-launches", "a\u0000b", ""};
    List<SpanRecord> spans = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      spans.add(
          new SpanRecord()
              .setTraceId(i + 1, i)
              .setSpanId(i + 100)
              .setName(topics[i % topics.length] + " publish")
              .setKind(SpanRecord.KIND_PRODUCER)
              .setStartEpochNanos(T0 + i)
              .setEndEpochNanos(T0 + 2L * i)
              .put(SpanAttributes.MESSAGING_DESTINATION_NAME, topics[i % topics.length])
              .put(SpanAttributes.MESSAGING_CLIENT_ID, "client-ü-" + i)
              .put(SpanAttributes.MESSAGING_KAFKA_OFFSET, (long) i));
    }

    List<Span> parsed =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(spans))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();

    assertThat(parsed).hasSize(2000);
    for (int i = 0; i < 2000; i++) {
      Span s = parsed.get(i);
      assertThat(s.getTraceId().toByteArray()).isEqualTo(traceId(i + 1, i));
      assertThat(s.getName()).isEqualTo(topics[i % topics.length] + " publish");
      assertThat(s.getEndTimeUnixNano()).isEqualTo(T0 + 2L * i);
      Map<String, AnyValue> attrs = attributes(s.getAttributesList());
      assertThat(attrs.get("messaging.destination.name").getStringValue())
          .isEqualTo(topics[i % topics.length]);
      assertThat(attrs.get("messaging.client.id").getStringValue()).isEqualTo("client-ü-" + i);
      assertThat(attrs.get("messaging.kafka.offset").getIntValue()).isEqualTo(i);
    }
  }

  @Test
  void cutsVeryLongStringsWithoutSplittingASurrogatePair() throws Exception {
    String longMessage = "x".repeat(OtlpEncoder.MAX_STRING_CHARS - 1) + "🚀" + "tail";
    SpanRecord span = new SpanRecord().setTraceId(1, 1).setSpanId(1).setError(longMessage);

    Span s =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(List.of(span)))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpans(0);

    assertThat(s.getStatus().getMessage()).isEqualTo("x".repeat(OtlpEncoder.MAX_STRING_CHARS - 1));
  }

  @Test
  void attributesOfEveryTypeAndLengthParseBack() throws Exception {
    String[] values = {
      "", "a", "x".repeat(127), "y".repeat(128), "é".repeat(70), "z".repeat(20_000)
    };
    // Made once: every definition takes an id for good (SpanRecordTest needs some below 128).
    AttributeDef ratio = TestAttributes.of("test.ratio", AttributeDef.Type.DOUBLE);
    AttributeDef flag = TestAttributes.of("test.flag", AttributeDef.Type.BOOLEAN);
    for (String value : values) {
      for (long number : new long[] {0L, 1L, 127L, 128L, -1L, Long.MIN_VALUE, Long.MAX_VALUE}) {
        SpanRecord span =
            new SpanRecord(2, 1)
                .setTraceId(1, 2)
                .setSpanId(3)
                .put(SpanAttributes.MESSAGING_DESTINATION_NAME, value)
                .put(SpanAttributes.MESSAGING_KAFKA_OFFSET, number)
                .put(ratio, -0.5)
                .put(flag, true);

        Span s =
            ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(List.of(span)))
                .getResourceSpans(0)
                .getScopeSpans(0)
                .getSpans(0);

        Map<String, AnyValue> attrs = attributes(s.getAttributesList());
        assertThat(attrs.get("messaging.destination.name").getStringValue())
            .isEqualTo(OtlpEncoder.truncate(value));
        assertThat(attrs.get("messaging.kafka.offset").getIntValue()).isEqualTo(number);
        assertThat(attrs.get("test.ratio").getDoubleValue()).isEqualTo(-0.5);
        assertThat(attrs.get("test.flag").getBoolValue()).isTrue();
      }
    }
  }

  @Test
  void leavesOutSpansWithInvalidIds() throws Exception {
    List<SpanRecord> spans =
        List.of(new SpanRecord().setSpanId(1), new SpanRecord().setTraceId(1, 1).setSpanId(2));
    List<Span> parsed =
        ExportTraceServiceRequest.parseFrom(encoder.encodeSpans(spans))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();
    assertThat(parsed).hasSize(1);
    assertThat(parsed.get(0).getSpanId().toByteArray()).isEqualTo(spanId(2));
  }

  @Test
  void encodesHistogramsCountersAndGaugesWithTheNamesOfModel() throws Exception {
    FixedTime time = new FixedTime(T0);
    MetricsRegistry registry = new MetricsRegistry(100, time);
    LatencyHistogram e2e = registry.histogram(MetricDef.E2E_LATENCY, "orders", "billing");
    e2e.recordNanos(500);
    e2e.recordNanos(1_500_000);
    e2e.recordNanos(1_500_000);
    e2e.recordNanos(300_000_000_000L);
    registry.histogram(MetricDef.E2E_LATENCY, "orders", "empty");
    registry.counter(MetricDef.AGENT_HEADERS_INVALID, "bad_magic").add(3);
    registry.gauge(MetricDef.CONSUMER_LAG_TIME, "orders", "billing", "7").set(1.25);
    long exportTime = T0 + 10_000_000_000L;

    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.parseFrom(
            encoder.encodeMetrics(registry.collect(), exportTime));

    assertThat(request.getResourceMetricsCount()).isEqualTo(1);
    ResourceMetrics resourceMetrics = request.getResourceMetrics(0);
    assertResource(attributes(resourceMetrics.getResource().getAttributesList()));
    ScopeMetrics scope = resourceMetrics.getScopeMetrics(0);
    assertThat(scope.getScope().getName()).isEqualTo("dev.klat.agent");
    Map<String, Metric> metrics =
        scope.getMetricsList().stream().collect(Collectors.toMap(Metric::getName, m -> m));
    assertThat(metrics)
        .containsOnlyKeys(
            MetricDef.E2E_LATENCY.name(),
            MetricDef.AGENT_HEADERS_INVALID.name(),
            MetricDef.CONSUMER_LAG_TIME.name());

    Metric histogram = metrics.get(MetricDef.E2E_LATENCY.name());
    assertThat(histogram.getUnit())
        .isEqualTo("s")
        .isEqualTo(MetricDef.E2E_LATENCY.unit().otelUnit());
    assertThat(histogram.getDescription()).isEqualTo(MetricDef.E2E_LATENCY.description());
    assertThat(histogram.hasHistogram()).isTrue();
    assertThat(histogram.getHistogram().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    assertThat(histogram.getHistogram().getDataPointsCount())
        .as("the empty histogram is skipped")
        .isEqualTo(1);
    HistogramDataPoint point = histogram.getHistogram().getDataPoints(0);
    assertThat(stringAttributes(point.getAttributesList()))
        .containsExactly(Map.entry(TagKeys.TOPIC, "orders"), Map.entry(TagKeys.GROUP, "billing"));
    assertThat(point.getStartTimeUnixNano()).isEqualTo(T0);
    assertThat(point.getTimeUnixNano()).isEqualTo(exportTime);
    assertThat(point.getCount()).isEqualTo(4);
    assertThat(point.hasSum()).isTrue();
    assertThat(point.getSum()).isCloseTo(300.0030005, within(1e-9));
    assertThat(point.getExplicitBoundsList())
        .containsExactly(
            Arrays.stream(LatencyHistogram.explicitBoundsSeconds()).boxed().toArray(Double[]::new));
    List<Long> counts = point.getBucketCountsList();
    assertThat(counts).hasSize(point.getExplicitBoundsCount() + 1);
    assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(point.getCount());
    assertThat(counts.get(0)).isEqualTo(1);
    int index = LatencyBuckets.agentIndex(1_500_000);
    assertThat(counts.get(index)).isEqualTo(2);
    assertThat(point.getExplicitBounds(index)).isGreaterThanOrEqualTo(1.5e-3);
    assertThat(point.getExplicitBounds(index - 1)).isLessThan(1.5e-3);
    assertThat(counts.get(counts.size() - 1)).isEqualTo(1);

    Metric counter = metrics.get(MetricDef.AGENT_HEADERS_INVALID.name());
    assertThat(counter.getUnit()).isEqualTo(MetricDef.AGENT_HEADERS_INVALID.unit().otelUnit());
    assertThat(counter.getDescription()).isEqualTo(MetricDef.AGENT_HEADERS_INVALID.description());
    assertThat(counter.hasSum()).isTrue();
    assertThat(counter.getSum().getIsMonotonic()).isTrue();
    assertThat(counter.getSum().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    NumberDataPoint sumPoint = counter.getSum().getDataPoints(0);
    assertThat(sumPoint.getValueCase()).isEqualTo(NumberDataPoint.ValueCase.AS_INT);
    assertThat(sumPoint.getAsInt()).isEqualTo(3);
    assertThat(sumPoint.getStartTimeUnixNano()).isEqualTo(T0);
    assertThat(sumPoint.getTimeUnixNano()).isEqualTo(exportTime);
    assertThat(stringAttributes(sumPoint.getAttributesList()))
        .containsExactly(Map.entry(TagKeys.REASON, "bad_magic"));

    Metric gauge = metrics.get(MetricDef.CONSUMER_LAG_TIME.name());
    assertThat(gauge.getUnit()).isEqualTo("s");
    assertThat(gauge.hasGauge()).isTrue();
    NumberDataPoint gaugePoint = gauge.getGauge().getDataPoints(0);
    assertThat(gaugePoint.getValueCase()).isEqualTo(NumberDataPoint.ValueCase.AS_DOUBLE);
    assertThat(gaugePoint.getAsDouble()).isEqualTo(1.25);
    assertThat(gaugePoint.getTimeUnixNano()).isEqualTo(exportTime);
    assertThat(stringAttributes(gaugePoint.getAttributesList()))
        .containsExactly(
            Map.entry(TagKeys.TOPIC, "orders"),
            Map.entry(TagKeys.GROUP, "billing"),
            Map.entry(TagKeys.PARTITION, "7"));
  }

  @Test
  void aZeroCounterIsStillWrittenAsAnInt() throws Exception {
    MetricsRegistry registry = new MetricsRegistry();
    registry.counter(MetricDef.AGENT_DURATIONS_CLAMPED, "A");
    NumberDataPoint point =
        ExportMetricsServiceRequest.parseFrom(encoder.encodeMetrics(registry.collect(), T0))
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getSum()
            .getDataPoints(0);
    assertThat(point.getValueCase()).isEqualTo(NumberDataPoint.ValueCase.AS_INT);
    assertThat(point.getAsInt()).isZero();
  }

  @Test
  void returnsNullWhenThereIsNothingToExport() {
    MetricsRegistry registry = new MetricsRegistry();
    registry.histogram(MetricDef.E2E_LATENCY, "t", "g");
    assertThat(encoder.encodeMetrics(registry.collect(), T0)).isNull();
    assertThat(encoder.encodeMetrics(List.of(), T0)).isNull();
  }

  @Test
  void chunksKeepEveryPointOnceAndRespectTheLimit() throws Exception {
    MetricsRegistry registry = new MetricsRegistry();
    for (int i = 0; i < 25; i++) {
      registry.histogram(MetricDef.E2E_LATENCY, "t" + i, "g").recordNanos(i * 1000L);
      registry.counter(MetricDef.AGENT_HEADERS_INVALID, "r" + i).add(i);
    }

    List<List<MetricFamily>> chunks = OtlpEncoder.chunk(registry.collect(), 7);

    int histogramPoints = 0;
    int counterPoints = 0;
    for (List<MetricFamily> chunk : chunks) {
      ExportMetricsServiceRequest request =
          ExportMetricsServiceRequest.parseFrom(encoder.encodeMetrics(chunk, T0));
      int points = 0;
      for (Metric m : request.getResourceMetrics(0).getScopeMetrics(0).getMetricsList()) {
        points += m.getHistogram().getDataPointsCount() + m.getSum().getDataPointsCount();
        histogramPoints += m.getHistogram().getDataPointsCount();
        counterPoints += m.getSum().getDataPointsCount();
      }
      assertThat(points).isLessThanOrEqualTo(7);
    }
    assertThat(histogramPoints).isEqualTo(25);
    assertThat(counterPoints).isEqualTo(25);
    assertThat(chunks).hasSize(8);
  }

  @Test
  void theCollectorsClockMeasuredOnTheExportsGoesIntoTheResource() throws Exception {
    FixedTime time = new FixedTime(1_700_000_000_000_000_000L);
    List<SpanRecord> spans = List.of(new SpanRecord().setTraceId(1, 2).setSpanId(3).setName("n"));
    try (TestCollector collector = new TestCollector()) {
      // The collector's clock is 250 ms ahead.
      long collectorMicros = time.epochNanos / 1000 + 250_000;
      collector.traceResponder =
          TestCollector.withClockHeaders(
              Long.toString(collectorMicros), Long.toString(collectorMicros + 1), 200);
      OtlpHttpSender sender = new OtlpHttpSender(collector.endpoint(), Map.of(), false, "v", time);
      byte[] body = new OtlpEncoder(Map.of("service.name", "s"), "v").encodeSpans(spans);
      sender.sendTracesPayload(sender.payload(body, body.length), 1000, 1000);

      byte[] request =
          new OtlpEncoder(Map.of("service.name", "s"), "v", sender.clockSync()).encodeSpans(spans);
      List<KeyValue> resource =
          ExportTraceServiceRequest.parseFrom(request)
              .getResourceSpans(0)
              .getResource()
              .getAttributesList();
      assertThat(resource)
          .extracting(KeyValue::getKey)
          .containsExactly(
              "service.name",
              "klat.clock.collector_offset_ns",
              "klat.clock.collector_uncertainty_ns");
      // The fixed test clock makes t0 = t3: the collector's 1 us is all the round trip there is.
      assertThat(resource.get(1).getValue().getIntValue()).isEqualTo(250_000_000L + 1000);
      assertThat(resource.get(2).getValue().getIntValue()).isEqualTo(1000);
    }
  }
}

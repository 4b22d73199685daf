package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.export.Scrape;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.sdk.metrics.InstrumentSelector;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.View;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole collector in-process on free ports, fed by the OpenTelemetry Java SDK's OTLP/HTTP
 * exporters (the reference client), exporting its traces to a stub OTLP endpoint.
 */
@Timeout(180)
class CollectorIT {
  static final int RECORDS = 100;
  static final long MS = 1_000_000L;
  static final long BASE = 1_800_000_000_000L * MS;
  static final long PRODUCER_HOST = 0x1111L;
  static final long CONSUMER_HOST = 0x2222L;

  static Collector collector;
  static HttpServer traceStub;
  static final ConcurrentLinkedQueue<ExportTraceServiceRequest> exported =
      new ConcurrentLinkedQueue<>();
  static final Set<String> sentTraceIds = new HashSet<>();
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void sendRecords() throws Exception {
    traceStub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    traceStub.createContext(
        "/v1/traces",
        ex -> {
          exported.add(ExportTraceServiceRequest.parseFrom(ex.getRequestBody().readAllBytes()));
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    traceStub.start();
    collector =
        Collector.start(
            CollectorConfig.of(
                Map.of(
                    "otlp.http.port", "0",
                    "otlp.grpc.port", "0",
                    "admin.port", "0",
                    "traces.endpoint", "http://127.0.0.1:" + traceStub.getAddress().getPort())));
    String otlp = "http://127.0.0.1:" + collector.otlpAddress().getPort();

    SdkTracerProvider producers = tracerProvider(otlp, PRODUCER_HOST);
    SdkTracerProvider consumers = tracerProvider(otlp, CONSUMER_HOST);
    for (int i = 0; i < RECORDS; i++) {
      long s = BASE + i * MS;
      Span producer =
          producers
              .get("it")
              .spanBuilder("send orders")
              .setSpanKind(SpanKind.PRODUCER)
              .setStartTimestamp(s, TimeUnit.NANOSECONDS)
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders")
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0")
              .setAttribute(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), (long) i)
              .setAttribute(SpanAttributes.SEND_TIME.name(), s)
              .setAttribute(SpanAttributes.DRAIN_TIME.name(), s + 2 * MS)
              .setAttribute(SpanAttributes.ACK_TIME.name(), s + 10 * MS)
              .startSpan();
      producer.end(s + 10 * MS, TimeUnit.NANOSECONDS);
      sentTraceIds.add(producer.getSpanContext().getTraceId());
      // Each consumer span twice: an exporter retry must not count twice.
      for (int copy = 0; copy < 2; copy++) {
        Span consumer =
            consumers
                .get("it")
                .spanBuilder("process orders")
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(Context.root().with(Span.wrap(producer.getSpanContext())))
                .setStartTimestamp(s + 5 * MS, TimeUnit.NANOSECONDS)
                .setAttribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders")
                .setAttribute(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0")
                .setAttribute(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), (long) i)
                .setAttribute(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), "billing")
                .setAttribute(SpanAttributes.FETCH_REQUEST_TIME.name(), s + 5 * MS)
                .setAttribute(SpanAttributes.FETCH_RESPONSE_TIME.name(), s + 12 * MS)
                .setAttribute(SpanAttributes.POLL_TIME.name(), s + (15 + i % 10) * MS)
                .startSpan();
        consumer.end(s + (15 + i % 10) * MS, TimeUnit.NANOSECONDS);
      }
    }
    assertThat(producers.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    assertThat(consumers.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    producers.close();
    consumers.close();

    // Two consumer instances report the every-record end-to-end histogram with the agent's
    // buckets; each saw the same 100 latencies.
    for (String instance : List.of("aaaa", "bbbb")) {
      SdkMeterProvider meters = meterProvider(otlp, instance);
      DoubleHistogram e2e =
          meters.get("it").histogramBuilder(MetricDef.E2E_LATENCY.name()).setUnit("s").build();
      for (int i = 0; i < RECORDS; i++) {
        e2e.record(
            (15 + i % 10) * MS / 1e9,
            Attributes.builder().put("topic", "orders").put("group", "billing").build());
      }
      assertThat(meters.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
      meters.close();
    }
  }

  static SdkTracerProvider tracerProvider(String endpoint, long instanceId) {
    return SdkTracerProvider.builder()
        .setResource(
            Resource.create(
                Attributes.of(AttributeKey.longKey(SpanAttributes.INSTANCE_ID.name()), instanceId)))
        .addSpanProcessor(
            BatchSpanProcessor.builder(
                    OtlpHttpSpanExporter.builder().setEndpoint(endpoint + "/v1/traces").build())
                .setMaxQueueSize(4 * RECORDS)
                .setMaxExportBatchSize(64)
                .setScheduleDelay(Duration.ofHours(1))
                .build())
        .build();
  }

  static SdkMeterProvider meterProvider(String endpoint, String instance) {
    List<Double> bounds = new ArrayList<>();
    bounds.add(1000 / 1e9);
    for (int i = 1; i < 434; i++) {
      int k = i + 158;
      bounds.add(((17L + (k & 15)) << ((k >>> 4) - 4)) / 1e9);
    }
    return SdkMeterProvider.builder()
        .setResource(
            Resource.create(Attributes.of(AttributeKey.stringKey("service.instance.id"), instance)))
        .registerView(
            InstrumentSelector.builder().setName(MetricDef.E2E_LATENCY.name()).build(),
            View.builder().setAggregation(Aggregation.explicitBucketHistogram(bounds)).build())
        .registerMetricReader(
            PeriodicMetricReader.builder(
                    OtlpHttpMetricExporter.builder().setEndpoint(endpoint + "/v1/metrics").build())
                .setInterval(Duration.ofHours(1))
                .build())
        .build();
  }

  @AfterAll
  static void stop() {
    if (collector != null) {
      collector.close();
    }
    if (traceStub != null) {
      traceStub.stop(0);
    }
  }

  static HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + collector.adminAddress().getPort() + path));
    if (accept != null) {
      b.header("Accept", accept);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyRecordJoinsOnceDespiteDuplicates() {
    var stats = collector.correlator().stats();
    assertThat(stats.joined()).isEqualTo(RECORDS);
    assertThat(stats.duplicates()).isEqualTo(RECORDS);
    assertThat(collector.receiverStats().spansReceived()).isEqualTo(3 * RECORDS);
  }

  @Test
  void openMetricsScrapeCarriesMergedHistogramsAndExemplarsOfSentTraces() throws Exception {
    HttpResponse<String> r = get("/metrics", "application/openmetrics-text; version=1.0.0");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/openmetrics-text");
    Scrape s = Scrape.parse(r.body(), true);

    // Merged across the two instances: 2 x 100 records.
    assertThat(s.named("klat_e2e_latency_seconds_count"))
        .singleElement()
        .satisfies(x -> assertThat(x.value()).isEqualTo(2 * RECORDS));
    assertThat(s.named("klat_e2e_latency_seconds_sum").get(0).value())
        .isCloseTo(2 * 10 * (15 + 24) / 2.0 * 10 / 1e3, org.assertj.core.data.Offset.offset(1e-6));

    for (String name :
        List.of("klat_e2e_latency_seconds_bucket", "klat_segment_latency_seconds_bucket")) {
      List<Scrape.Sample> withExemplar =
          s.named(name).stream().filter(b -> b.exemplarLabels() != null).toList();
      assertThat(withExemplar).as(name).isNotEmpty();
      for (Scrape.Sample b : withExemplar) {
        assertThat(sentTraceIds).contains(b.exemplarLabels().get("trace_id"));
        assertThat(b.exemplarValue()).isLessThanOrEqualTo(Double.parseDouble(b.labels().get("le")));
      }
    }
    // Segment histograms from the 100 breakdowns: produce 2 ms each, fetch 0 (H is R).
    Scrape.Sample produceCount =
        s.named("klat_segment_latency_seconds_count").stream()
            .filter(x -> "produce".equals(x.labels().get("segment")))
            .findFirst()
            .orElseThrow();
    assertThat(produceCount.value()).isEqualTo(RECORDS);
    assertThat(produceCount.labels())
        .containsEntry("quality", "exact")
        .containsEntry("group", "billing");
    assertThat(s.named("klat_collector_breakdowns_joined_total").get(0).value()).isEqualTo(RECORDS);
    assertThat(s.named("klat_collector_spans_received_total").get(0).value())
        .isEqualTo(3 * RECORDS);
    assertThat(s.named("klat_collector_spans_unjoined_total").get(0).value()).isZero();
    assertThat(s.named("klat_clock_offset_seconds")).isNotEmpty();
  }

  @Test
  void prometheusTextScrapeParsesWithoutExemplars() throws Exception {
    HttpResponse<String> r = get("/metrics", null);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    Scrape s = Scrape.parse(r.body(), false);
    assertThat(s.samples).allSatisfy(x -> assertThat(x.exemplarLabels()).isNull());
    assertThat(s.types).containsEntry("klat_collector_breakdowns_joined_total", "counter");
    // Every name and label the collector exposes is defined in model/.
    Set<String> defined = new HashSet<>();
    Set<String> labels = new HashSet<>(List.of("le"));
    for (MetricDef def : MetricDef.all()) {
      defined.add(def.prometheusName());
      labels.addAll(def.tagKeys());
    }
    assertThat(defined).containsAll(s.types.keySet());
    assertThat(s.samples).allSatisfy(x -> assertThat(labels).containsAll(x.labels().keySet()));
  }

  @Test
  void breakdownApiShowsWhichSegmentDrivesTheTail() throws Exception {
    HttpResponse<String> r = get("/api/breakdown?topic=orders&group=billing&window=5m", null);
    assertThat(r.statusCode()).isEqualTo(200);
    String body = r.body();
    // e2e is 15..24 ms, ten records each: p50 by nearest rank is the 50th value, 19 ms; p99 and
    // p99.9 are 24 ms. The tail (e2e >= p99) is the ten 24 ms records: produce 2 ms, catch-up
    // 3 + 9 = 12 ms, fetch 0, publish and commit together 10 ms.
    assertThat(body).contains("\"count\":100");
    assertThat(body)
        .contains("\"p50Seconds\":0.019", "\"p99Seconds\":0.024", "\"p999Seconds\":0.024");
    assertThat(body).contains("\"p99Tail\":{\"count\":10");
    assertThat(body)
        .contains(
            "\"produce\":0.002",
            "\"catch-up\":0.012",
            "\"fetch\":0",
            "\"publish\":null",
            "\"publish+commit\":0.01");
    // One-way traffic: the consumer clock is bounded on one side only, so e2e is flagged in every
    // tail record, while produce (one clock) never is.
    assertThat(body).contains("\"clockFlagged\":{\"produce\":0,", "\"e2e\":10}");
    assertThat(get("/api/breakdown?window=banana", null).statusCode()).isEqualTo(400);
    // The tail's records sat 12 of their 24 ms in the consumer's buffer (P - R): the
    // application's time between polls explains half the tail, and nothing else has evidence.
    String diagnosis = get("/api/diagnosis?topic=orders&group=billing&window=5m", null).body();
    assertThat(diagnosis)
        .startsWith("{\"topic\":\"orders\",\"group\":\"billing\",\"windowSeconds\":300.0,")
        .contains("\"tailRecords\":10", "\"unexplained\":null")
        .contains(
            "\"findings\":[{\"segment\":\"catch-up\",\"knob\":\"application time between"
                + " polls\",\"tailShare\":0.5,");
    assertThat(get("/api/diagnosis?window=banana", null).statusCode()).isEqualTo(400);
    // The slowest records of the window, each with its segments and trace id.
    String slowest = get("/api/slowest?topic=orders&group=billing&limit=3", null).body();
    assertThat(slowest)
        .startsWith(
            "{\"topic\":\"orders\",\"group\":\"billing\",\"windowSeconds\":300.0,\"records\":"
                + "[{\"topic\":\"orders\",\"group\":\"billing\",\"partition\":")
        .contains("\"e2eSeconds\":0.024,")
        .contains("\"produce\":{\"seconds\":0.002,\"quality\":\"exact\",\"clockFlagged\":false}");
    assertThat(slowest.split("\"traceId\":\"[0-9a-f]{32}\"", -1)).hasSize(4);
    assertThat(get("/api/slowest?limit=0", null).statusCode()).isEqualTo(400);
    assertThat(get("/api/pairs?window=5m", null).body())
        .isEqualTo(
            "{\"windowSeconds\":300.0,\"pairs\":[{\"topic\":\"orders\",\"group\":\"billing\","
                + "\"records\":100}]}");
    // ./klat diagnose prints the same finding in a terminal, and says what was wrong otherwise.
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
    String admin = "http://127.0.0.1:" + collector.adminAddress().getPort();
    int status =
        dev.klat.collector.cli.DiagnoseCommand.run(
            new String[] {
              "--collector", admin, "--topic", "orders", "--group=billing", "--window", "5m"
            },
            new java.io.PrintStream(printed, true, StandardCharsets.UTF_8),
            new java.io.PrintStream(errors, true, StandardCharsets.UTF_8));
    assertThat(status).as(errors.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .startsWith("topic orders, group billing, last 5m: 100 sampled breakdowns, p99 24.0 ms")
        .contains("1. catch-up application time between polls: 50% of the tail (12.0 ms)")
        .contains("in the consumer's buffer (P - R), tail mean: 12.0 ms");
    assertThat(
            dev.klat.collector.cli.DiagnoseCommand.run(
                new String[] {"--collector", admin, "--window", "banana"},
                new java.io.PrintStream(printed, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(errors, true, StandardCharsets.UTF_8)))
        .isEqualTo(2);
    assertThat(errors.toString(StandardCharsets.UTF_8)).contains("bad window: banana");
    // And on /metrics, for dashboards.
    assertThat(get("/metrics", null).body())
        .contains(
            "klat_diagnosis_tail_share{topic=\"orders\",group=\"billing\",segment=\"catch-up\","
                + "knob=\"application time between polls\"} 0.5");
    String clocks = get("/api/clocks", null).body();
    assertThat(clocks)
        .contains(
            "\"fromHost\":\"0000000000001111\"",
            "\"toHost\":\"0000000000002222\"",
            "\"uncertaintyNanos\":null");
    assertThat(get("/healthz", null).body()).isEqualTo("ok\n");
    assertThat(get("/api/stats", null).body())
        .contains("\"joined\":100", "\"duplicates\":100", "\"unjoinedConsumerSpans\":0");
  }

  @Test
  void withoutBrokersConfiguredTheBrokerApiIsEmptyAndLookupsFindNothing() throws Exception {
    assertThat(get("/api/brokers", null).body()).isEqualTo("{\"brokers\":[],\"discovery\":null}");
    assertThat(
            collector
                .brokerTimings()
                .lookup(
                    1, dev.klat.collector.correlate.instants.BrokerTimings.Request.PRODUCE, BASE))
        .isNull();
  }

  @Test
  void exportedTracesDrawTheWaterfallInTheRecordsTrace() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Set<String> rootTraces = new HashSet<>();
    List<io.opentelemetry.proto.trace.v1.Span> spans = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      spans.clear();
      rootTraces.clear();
      for (ExportTraceServiceRequest req : exported) {
        req.getResourceSpansList()
            .forEach(rs -> rs.getScopeSpansList().forEach(ss -> spans.addAll(ss.getSpansList())));
      }
      for (var span : spans) {
        if (span.getParentSpanId().isEmpty()) {
          rootTraces.add(hex(span.getTraceId().toByteArray()));
        }
      }
      if (rootTraces.size() == RECORDS) {
        break;
      }
      Thread.sleep(100);
    }
    assertThat(rootTraces).isEqualTo(sentTraceIds);
    Set<String> keys = new HashSet<>();
    SpanAttributes.all().forEach(a -> keys.add(a.name()));
    assertThat(spans)
        .allSatisfy(
            span -> span.getAttributesList().forEach(kv -> assertThat(keys).contains(kv.getKey())));
    // Offset 7: S = BASE + 7 ms, D = S + 2, H = R = S + 12, P = S + 22 ms.
    String traceOf7 = null;
    for (var span : spans) {
      boolean isRoot = span.getParentSpanId().isEmpty();
      if (isRoot && attribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name()).equals("7")) {
        traceOf7 = hex(span.getTraceId().toByteArray());
        assertThat(span.getStartTimeUnixNano()).isEqualTo(BASE + 7 * MS);
        assertThat(span.getEndTimeUnixNano()).isEqualTo(BASE + 7 * MS + 22 * MS);
      }
    }
    assertThat(traceOf7).isNotNull();
    Map<String, long[]> children = new java.util.HashMap<>();
    for (var span : spans) {
      if (hex(span.getTraceId().toByteArray()).equals(traceOf7)
          && !span.getParentSpanId().isEmpty()) {
        children.put(
            span.getName(),
            new long[] {
              span.getStartTimeUnixNano() - BASE - 7 * MS, span.getEndTimeUnixNano() - BASE - 7 * MS
            });
      }
    }
    assertThat(children.get("produce")).containsExactly(0, 2 * MS);
    assertThat(children.get("publish+commit")).containsExactly(2 * MS, 12 * MS);
    assertThat(children.get("fetch")).containsExactly(12 * MS, 12 * MS);
    assertThat(children.get("catch-up (buffer)")).containsExactly(12 * MS, 22 * MS);
  }

  static String attribute(io.opentelemetry.proto.trace.v1.Span span, String key) {
    for (var kv : span.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        var v = kv.getValue();
        return v.hasIntValue() ? Long.toString(v.getIntValue()) : v.getStringValue();
      }
    }
    return "";
  }

  static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
      out.append(String.format("%02x", b));
    }
    return out.toString();
  }
}

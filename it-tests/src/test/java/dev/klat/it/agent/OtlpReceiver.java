package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A minimal OTLP/HTTP receiver for tests: parses what arrives with the real OTLP protobuf schema
 * and keeps it for assertions. Anything it cannot parse fails the test that reads {@link
 * #errors()}. {@link #teeTo} makes one that also passes every request on to a collector and answers
 * with the collector's answer (its clock-exchange headers included), so that a test sees the
 * agents' own spans while the collector joins them.
 */
public final class OtlpReceiver implements AutoCloseable {

  private final HttpServer server;
  private final List<ExportTraceServiceRequest> traces = new CopyOnWriteArrayList<>();
  private final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
  private final List<String> errors = new CopyOnWriteArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();
  // The collector's OTLP/HTTP base URL to pass every request on to; null: answer here.
  private final String forwardTo;

  public OtlpReceiver() throws IOException {
    this(null);
  }

  /** A receiver that passes every request on to the collector at {@code collectorEndpoint}. */
  static OtlpReceiver teeTo(String collectorEndpoint) throws IOException {
    return new OtlpReceiver(collectorEndpoint);
  }

  private OtlpReceiver(String forwardTo) throws IOException {
    this.forwardTo = forwardTo;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    server.createContext("/v1/traces", exchange -> handle(exchange, true));
    server.createContext("/v1/metrics", exchange -> handle(exchange, false));
    server.start();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange, boolean isTraces) throws IOException {
    requests.incrementAndGet();
    try (exchange) {
      byte[] raw = exchange.getRequestBody().readAllBytes();
      InputStream body = new java.io.ByteArrayInputStream(raw);
      if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(body);
      }
      byte[] bytes = body.readAllBytes();
      if (forwardTo != null) {
        forward(exchange, raw);
        if (isTraces) {
          traces.add(ExportTraceServiceRequest.parseFrom(bytes));
        } else {
          metrics.add(ExportMetricsServiceRequest.parseFrom(bytes));
        }
        return;
      }
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      if (!"application/x-protobuf".equals(contentType)) {
        errors.add("unexpected Content-Type " + contentType);
      }
      byte[] response;
      if (isTraces) {
        traces.add(ExportTraceServiceRequest.parseFrom(bytes));
        response = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
      } else {
        metrics.add(ExportMetricsServiceRequest.parseFrom(bytes));
        response = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
      }
      exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, response.length);
      exchange.getResponseBody().write(response);
    } catch (IOException | RuntimeException e) {
      errors.add(e.toString());
      exchange.sendResponseHeaders(400, -1);
    }
  }

  // Posts the request as it came to the collector and answers with its status, headers and body.
  private void forward(HttpExchange exchange, byte[] raw) throws IOException {
    java.net.HttpURLConnection connection =
        (java.net.HttpURLConnection)
            java.net
                .URI
                .create(forwardTo + exchange.getRequestURI().getPath())
                .toURL()
                .openConnection();
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!name.equalsIgnoreCase("Content-Length") && !name.equalsIgnoreCase("Host")) {
                values.forEach(v -> connection.addRequestProperty(name, v));
              }
            });
    try (java.io.OutputStream out = connection.getOutputStream()) {
      out.write(raw);
    }
    int status = connection.getResponseCode();
    InputStream answer = status < 400 ? connection.getInputStream() : connection.getErrorStream();
    byte[] response = answer == null ? new byte[0] : answer.readAllBytes();
    connection
        .getHeaderFields()
        .forEach(
            (name, values) -> {
              if (name != null
                  && !name.equalsIgnoreCase("Content-Length")
                  && !name.equalsIgnoreCase("Transfer-Encoding")
                  && !name.equalsIgnoreCase("Date")) {
                values.forEach(v -> exchange.getResponseHeaders().add(name, v));
              }
            });
    exchange.sendResponseHeaders(status, response.length == 0 ? -1 : response.length);
    if (response.length > 0) {
      exchange.getResponseBody().write(response);
    }
    connection.disconnect();
  }

  int requestCount() {
    return requests.get();
  }

  List<String> errors() {
    return errors;
  }

  List<Span> spans() {
    List<Span> spans = new ArrayList<>();
    for (ExportTraceServiceRequest request : traces) {
      request
          .getResourceSpansList()
          .forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
    }
    return spans;
  }

  /** The spans received once there are {@code expected} of them, or after 10 s, whichever first. */
  List<Span> awaitSpans(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (spans().size() < expected && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    return spans();
  }

  /** The newest data point of a cumulative histogram with these attribute values, or null. */
  HistogramDataPoint latestHistogram(String name, String... attributeKeyValues) {
    HistogramDataPoint latest = null;
    for (ExportMetricsServiceRequest request : metrics) {
      for (var resource : request.getResourceMetricsList()) {
        for (var scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(name) || !metric.hasHistogram()) {
              continue;
            }
            for (HistogramDataPoint point : metric.getHistogram().getDataPointsList()) {
              if (matches(point.getAttributesList(), attributeKeyValues)
                  && (latest == null || point.getTimeUnixNano() >= latest.getTimeUnixNano())) {
                latest = point;
              }
            }
          }
        }
      }
    }
    return latest;
  }

  /** The newest value of a cumulative counter (an OTLP monotonic sum) with these attributes. */
  Long latestCounter(String name, String... attributeKeyValues) {
    io.opentelemetry.proto.metrics.v1.NumberDataPoint latest = null;
    for (ExportMetricsServiceRequest request : metrics) {
      for (var resource : request.getResourceMetricsList()) {
        for (var scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(name) || !metric.hasSum()) {
              continue;
            }
            for (var point : metric.getSum().getDataPointsList()) {
              if (matches(point.getAttributesList(), attributeKeyValues)
                  && (latest == null || point.getTimeUnixNano() >= latest.getTimeUnixNano())) {
                latest = point;
              }
            }
          }
        }
      }
    }
    return latest == null ? null : latest.getAsInt();
  }

  /** Every value a gauge with these attribute values reported, oldest export first. */
  List<Double> gaugeValues(String name, String... attributeKeyValues) {
    List<Double> values = new ArrayList<>();
    for (ExportMetricsServiceRequest request : metrics) {
      for (var resource : request.getResourceMetricsList()) {
        for (var scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(name) || !metric.hasGauge()) {
              continue;
            }
            for (var point : metric.getGauge().getDataPointsList()) {
              if (matches(point.getAttributesList(), attributeKeyValues)) {
                values.add(point.getAsDouble());
              }
            }
          }
        }
      }
    }
    return values;
  }

  static boolean matches(List<KeyValue> attributes, String... keyValues) {
    for (int i = 0; i < keyValues.length; i += 2) {
      String key = keyValues[i];
      String value = keyValues[i + 1];
      boolean found =
          attributes.stream()
              .anyMatch(
                  kv -> kv.getKey().equals(key) && kv.getValue().getStringValue().equals(value));
      if (!found) {
        return false;
      }
    }
    return true;
  }

  static String stringAttribute(Span span, String key) {
    return span.getAttributesList().stream()
        .filter(kv -> kv.getKey().equals(key))
        .map(kv -> kv.getValue().getStringValue())
        .findFirst()
        .orElse(null);
  }

  static Long longAttribute(Span span, String key) {
    return span.getAttributesList().stream()
        .filter(kv -> kv.getKey().equals(key))
        .map(kv -> kv.getValue().getIntValue())
        .findFirst()
        .orElse(null);
  }

  /**
   * Checks a consumer span's instants are in their order, fetch request before its response before
   * the poll that returned the record, and returns the poll's.
   */
  static long pollTimeAfterFetch(Span span) {
    long fetchRequest = longAttribute(span, SpanAttributes.FETCH_REQUEST_TIME.name());
    long fetchResponse = longAttribute(span, SpanAttributes.FETCH_RESPONSE_TIME.name());
    long poll = longAttribute(span, SpanAttributes.POLL_TIME.name());
    assertThat(fetchRequest).isLessThanOrEqualTo(fetchResponse);
    assertThat(fetchResponse).isLessThanOrEqualTo(poll);
    return poll;
  }

  static Boolean boolAttribute(Span span, String key) {
    return span.getAttributesList().stream()
        .filter(kv -> kv.getKey().equals(key) && kv.getValue().hasBoolValue())
        .map(kv -> kv.getValue().getBoolValue())
        .findFirst()
        .orElse(null);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

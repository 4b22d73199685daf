package dev.klat.collector;

import com.google.protobuf.ByteString;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A manual benchmark of the whole OTLP/HTTP path (not a test): pre-encoded protobuf requests of 500
 * records (a producer and a consumer span each) posted by one client thread to an in-process
 * collector; prints joined breakdowns per second. Run as in {@code docs/collector.md}.
 */
public final class IngestBench {
  private IngestBench() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int perRequest = 500;
    long base = 1_800_000_000_000_000_000L;
    List<byte[]> bodies = new ArrayList<>();
    for (int r = 0; r < requests; r++) {
      ScopeSpans.Builder scope = ScopeSpans.newBuilder();
      for (int i = 0; i < perRequest; i++) {
        long offset = (long) r * perRequest + i;
        long s = base + offset * 10_000;
        ByteString trace = id(offset + 1, offset + 7);
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(trace)
                .setSpanId(id(2 * offset + 1))
                .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0"))
                .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
                .addAttributes(num(SpanAttributes.SEND_TIME.name(), s))
                .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), s + 1_000_000))
                .addAttributes(num(SpanAttributes.ACK_TIME.name(), s + 5_000_000))
                .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x11)));
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(trace)
                .setSpanId(id(2 * offset + 2))
                .setParentSpanId(id(2 * offset + 1))
                .setKind(Span.SpanKind.SPAN_KIND_CONSUMER)
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0"))
                .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
                .addAttributes(str(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), "g"))
                .addAttributes(num(SpanAttributes.FETCH_REQUEST_TIME.name(), s + 2_000_000))
                .addAttributes(num(SpanAttributes.FETCH_RESPONSE_TIME.name(), s + 6_000_000))
                .addAttributes(num(SpanAttributes.POLL_TIME.name(), s + 7_000_000))
                .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x22)));
      }
      bodies.add(
          ExportTraceServiceRequest.newBuilder()
              .addResourceSpans(
                  ResourceSpans.newBuilder()
                      .setResource(Resource.newBuilder())
                      .addScopeSpans(scope))
              .build()
              .toByteArray());
    }
    try (Collector collector =
        Collector.start(
            CollectorConfig.of(
                Map.of(
                    "otlp.http.port", "0",
                    "otlp.grpc.enabled", "false",
                    "admin.port", "0",
                    "join.max.pending.records", Integer.toString(requests * perRequest + 1))))) {
      HttpClient http = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + collector.otlpAddress().getPort() + "/v1/traces");
      long start = System.nanoTime();
      for (byte[] body : bodies) {
        HttpResponse<Void> r =
            http.send(
                HttpRequest.newBuilder(uri)
                    .header("Content-Type", "application/x-protobuf")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
          throw new IllegalStateException("HTTP " + r.statusCode());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long joined = collector.correlator().stats().joined();
      System.out.printf(
          "%d requests of %d records (%.0f KiB each): %d joins in %.2f s = %.0f joins/s%n",
          requests, perRequest, bodies.get(0).length / 1024.0, joined, seconds, joined / seconds);
    }
  }

  static KeyValue str(String k, String v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setStringValue(v))
        .build();
  }

  static KeyValue num(String k, long v) {
    return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setIntValue(v)).build();
  }

  static ByteString id(long... words) {
    ByteBuffer b = ByteBuffer.allocate(8 * words.length);
    for (long w : words) {
      b.putLong(w);
    }
    return ByteString.copyFrom(b.array());
  }
}

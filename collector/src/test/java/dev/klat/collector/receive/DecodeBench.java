package dev.klat.collector.receive;

import dev.klat.collector.IngestBench;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * A manual benchmark of decoding alone (not a test): {@code IngestBench}'s request bodies decoded
 * over and over on one thread, without HTTP and without the join, each span mapped for the join
 * ({@link SpanMapper}). Every round runs each decoder in turn, interleaved, and prints the thread's
 * CPU time and bytes allocated per span: the hand-written protobuf decoder against the generated
 * classes of opentelemetry-proto (the comparison behind the choice in {@code collector/DESIGN.md}),
 * and the same requests as OTLP/JSON. Steadier than {@code IngestBench} on a shared machine. Run as
 * in {@code docs/benchmarks.md}.
 */
public final class DecodeBench {
  private DecodeBench() {}

  interface Decoder {
    void decode(byte[] body, OtlpProtobuf.SpanSink sink) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    List<byte[]> protobuf = IngestBench.bodies(requests, 0);
    List<byte[]> json = new ArrayList<>();
    for (byte[] body : protobuf) {
      json.add(json(ExportTraceServiceRequest.parseFrom(body)).getBytes(StandardCharsets.UTF_8));
    }
    long spans = (long) requests * 2 * IngestBench.PER_REQUEST;
    // Read from every span, so that the JIT cannot drop the decoding.
    long[] checksum = new long[1];
    OtlpProtobuf.SpanSink sink =
        span -> checksum[0] += SpanMapper.map(span).producer() != null ? 1 : 2;
    String[] names = {"protobuf, hand-written", "protobuf, generated", "json (Jackson streaming)"};
    Decoder[] decoders = {
      (b, s) -> OtlpProtobuf.decodeTraces(b, b.length, s),
      (b, s) -> GeneratedOtlpDecoder.decodeTraces(b, b.length, s),
      (b, s) -> OtlpJson.decodeTraces(b, b.length, s),
    };
    List<List<byte[]>> inputs = List.of(protobuf, protobuf, json);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    for (int round = 0; round < rounds; round++) {
      for (int d = 0; d < decoders.length; d++) {
        long cpuNanos = threads.getCurrentThreadCpuTime();
        long allocated = threads.getThreadAllocatedBytes(thread);
        for (byte[] body : inputs.get(d)) {
          decoders[d].decode(body, sink);
        }
        System.out.printf(
            Locale.ROOT,
            "round %d, %-22s: %5.0f ns of CPU, %5.0f bytes allocated per span%n",
            round,
            names[d],
            (threads.getCurrentThreadCpuTime() - cpuNanos) / (double) spans,
            (threads.getThreadAllocatedBytes(thread) - allocated) / (double) spans);
      }
    }
    System.out.println("checksum " + checksum[0]);
  }

  /** OTLP/JSON of a request: ids as hex, 64-bit integers as strings, as the mapping writes them. */
  static String json(ExportTraceServiceRequest request) {
    HexFormat hex = HexFormat.of();
    StringBuilder out =
        new StringBuilder("{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"spans\":[");
    List<Span> spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
    for (int i = 0; i < spans.size(); i++) {
      Span span = spans.get(i);
      out.append(i == 0 ? "{" : ",{")
          .append("\"traceId\":\"")
          .append(hex.formatHex(span.getTraceId().toByteArray()))
          .append("\",\"spanId\":\"")
          .append(hex.formatHex(span.getSpanId().toByteArray()))
          .append("\",\"parentSpanId\":\"")
          .append(hex.formatHex(span.getParentSpanId().toByteArray()))
          .append("\",\"kind\":")
          .append(span.getKindValue())
          .append(",\"attributes\":[");
      List<KeyValue> attributes = span.getAttributesList();
      for (int a = 0; a < attributes.size(); a++) {
        KeyValue kv = attributes.get(a);
        out.append(a == 0 ? "" : ",")
            .append("{\"key\":\"")
            .append(kv.getKey())
            .append("\",\"value\":{");
        if (kv.getValue().hasStringValue()) {
          out.append("\"stringValue\":\"").append(kv.getValue().getStringValue()).append("\"}}");
        } else {
          out.append("\"intValue\":\"").append(kv.getValue().getIntValue()).append("\"}}");
        }
      }
      out.append("]}");
    }
    return out.append("]}]}]}").toString();
  }
}

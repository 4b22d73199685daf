package dev.klat.collector.receive;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The library alternative to {@link OtlpProtobuf}, for {@code DecodeBench} to compare against: the
 * generated classes of opentelemetry-proto (protobuf-java) parse the request, and each span is
 * copied into the same {@link OtlpSpan} the join reads, so that both produce the same output.
 */
final class GeneratedOtlpDecoder {
  private GeneratedOtlpDecoder() {}

  static void decodeTraces(byte[] body, int length, OtlpProtobuf.SpanSink sink)
      throws MalformedException {
    ExportTraceServiceRequest request;
    try {
      request = ExportTraceServiceRequest.parseFrom(ByteBuffer.wrap(body, 0, length));
    } catch (InvalidProtocolBufferException e) {
      throw new MalformedException(e.getMessage());
    }
    OtlpSpan out = new OtlpSpan();
    for (ResourceSpans rs : request.getResourceSpansList()) {
      Map<String, Object> resource = new LinkedHashMap<>();
      for (KeyValue kv : rs.getResource().getAttributesList()) {
        put(kv, resource);
      }
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        for (Span span : ss.getSpansList()) {
          out.clear();
          ByteString trace = span.getTraceId();
          if (trace.size() == 16) {
            ByteBuffer b = trace.asReadOnlyByteBuffer();
            out.traceIdHigh = b.getLong();
            out.traceIdLow = b.getLong();
          }
          out.spanId = word(span.getSpanId());
          out.parentSpanId = word(span.getParentSpanId());
          out.kind = span.getKindValue();
          out.startNanos = span.getStartTimeUnixNano();
          out.endNanos = span.getEndTimeUnixNano();
          for (KeyValue kv : span.getAttributesList()) {
            AnyValue v = kv.getValue();
            switch (v.getValueCase()) {
              case STRING_VALUE -> out.attributes.put(kv.getKey(), v.getStringValue());
              case INT_VALUE -> out.attributes.put(kv.getKey(), v.getIntValue());
              case DOUBLE_VALUE -> out.attributes.put(kv.getKey(), v.getDoubleValue());
              case BOOL_VALUE -> out.attributes.put(kv.getKey(), v.getBoolValue());
              default -> {}
            }
          }
          out.resource = resource;
          sink.accept(out);
        }
      }
    }
  }

  private static long word(ByteString id) {
    return id.size() == 8 ? id.asReadOnlyByteBuffer().getLong() : 0;
  }

  private static void put(KeyValue kv, Map<String, Object> into) {
    AnyValue v = kv.getValue();
    switch (v.getValueCase()) {
      case STRING_VALUE -> into.put(kv.getKey(), v.getStringValue());
      case INT_VALUE -> into.put(kv.getKey(), v.getIntValue());
      case DOUBLE_VALUE -> into.put(kv.getKey(), v.getDoubleValue());
      case BOOL_VALUE -> into.put(kv.getKey(), v.getBoolValue());
      default -> {}
    }
  }
}

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
        Object value = value(kv.getValue());
        if (value != null) {
          resource.put(kv.getKey(), value);
        }
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
            out.attributes.put(kv.getKey(), value(kv.getValue()));
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

  // The attribute as the hand-written decoder gives it; null for arrays, maps and bytes.
  private static Object value(AnyValue v) {
    return switch (v.getValueCase()) {
      case STRING_VALUE -> v.getStringValue();
      case INT_VALUE -> v.getIntValue();
      case DOUBLE_VALUE -> v.getDoubleValue();
      case BOOL_VALUE -> v.getBoolValue();
      default -> null;
    };
  }
}

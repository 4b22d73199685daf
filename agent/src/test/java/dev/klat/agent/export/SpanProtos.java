package dev.klat.agent.export;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A span as the agent encodes it, parsed back with the real OTLP schema; for other packages. */
public final class SpanProtos {

  private SpanProtos() {}

  public static Span encoded(SpanRecord span) throws Exception {
    return ExportTraceServiceRequest.parseFrom(
            new OtlpEncoder(Map.of("service.name", "test"), "test").encodeSpans(List.of(span)))
        .getResourceSpans(0)
        .getScopeSpans(0)
        .getSpans(0);
  }

  public static Map<String, AnyValue> attributes(List<KeyValue> keyValues) {
    Map<String, AnyValue> attributes = new LinkedHashMap<>();
    for (KeyValue kv : keyValues) {
      attributes.put(kv.getKey(), kv.getValue());
    }
    return attributes;
  }
}

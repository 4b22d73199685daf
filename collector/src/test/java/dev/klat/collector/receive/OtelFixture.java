package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.id;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One span as an OpenTelemetry instrumentation exports it, with its resource and scope, written as
 * OTLP/protobuf (the generated classes) and as OTLP/JSON (by hand, as the SDKs write it), so that a
 * test reads the same span through both decoders.
 */
final class OtelFixture {
  static final long MS = 1_000_000L;
  static final long S = 1_800_000_000_000_000_000L;

  final Map<String, Object> resource = new LinkedHashMap<>();
  final Map<String, Object> attributes = new LinkedHashMap<>();
  final List<long[]> links = new ArrayList<>();
  String scope;
  String scopeVersion = "";
  Span.SpanKind kind = Span.SpanKind.SPAN_KIND_INTERNAL;
  String name = "span";
  long traceIdHigh = 0x0102030405060708L;
  long traceIdLow = 0x090a0b0c0d0e0f10L;
  long spanId = 0x51;
  long parentSpanId;
  long startNanos = S;
  long endNanos = S + MS;
  int statusCode;

  OtelFixture(String scope, Span.SpanKind kind, String name) {
    this.scope = scope;
    this.kind = kind;
    this.name = name;
    resource.put("service.name", "orders-app");
    resource.put("host.name", "node-7");
    resource.put("process.pid", 4242L);
  }

  OtelFixture attr(String key, Object value) {
    attributes.put(key, value);
    return this;
  }

  OtelFixture times(long start, long end) {
    startNanos = start;
    endNanos = end;
    return this;
  }

  OtelFixture ids(long traceIdLow, long spanId, long parentSpanId) {
    this.traceIdLow = traceIdLow;
    this.spanId = spanId;
    this.parentSpanId = parentSpanId;
    return this;
  }

  OtelFixture link(long traceIdHigh, long traceIdLow, long spanId) {
    links.add(new long[] {traceIdHigh, traceIdLow, spanId});
    return this;
  }

  OtelFixture resource(String key, Object value) {
    if (value == null) {
      resource.remove(key);
    } else {
      resource.put(key, value);
    }
    return this;
  }

  OtelFixture status(int code) {
    statusCode = code;
    return this;
  }

  // --- protobuf ---

  Span span() {
    Span.Builder b =
        Span.newBuilder()
            .setTraceId(id(traceIdHigh, traceIdLow))
            .setSpanId(id(spanId))
            .setName(name)
            .setKind(kind)
            .setStartTimeUnixNano(startNanos)
            .setEndTimeUnixNano(endNanos);
    if (parentSpanId != 0) {
      b.setParentSpanId(id(parentSpanId));
    }
    attributes.forEach((k, v) -> b.addAttributes(keyValue(k, v)));
    for (long[] link : links) {
      b.addLinks(Span.Link.newBuilder().setTraceId(id(link[0], link[1])).setSpanId(id(link[2])));
    }
    if (statusCode != 0) {
      b.setStatus(Status.newBuilder().setCodeValue(statusCode).setMessage("failed"));
    }
    return b.build();
  }

  ScopeSpans scopeSpans() {
    return ScopeSpans.newBuilder()
        .setScope(InstrumentationScope.newBuilder().setName(scope).setVersion(scopeVersion))
        .addSpans(span())
        .build();
  }

  ResourceSpans resourceSpans() {
    Resource.Builder r = Resource.newBuilder();
    resource.forEach((k, v) -> r.addAttributes(keyValue(k, v)));
    return ResourceSpans.newBuilder().setResource(r).addScopeSpans(scopeSpans()).build();
  }

  byte[] protobuf() {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(resourceSpans())
        .build()
        .toByteArray();
  }

  private static KeyValue keyValue(String k, Object v) {
    AnyValue.Builder value = AnyValue.newBuilder();
    if (v instanceof String s) {
      value.setStringValue(s);
    } else if (v instanceof Long l) {
      value.setIntValue(l);
    } else if (v instanceof Integer i) {
      value.setIntValue(i);
    } else if (v instanceof Boolean bool) {
      value.setBoolValue(bool);
    } else {
      throw new IllegalArgumentException(k + ": " + v);
    }
    return KeyValue.newBuilder().setKey(k).setValue(value).build();
  }

  // --- OTLP/JSON, as the SDKs write it: hex ids, 64-bit integers as strings, kind as a number ---

  byte[] json() {
    StringBuilder out = new StringBuilder();
    out.append("{\"resourceSpans\":[{\"resource\":{\"attributes\":");
    attributesJson(out, resource);
    out.append("},\"scopeSpans\":[{\"scope\":{\"name\":")
        .append(quote(scope))
        .append(",\"version\":")
        .append(quote(scopeVersion))
        .append("},\"spans\":[");
    spanJson(out);
    out.append("]}]}]}");
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  void spanJson(StringBuilder out) {
    out.append("{\"traceId\":\"")
        .append(String.format("%016x%016x", traceIdHigh, traceIdLow))
        .append("\",\"spanId\":\"")
        .append(String.format("%016x", spanId))
        .append('"');
    if (parentSpanId != 0) {
      out.append(",\"parentSpanId\":\"").append(String.format("%016x", parentSpanId)).append('"');
    }
    out.append(",\"name\":")
        .append(quote(name))
        .append(",\"kind\":")
        .append(kind.getNumber())
        .append(",\"startTimeUnixNano\":\"")
        .append(Long.toUnsignedString(startNanos))
        .append("\",\"endTimeUnixNano\":\"")
        .append(Long.toUnsignedString(endNanos))
        .append("\",\"attributes\":");
    attributesJson(out, attributes);
    out.append(",\"links\":[");
    for (int i = 0; i < links.size(); i++) {
      long[] link = links.get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"traceId\":\"")
          .append(String.format("%016x%016x", link[0], link[1]))
          .append("\",\"spanId\":\"")
          .append(String.format("%016x", link[2]))
          .append("\"}");
    }
    out.append("],\"status\":");
    out.append(statusCode == 0 ? "{}" : "{\"code\":" + statusCode + ",\"message\":\"failed\"}");
    out.append('}');
  }

  private static void attributesJson(StringBuilder out, Map<String, Object> attributes) {
    out.append('[');
    boolean first = true;
    for (Map.Entry<String, Object> e : attributes.entrySet()) {
      out.append(first ? "" : ",").append("{\"key\":").append(quote(e.getKey())).append(",");
      Object v = e.getValue();
      if (v instanceof String s) {
        out.append("\"value\":{\"stringValue\":").append(quote(s)).append("}}");
      } else if (v instanceof Boolean b) {
        out.append("\"value\":{\"boolValue\":").append(b).append("}}");
      } else {
        out.append("\"value\":{\"intValue\":\"").append(v).append("\"}}");
      }
      first = false;
    }
    out.append(']');
  }

  static String quote(String s) {
    return "\"" + OtlpIngest.jsonEscape(s) + "\"";
  }
}

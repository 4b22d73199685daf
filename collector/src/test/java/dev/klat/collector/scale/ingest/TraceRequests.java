package dev.klat.collector.scale.ingest;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.str;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/** Trace requests built with the generated OTLP classes. */
final class TraceRequests {
  static final long TRACE_A = 0x0af7651916cd43ddL;
  static final long TRACE_B = 0x1bf7651916cd43ddL;
  static final long TRACE_C = 0xfff7651916cd43ddL;

  private TraceRequests() {}

  /**
   * Two agents, each with two scopes, their spans of traces A, B and C interleaved; span ids are
   * unique in the request, and the trace id's low word is the trace's constant.
   */
  static ExportTraceServiceRequest threeTraces() {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            agent(
                "agent-1",
                scope("kafka-clients-2.6", span(TRACE_A, 1), span(TRACE_B, 2), span(TRACE_A, 3)),
                scope("klat-sync", span(TRACE_C, 4))))
        .addResourceSpans(
            agent(
                "agent-2",
                scope("kafka-clients-2.6", span(TRACE_B, 5)),
                scope("klat-sync", span(TRACE_A, 6), span(TRACE_C, 7))))
        .build();
  }

  static ResourceSpans agent(String instance, ScopeSpans... scopes) {
    ResourceSpans.Builder b =
        ResourceSpans.newBuilder()
            .setResource(
                Resource.newBuilder()
                    .addAttributes(str("klat.instance.id", instance))
                    .addAttributes(str("service.name", "svc-" + instance)))
            .setSchemaUrl("https://opentelemetry.io/schemas/1.21.0");
    for (ScopeSpans scope : scopes) {
      b.addScopeSpans(scope);
    }
    return b.build();
  }

  static ScopeSpans scope(String name, Span... spans) {
    ScopeSpans.Builder b =
        ScopeSpans.newBuilder()
            .setScope(
                InstrumentationScope.newBuilder()
                    .setName(name)
                    .setVersion("1.0")
                    .addAttributes(str("scope.attr", name)))
            .setSchemaUrl("https://opentelemetry.io/schemas/1.24.0");
    for (Span span : spans) {
      b.addSpans(span);
    }
    return b.build();
  }

  static Span span(long traceIdLow, long spanId) {
    return Span.newBuilder()
        .setTraceId(id(0x5b8efff798038103L, traceIdLow))
        .setSpanId(id(spanId))
        .setName("span-" + spanId)
        .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
        .setStartTimeUnixNano(1_000 * spanId)
        .setEndTimeUnixNano(2_000 * spanId)
        .addAttributes(str("messaging.destination.name", "orders"))
        .build();
  }

  /** The key a trace's piece carries: its id in lower-case hex. */
  static String key(long traceIdLow) {
    return String.format("5b8efff798038103%016x", traceIdLow);
  }
}

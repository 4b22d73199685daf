package dev.klat.collector.scale.ingest;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_A;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_B;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_C;
import static dev.klat.collector.scale.ingest.TraceRequests.agent;
import static dev.klat.collector.scale.ingest.TraceRequests.scope;
import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A consumer span that an OpenTelemetry instrumentation links to its producer, in another trace,
 * travels with the producer's trace (section 10 of the latency model), so that both reach the same
 * join member.
 */
@Tag("jdk-independent")
class TraceSplitterLinkRoutingTest {

  private static Span span(long traceIdLow, long spanId, Span.SpanKind kind, long... linkedTraces) {
    Span.Builder b =
        TraceRequests.span(traceIdLow, spanId).toBuilder().setKind(kind).setParentSpanId(id(0x99));
    for (long linked : linkedTraces) {
      b.addLinks(
          Span.Link.newBuilder()
              .setTraceId(id(0x5b8efff798038103L, linked))
              .setSpanId(id(0x4000 + linked))
              .setTraceState("k=v"));
    }
    return b.build();
  }

  // Span id -> the key of the piece it landed in.
  private static Map<Long, String> route(Span... spans) throws Exception {
    byte[] body =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                agent("node-app", scope("@opentelemetry/instrumentation-kafkajs", spans)))
            .build()
            .toByteArray();
    Map<Long, String> out = new TreeMap<>();
    for (TraceSplitter.Piece piece : TraceSplitter.split(body, body.length)) {
      ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(piece.body());
      for (ResourceSpans rs : parsed.getResourceSpansList()) {
        for (ScopeSpans ss : rs.getScopeSpansList()) {
          for (Span span : ss.getSpansList()) {
            out.put(
                span.getSpanId().asReadOnlyByteBuffer().getLong(),
                new String(piece.key(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return out;
  }

  @Test
  void aLinkedConsumerSpanTravelsWithItsFirstLinksTrace() throws Exception {
    Map<Long, String> routed =
        route(
            span(TRACE_A, 1, Span.SpanKind.SPAN_KIND_PRODUCER),
            // kafkajs eachBatch: a process span in the receive span's trace, linked to the producer
            span(TRACE_B, 2, Span.SpanKind.SPAN_KIND_CONSUMER, TRACE_A, TRACE_C),
            // Confluent.Kafka .NET: a poll span of kind CLIENT, linked to the producer
            span(TRACE_B, 3, Span.SpanKind.SPAN_KIND_CLIENT, TRACE_A));

    assertThat(routed)
        .containsEntry(1L, TraceRequests.key(TRACE_A))
        .containsEntry(2L, TraceRequests.key(TRACE_A))
        .containsEntry(3L, TraceRequests.key(TRACE_A));
  }

  @Test
  void producerSpansAndUnlinkedSpansKeepTheirOwnTrace() throws Exception {
    Map<Long, String> routed =
        route(
            // klat's pipeline output span links to its inputs: a PRODUCER span, never moved
            span(TRACE_A, 1, Span.SpanKind.SPAN_KIND_PRODUCER, TRACE_C),
            span(TRACE_B, 2, Span.SpanKind.SPAN_KIND_CONSUMER),
            span(TRACE_B, 3, Span.SpanKind.SPAN_KIND_INTERNAL, TRACE_C),
            span(TRACE_B, 4, Span.SpanKind.SPAN_KIND_SERVER, TRACE_C));

    assertThat(routed)
        .containsEntry(1L, TraceRequests.key(TRACE_A))
        .containsEntry(2L, TraceRequests.key(TRACE_B))
        .containsEntry(3L, TraceRequests.key(TRACE_B))
        .containsEntry(4L, TraceRequests.key(TRACE_B));
  }

  @Test
  void aLinkWithoutTraceIdLeavesTheSpanInItsOwnTrace() throws Exception {
    Span noTraceLink =
        span(TRACE_B, 5, Span.SpanKind.SPAN_KIND_CONSUMER).toBuilder()
            .addLinks(Span.Link.newBuilder().setSpanId(id(0x77)))
            .build();
    List<Span> spans = new ArrayList<>(List.of(span(TRACE_A, 1, Span.SpanKind.SPAN_KIND_PRODUCER)));
    spans.add(noTraceLink);

    Map<Long, String> routed = route(spans.toArray(Span[]::new));

    assertThat(routed).containsEntry(5L, TraceRequests.key(TRACE_B));
  }
}

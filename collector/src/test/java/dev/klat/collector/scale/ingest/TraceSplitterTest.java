package dev.klat.collector.scale.ingest;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_A;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_B;
import static dev.klat.collector.scale.ingest.TraceRequests.TRACE_C;
import static dev.klat.collector.scale.ingest.TraceRequests.agent;
import static dev.klat.collector.scale.ingest.TraceRequests.scope;
import static dev.klat.collector.scale.ingest.TraceRequests.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.klat.collector.receive.MalformedException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceSplitterTest {

  @Test
  void eachTraceBecomesOneRequestKeyedByItsHexTraceId() throws Exception {
    ExportTraceServiceRequest request = TraceRequests.threeTraces();

    List<TraceSplitter.Piece> pieces = split(request);

    assertThat(pieces)
        .extracting(p -> new String(p.key(), StandardCharsets.UTF_8))
        .containsExactly(
            TraceRequests.key(TRACE_A), TraceRequests.key(TRACE_B), TraceRequests.key(TRACE_C));
    assertThat(pieces).extracting(TraceSplitter.Piece::spans).containsExactly(3, 2, 2);
    List<Long> spanIds = new ArrayList<>();
    for (TraceSplitter.Piece piece : pieces) {
      ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(piece.body());
      for (ResourceSpans rs : parsed.getResourceSpansList()) {
        for (ScopeSpans ss : rs.getScopeSpansList()) {
          assertThat(ss.getSpansList()).isNotEmpty();
          for (Span span : ss.getSpansList()) {
            assertThat(hex(span.getTraceId()).getBytes(StandardCharsets.UTF_8))
                .isEqualTo(piece.key());
            spanIds.add(span.getSpanId().asReadOnlyByteBuffer().getLong());
          }
        }
      }
    }
    assertThat(spanIds).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L);
  }

  @Test
  void piecesKeepTheirResourcesAndScopesWithAttributesAndSchemaUrls() throws Exception {
    ExportTraceServiceRequest request = TraceRequests.threeTraces();

    ExportTraceServiceRequest traceA =
        ExportTraceServiceRequest.parseFrom(split(request).get(0).body());

    // A has spans 1 and 3 in agent-1's first scope, span 6 in agent-2's second scope.
    ResourceSpans agent1 = request.getResourceSpans(0);
    ResourceSpans agent2 = request.getResourceSpans(1);
    ExportTraceServiceRequest expected =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                agent1.toBuilder()
                    .clearScopeSpans()
                    .addScopeSpans(
                        agent1.getScopeSpans(0).toBuilder()
                            .clearSpans()
                            .addSpans(span(TRACE_A, 1))
                            .addSpans(span(TRACE_A, 3))))
            .addResourceSpans(
                agent2.toBuilder()
                    .clearScopeSpans()
                    .addScopeSpans(
                        agent2.getScopeSpans(1).toBuilder()
                            .clearSpans()
                            .addSpans(span(TRACE_A, 6))))
            .build();
    assertThat(traceA).isEqualTo(expected);
    assertThat(traceA.getResourceSpans(0).getResource().getAttributesList())
        .isEqualTo(agent1.getResource().getAttributesList());
  }

  @Test
  void spansWithoutATraceIdGoTogetherUnderAnEmptyKey() throws Exception {
    Span noId = span(0, 1).toBuilder().clearTraceId().build();
    Span zeros = span(0, 2).toBuilder().setTraceId(id(0, 0)).build();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(agent("agent-1", scope("s", noId, span(TRACE_A, 3), zeros)))
            .build();

    List<TraceSplitter.Piece> pieces = split(request);

    assertThat(pieces).hasSize(2);
    assertThat(pieces.get(0).key()).isEmpty();
    assertThat(
            ExportTraceServiceRequest.parseFrom(pieces.get(0).body())
                .getResourceSpans(0)
                .getScopeSpans(0)
                .getSpansList())
        .containsExactly(noId, zeros);
  }

  @Test
  void aRequestOfOneTraceIsForwardedAsItCame() throws Exception {
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(agent("agent-1", scope("s", span(TRACE_A, 1), span(TRACE_A, 2))))
            .build();

    List<TraceSplitter.Piece> pieces = split(request);

    assertThat(pieces).hasSize(1);
    assertThat(pieces.get(0).body()).isEqualTo(request.toByteArray());
    assertThat(pieces.get(0).spans()).isEqualTo(2);
  }

  @Test
  void aRequestWithoutSpansGivesNoPieces() throws Exception {
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder().addResourceSpans(agent("agent-1")).build();

    assertThat(split(request)).isEmpty();
  }

  @Test
  void aTruncatedBodyIsRefused() {
    byte[] body = TraceRequests.threeTraces().toByteArray();

    assertThatThrownBy(() -> TraceSplitter.split(body, body.length - 3))
        .isInstanceOf(MalformedException.class);
  }

  @Test
  void aTraceIdOfTheWrongLengthIsRefused() {
    Span shortId =
        span(TRACE_A, 1).toBuilder().setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3})).build();
    byte[] body =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(agent("agent-1", scope("s", shortId)))
            .build()
            .toByteArray();

    assertThatThrownBy(() -> TraceSplitter.split(body, body.length))
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("id of 3 bytes");
  }

  @Test
  void onlyTheBodysLengthIsRead() throws Exception {
    byte[] body = TraceRequests.threeTraces().toByteArray();
    byte[] padded = Arrays.copyOf(body, body.length + 100);
    Arrays.fill(padded, body.length, padded.length, (byte) 0xff);

    assertThat(TraceSplitter.split(padded, body.length)).hasSize(3);
  }

  private static List<TraceSplitter.Piece> split(ExportTraceServiceRequest request)
      throws MalformedException, InvalidProtocolBufferException {
    byte[] body = request.toByteArray();
    return TraceSplitter.split(body, body.length);
  }

  private static String hex(ByteString id) {
    StringBuilder s = new StringBuilder();
    for (byte b : id.toByteArray()) {
      s.append(String.format("%02x", b));
    }
    return s.toString();
  }
}

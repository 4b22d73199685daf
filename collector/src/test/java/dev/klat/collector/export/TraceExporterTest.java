package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.BrokerInstants;
import dev.klat.collector.correlate.ConsumerSpan;
import dev.klat.collector.correlate.Correlator;
import dev.klat.collector.correlate.JoinedBreakdown;
import dev.klat.collector.correlate.ProducerSpan;
import dev.klat.collector.correlate.RecordKey;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceExporterTest {
  static final long MS = 1_000_000L;
  static final long T0 = 1_800_000_000_000L * MS;

  static JoinedBreakdown joinLogAppendTimeRecord() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c =
        new Correlator(
            new Correlator.Settings(60_000 * MS, 10, 60_000 * MS, 10),
            () -> 0L,
            BrokerInstants.logAppendTime(),
            out::add);
    RecordKey key = new RecordKey("orders", 2, 9);
    // L read as T0 + 4 ms on the broker: 4.5 ms, the middle of its millisecond. Its bounds allow
    // the
    // broker's clock as it reads, so L stays there (shown truncated to whole ms below).
    c.offerProducer(
        new ProducerSpan(key, 1, 2, 3, 0x11, T0, T0 + 2 * MS, T0 + 10 * MS, T0 / MS + 4, 1, "p"));
    // F = 20, R = 25, P = 27 ms.
    c.offerConsumer(
        new ConsumerSpan(
            key,
            "g",
            1,
            2,
            4,
            3,
            0x22,
            T0 + 20 * MS,
            T0 + 25 * MS,
            T0 + 27 * MS,
            -1,
            "c",
            -1,
            false,
            0));
    return out.get(0);
  }

  @Test
  void aBreakdownBecomesARootAndOneChildPerSegmentPart() throws Exception {
    JoinedBreakdown jb = joinLogAppendTimeRecord();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.parseFrom(TraceExporter.encode(List.of(jb)));
    List<Span> spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
    Span root = spans.stream().filter(s -> s.getParentSpanId().isEmpty()).findFirst().orElseThrow();
    assertThat(root.getStartTimeUnixNano()).isEqualTo(T0);
    assertThat(root.getEndTimeUnixNano()).isEqualTo(T0 + 27 * MS);
    assertThat(root.getTraceId().toByteArray())
        .containsExactly(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2);

    Map<String, long[]> children = new HashMap<>();
    Map<String, String> quality = new HashMap<>();
    for (Span s : spans) {
      if (s.getParentSpanId().equals(root.getSpanId())) {
        children.put(
            s.getName(),
            new long[] {(s.getStartTimeUnixNano() - T0) / MS, (s.getEndTimeUnixNano() - T0) / MS});
        s.getAttributesList().stream()
            .filter(kv -> kv.getKey().equals("klat.quality"))
            .forEach(kv -> quality.put(s.getName(), kv.getValue().getStringValue()));
      }
    }
    // Without broker data H is R = 25 ms (fetch-response bound): commit runs to R, the fetch part
    // is empty, F is before H so catch-up has no lag part, only the buffer wait R..P.
    assertThat(children.get("produce")).containsExactly(0, 2);
    assertThat(children.get("publish")).containsExactly(2, 4);
    assertThat(children.get("commit")).containsExactly(4, 25);
    assertThat(children.get("fetch")).containsExactly(25, 25);
    assertThat(children.get("catch-up (buffer)")).containsExactly(25, 27);
    assertThat(children).doesNotContainKey("catch-up (lag)");
    assertThat(quality)
        .containsEntry("produce", "exact")
        .containsEntry("publish", "log-append-time");
    long total = 0;
    for (long[] c : children.values()) {
      total += c[1] - c[0];
    }
    assertThat(total).isEqualTo(27);
    // Re-exporting the same breakdown gives the same span ids: a backend deduplicates.
    ExportTraceServiceRequest again =
        ExportTraceServiceRequest.parseFrom(TraceExporter.encode(List.of(jb)));
    assertThat(again.getResourceSpans(0).getScopeSpans(0).getSpansList())
        .extracting(Span::getSpanId)
        .containsExactlyElementsOf(spans.stream().map(Span::getSpanId).toList());
  }
}

package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.RecordKey;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BreakdownSpansTest {
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
    // the broker's clock as it reads, so L stays there (shown truncated to whole ms below).
    c.offerProducer(
        new ProducerSpan(
            key,
            1,
            2,
            3,
            0x11,
            T0,
            T0 + 2 * MS,
            T0 + 10 * MS,
            T0 / MS + 4,
            1,
            "p",
            ProducerEvidence.UNKNOWN));
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
            ConsumerEvidence.UNKNOWN,
            false,
            0));
    return out.get(0);
  }

  @Test
  void aBreakdownBecomesARootAndOneChildPerSegmentPart() {
    JoinedBreakdown jb = joinLogAppendTimeRecord();
    List<BreakdownSpan> spans = BreakdownSpans.of(jb);
    SpanData root =
        spans.stream().filter(s -> !s.getParentSpanContext().isValid()).findFirst().orElseThrow();
    assertThat(root.getStartEpochNanos()).isEqualTo(T0);
    assertThat(root.getEndEpochNanos()).isEqualTo(T0 + 27 * MS);
    assertThat(root.getTraceId()).isEqualTo("00000000000000010000000000000002");
    assertThat(root.getName()).isEqualTo("klat orders g");

    Map<String, long[]> children = new HashMap<>();
    Map<String, String> quality = new HashMap<>();
    for (SpanData s : spans) {
      if (s.getParentSpanId().equals(root.getSpanId())) {
        assertThat(s.getTraceId()).isEqualTo(root.getTraceId());
        children.put(
            s.getName(),
            new long[] {(s.getStartEpochNanos() - T0) / MS, (s.getEndEpochNanos() - T0) / MS});
        quality.put(s.getName(), s.getAttributes().get(AttributeKey.stringKey("klat.quality")));
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
    assertThat(root.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")))
        .isEqualTo(9L);
    // Re-exporting the same breakdown gives the same span ids: a backend deduplicates.
    assertThat(BreakdownSpans.of(jb))
        .extracting(SpanData::getSpanId)
        .containsExactlyElementsOf(spans.stream().map(SpanData::getSpanId).toList())
        .doesNotHaveDuplicates();
  }

  @Test
  void thePublishPartCarriesTheProduceRequestTimesTheLeadersProbeMeasured() {
    JoinedBreakdown plain = joinLogAppendTimeRecord();
    JoinedBreakdown jb =
        new JoinedBreakdown(
            plain.key(),
            plain.group(),
            plain.traceIdHigh(),
            plain.traceIdLow(),
            plain.producerSpanId(),
            plain.consumerSpanId(),
            plain.breakdown(),
            plain.consumerOffset(),
            plain.brokerOffset(),
            plain.flagged(),
            plain.e2eFlagged(),
            plain.leaderNodeId(),
            plain.commitFollowerId(),
            1_200_000,
            -1,
            plain.producerEvidence(),
            plain.consumerEvidence());
    AttributeKey<Long> queue = AttributeKey.longKey("klat.produce_request.queue_ns");
    AttributeKey<Long> local = AttributeKey.longKey("klat.produce_request.local_ns");

    for (SpanData s : BreakdownSpans.of(jb)) {
      boolean publish = s.getName().equals("publish");
      assertThat(s.getAttributes().get(queue))
          .as(s.getName())
          .isEqualTo(publish ? 1_200_000L : null);
      assertThat(s.getAttributes().get(local)).as("unknown: absent").isNull();
    }
    for (SpanData s : BreakdownSpans.of(plain)) {
      assertThat(s.getAttributes().get(queue)).isNull();
    }
  }

  @Test
  void theRootSaysHowTheRecordWasCapturedAndAProducerOnlyTailRecordHasNoGroup() {
    JoinedBreakdown sampled = joinLogAppendTimeRecord();
    JoinedBreakdown producerOnly =
        new JoinedBreakdown(
            sampled.key(),
            null,
            sampled.traceIdHigh(),
            sampled.traceIdLow(),
            sampled.producerSpanId(),
            0,
            sampled.breakdown(),
            null,
            null,
            sampled.flagged(),
            false,
            sampled.leaderNodeId(),
            -1,
            -1,
            -1,
            sampled.producerEvidence(),
            sampled.consumerEvidence(),
            dev.klat.model.Capture.TAIL);
    AttributeKey<String> capture = AttributeKey.stringKey("klat.capture");

    SpanData sampledRoot = BreakdownSpans.of(sampled).get(0);
    SpanData tailRoot = BreakdownSpans.of(producerOnly).get(0);

    assertThat(sampledRoot.getAttributes().get(capture)).isEqualTo("sampled");
    assertThat(tailRoot.getAttributes().get(capture)).isEqualTo("tail");
    assertThat(tailRoot.getName()).isEqualTo("klat orders");
    assertThat(
            tailRoot.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name")))
        .isNull();
    assertThat(tailRoot.getSpanId()).isNotEqualTo(sampledRoot.getSpanId());
  }
}

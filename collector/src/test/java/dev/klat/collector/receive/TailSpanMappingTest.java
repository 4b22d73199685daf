package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.Capture;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SpanMapper} reads how a span was captured (section 8 of the latency model). */
class TailSpanMappingTest {
  private static final long S = 1_800_000_000_123_000_000L;
  private static final long MS = TailOtlpSpans.MS;

  private static SpanMapper.Result map(Span.Builder span) throws MalformedException {
    List<SpanMapper.Result> out =
        OtlpDecodingTest.decodeAndMap(TailOtlpSpans.request(0x55, span.build()));
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  @Test
  void aProducerTailSpanCarriesItsCaptureThresholdAndDerivedTraceId() throws Exception {
    ProducerSpan p = map(TailOtlpSpans.producer("orders", 3, 42, S)).producer();

    assertThat(p.capture()).isEqualTo(Capture.TAIL);
    assertThat(p.tail()).isTrue();
    assertThat(p.tailThresholdNanos()).isEqualTo(25 * MS);
    assertThat(p.traceIdHigh()).isEqualTo(TailOtlpSpans.derivedHigh("orders", 3, 42));
    assertThat(p.traceIdLow()).isEqualTo(TailOtlpSpans.derivedLow("orders", 3, 42));
  }

  @Test
  void aConsumerTailSpanCarriesItsCaptureThresholdAndCreateTimestamp() throws Exception {
    ConsumerSpan c = map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)).consumer();

    assertThat(c.capture()).isEqualTo(Capture.TAIL);
    assertThat(c.tailThresholdNanos()).isEqualTo(30 * MS);
    assertThat(c.createTimeMs()).isEqualTo(S / MS);
    assertThat(c.logAppendTimeMs()).isEqualTo(-1);
  }

  @Test
  void aLogAppendTimeTimestampIsNotACreateTimestamp() throws Exception {
    ConsumerSpan c =
        map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)
                .addAttributes(str(SpanAttributes.RECORD_TIMESTAMP_TYPE.name(), "LogAppendTime")))
            .consumer();

    assertThat(c.createTimeMs()).isEqualTo(-1);
    assertThat(c.logAppendTimeMs()).isEqualTo(S / MS);
  }

  @Test
  void aSpanWithoutCaptureIsSampledAndAnUnknownCaptureOrBadThresholdIsNoError() throws Exception {
    Span.Builder sampled = TailOtlpSpans.producer("orders", 3, 42, S);
    sampled.removeAttributes(sampled.getAttributesCount() - 1); // the threshold
    sampled.removeAttributes(sampled.getAttributesCount() - 1); // the capture
    ProducerSpan p = map(sampled).producer();
    assertThat(p.capture()).isEqualTo(Capture.SAMPLED);
    assertThat(p.tailThresholdNanos()).isEqualTo(-1);

    // The last value of a key wins, as for every attribute.
    ConsumerSpan c =
        map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)
                .addAttributes(str(SpanAttributes.CAPTURE.name(), "TAIL!"))
                .addAttributes(num(SpanAttributes.TAIL_THRESHOLD_NANOS.name(), -5)))
            .consumer();
    assertThat(c).as("the span is still joined").isNotNull();
    assertThat(c.capture()).isEqualTo(Capture.SAMPLED);
    assertThat(c.tailThresholdNanos()).isEqualTo(-1);
  }
}

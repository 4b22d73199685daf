package dev.klat.agent.tail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.export.SpanRecord;
import dev.klat.model.TailTraceIds;
import org.junit.jupiter.api.Test;

class TailSpansTest {

  @Test
  void aTailSpanCarriesTheDerivedTraceIdTheCaptureAndTheThreshold() {
    long hash = TailTraceIds.topicHash("orders");
    SpanRecord span = TailSpans.mark(new SpanRecord(), hash, 3, 1234L, 250_000_000L);
    assertThat(span.traceIdHigh()).isEqualTo(TailTraceIds.high(hash, 3, 1234L));
    assertThat(span.traceIdLow()).isEqualTo(TailTraceIds.low(hash, 3, 1234L));
    assertThat(TailTraceIds.isDerived(span.traceIdHigh())).isTrue();
    assertThat(span.attributeCount()).isEqualTo(2);
    // A value of the wrong type would be dropped, not put.
    assertThat(span.droppedAttributeCount()).isZero();
  }
}

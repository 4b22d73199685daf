package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SpanMapper} reads a producer span's transaction ({@code klat.producer.transactional},
 * {@code C}) and a consumer span's isolation level (section 9 of the latency model).
 */
class TransactionSpanMappingTest {
  private static final long S = 1_800_000_000_123_000_000L;
  private static final long MS = TailOtlpSpans.MS;

  private static SpanMapper.Result map(Span.Builder span) throws MalformedException {
    List<SpanMapper.Result> out =
        OtlpDecodingTest.decodeAndMap(TailOtlpSpans.request(0x55, span.build()));
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  @Test
  void aTransactionalProducerSpanCarriesItsCommit() throws Exception {
    ProducerSpan p =
        map(TailOtlpSpans.producer("orders", 3, 42, S)
                .addAttributes(num(SpanAttributes.PRODUCER_TRANSACTIONAL.name(), 1))
                .addAttributes(num(SpanAttributes.TXN_COMMIT_TIME.name(), S + 80 * MS)))
            .producer();

    assertThat(p.transaction().transactional()).isTrue();
    assertThat(p.transaction().commitNanos()).isEqualTo(S + 80 * MS);
  }

  @Test
  void aTransactionalSpanWithoutOrWithABadCommitIsStillTransactional() throws Exception {
    ProducerSpan p =
        map(TailOtlpSpans.producer("orders", 3, 42, S)
                .addAttributes(num(SpanAttributes.PRODUCER_TRANSACTIONAL.name(), 1))
                .addAttributes(num(SpanAttributes.TXN_COMMIT_TIME.name(), -7)))
            .producer();

    assertThat(p).as("the span is still joined").isNotNull();
    assertThat(p.transaction().transactional()).isTrue();
    assertThat(p.transaction().hasCommit()).isFalse();
  }

  @Test
  void aSpanWithoutTheAttributesIsOutsideATransactionAndReadsUncommitted() throws Exception {
    assertThat(
            map(TailOtlpSpans.producer("orders", 3, 42, S))
                .producer()
                .transaction()
                .transactional())
        .isFalse();
    assertThat(
            map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)).consumer().readCommitted())
        .isFalse();
  }

  @Test
  void aConsumerSpanCarriesItsIsolationLevel() throws Exception {
    ConsumerSpan committed =
        map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)
                .addAttributes(
                    str(SpanAttributes.CONSUMER_ISOLATION_LEVEL.name(), "read_committed")))
            .consumer();
    ConsumerSpan uncommitted =
        map(TailOtlpSpans.consumer("orders", 3, 42, "billing", S)
                .addAttributes(
                    str(SpanAttributes.CONSUMER_ISOLATION_LEVEL.name(), "read_uncommitted")))
            .consumer();

    assertThat(committed.readCommitted()).isTrue();
    assertThat(uncommitted.readCommitted()).isFalse();
  }
}

package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ShareDelivery;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SpanMapper} reads a share consumer's span as one delivery (section 11 of the latency
 * model): {@code klat.consumer.group_type=share}, the delivery count and the acknowledgement.
 */
class ShareSpanMappingTest {
  private static final long S = 1_800_000_000_123_000_000L;
  private static final long MS = TailOtlpSpans.MS;

  private static SpanMapper.Result map(Span.Builder span) throws MalformedException {
    List<SpanMapper.Result> out =
        OtlpDecodingTest.decodeAndMap(TailOtlpSpans.request(0x55, span.build()));
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  private static Span.Builder delivery(long count) {
    return TailOtlpSpans.consumer("jobs", 0, 42, "workers", S)
        .addAttributes(str(SpanAttributes.CONSUMER_GROUP_TYPE.name(), "share"))
        .addAttributes(num(SpanAttributes.SHARE_DELIVERY_COUNT.name(), count));
  }

  @Test
  void anAcceptedDeliveryCarriesItsCountAndAcknowledgement() throws Exception {
    ConsumerSpan c =
        map(delivery(2)
                .addAttributes(num(SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name(), S + 90 * MS))
                .addAttributes(str(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name(), "accept")))
            .consumer();

    assertThat(c.share()).isEqualTo(new ShareDelivery(2, S + 90 * MS, "accept", null));
    assertThat(c.share().accepted()).isTrue();
    assertThat(c.group()).isEqualTo("workers");
  }

  @Test
  void aDeliveryWithoutAcknowledgementAndOneRefusedForALostLock() throws Exception {
    ConsumerSpan gaveUp = map(delivery(1)).consumer();
    ConsumerSpan lost =
        map(delivery(1)
                .addAttributes(num(SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name(), S + 90 * MS))
                .addAttributes(str(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name(), "accept"))
                .addAttributes(
                    str(
                        SpanAttributes.SHARE_ACKNOWLEDGE_ERROR.name(),
                        "InvalidRecordStateException")))
            .consumer();

    assertThat(gaveUp.share().acknowledged()).isFalse();
    assertThat(gaveUp.share().acknowledgeNanos()).isEqualTo(ShareDelivery.NOT_ACKNOWLEDGED);
    assertThat(lost.share().accepted()).isFalse();
    assertThat(lost.share().acknowledgeError()).isEqualTo("InvalidRecordStateException");
  }

  @Test
  void aConsumerGroupsSpanIsNoDelivery() throws Exception {
    assertThat(map(TailOtlpSpans.consumer("jobs", 0, 42, "workers", S)).consumer().share())
        .isNull();
  }

  @Test
  void aShareSpanWithoutOrWithABadDeliveryCountOrAnUnknownTypeIsRefused() throws Exception {
    SpanMapper.Result missing =
        map(
            TailOtlpSpans.consumer("jobs", 0, 42, "workers", S)
                .addAttributes(str(SpanAttributes.CONSUMER_GROUP_TYPE.name(), "share")));
    SpanMapper.Result zero = map(delivery(0));
    SpanMapper.Result huge = map(delivery(1_000_000));
    SpanMapper.Result type =
        map(delivery(1).addAttributes(str(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name(), "maybe")));

    for (SpanMapper.Result r : List.of(missing, zero, huge, type)) {
      assertThat(r.consumer()).isNull();
      assertThat(r.reason()).isEqualTo(SpanMapper.REASON_INCOMPLETE);
    }
    assertThat(missing.rejected()).contains("klat.share.delivery_count");
    assertThat(type.rejected()).contains("accept, release, reject or renew");
  }
}

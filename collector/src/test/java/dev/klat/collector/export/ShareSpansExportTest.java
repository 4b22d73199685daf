package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareSpans;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.api.common.AttributeKey;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The exported trace of a redelivered share-group record shows each delivery (section 11). */
class ShareSpansExportTest {

  @Test
  void aRedeliveredRecordsTraceSplitsCatchUpAtTheFirstAcquisitionAndShowsEachDelivery() {
    JoinedBreakdown jb = ShareSpans.records("jobs", 0, 1, 2012).get(0);

    Map<String, BreakdownSpan> byName =
        BreakdownSpans.of(jb).stream()
            .collect(Collectors.toMap(BreakdownSpan::name, s -> s, (a, b) -> a));

    assertThat(byName)
        .containsKeys(
            "catch-up (until first acquired)",
            "catch-up (redelivery)",
            "fetch",
            "delivery 1: lock-timeout",
            "delivery 2: accept");
    // H at 10 ms (the ack), R(1) at 12, F(2) at 2012, R(2) at 2013.
    BreakdownSpan redelivery = byName.get("catch-up (redelivery)");
    assertThat(redelivery.startEpochNanos()).isEqualTo(Spans.ms(12));
    assertThat(redelivery.endEpochNanos()).isEqualTo(Spans.ms(2012));
    BreakdownSpan first = byName.get("delivery 1: lock-timeout");
    assertThat(first.startEpochNanos()).isEqualTo(Spans.ms(12));
    assertThat(
            first
                .attributes()
                .get(AttributeKey.longKey(SpanAttributes.SHARE_DELIVERY_COUNT.name())))
        .isEqualTo(1L);
    BreakdownSpan second = byName.get("delivery 2: accept");
    assertThat(
            second
                .attributes()
                .get(AttributeKey.stringKey(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name())))
        .isEqualTo("accept");
    assertThat(second.endEpochNanos()).isEqualTo(Spans.ms(2017));
  }

  @Test
  void aRecordDeliveredOnceHasOneDeliveryAndTheUsualParts() {
    List<BreakdownSpan> spans = BreakdownSpans.of(ShareSpans.records("jobs", 1, 0, 0).get(0));

    assertThat(spans)
        .extracting(BreakdownSpan::name)
        .contains("delivery 1: accept", "catch-up (lag)")
        .doesNotContain("catch-up (redelivery)");
  }
}

package dev.klat.collector.aggregate;

import static dev.klat.collector.aggregate.RecentBreakdownsTest.asTail;
import static dev.klat.collector.aggregate.RecentBreakdownsTest.breakdown;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.TagKeys;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BreakdownMetricsTest {

  private static Exposition.Series produce(List<Exposition.Series> all, String capture, String g) {
    return all.stream()
        .filter(s -> s.labels().get(TagKeys.SEGMENT).equals("produce"))
        .filter(s -> s.labels().get(TagKeys.CAPTURE).equals(capture))
        .filter(s -> s.labels().get(TagKeys.GROUP).equals(g))
        .findFirst()
        .orElseThrow(() -> new AssertionError(capture + " " + g + " not in " + all));
  }

  @Test
  void tailRecordsGetTheirOwnSeriesAndAProducerOnlyOneAnEmptyGroup() {
    BreakdownMetrics metrics = new BreakdownMetrics(100, () -> 0L);
    for (int i = 0; i < 3; i++) {
      metrics.record(breakdown("orders", 1_000_000, 5_000_000));
    }
    metrics.record(asTail(breakdown("orders", 300_000_000, 400_000_000), "g"));
    metrics.record(asTail(breakdown("orders", 300_000_000, 400_000_000), null));

    List<Exposition.Series> series = metrics.segmentSeries();

    assertThat(series).allSatisfy(s -> assertThat(s.labels()).containsKey(TagKeys.CAPTURE));
    assertThat(produce(series, "sampled", "g").count()).isEqualTo(3);
    assertThat(produce(series, "tail", "g").count()).isEqualTo(1);
    assertThat(produce(series, "tail", "").count()).isEqualTo(1);
    assertThat(produce(series, "tail", "g").sum()).isEqualTo(0.3);
    assertThat(series.get(0).labels().keySet())
        .containsExactly(
            TagKeys.TOPIC,
            TagKeys.GROUP,
            TagKeys.BROKER,
            TagKeys.SEGMENT,
            TagKeys.QUALITY,
            TagKeys.CAPTURE);
  }

  @Test
  void aBucketsExemplarIsATailRecordWhileItHoldsAndTheSampledSeriesLinksToIt() {
    AtomicLong now = new AtomicLong(1_000_000);
    BreakdownMetrics metrics = new BreakdownMetrics(100, now::get);
    JoinedBreakdown sampled = breakdown("orders", 300_000_000, 400_000_000);
    metrics.record(sampled);
    JoinedBreakdown tail = withTrace(asTail(breakdown("orders", 300_000_000, 400_000_000), "g"));
    metrics.record(tail);
    int bucket = Buckets.indexOfNanos(300_000_000);
    int e2eBucket = Buckets.indexOfNanos(400_000_000);

    // A newer sampled record in the same bucket does not replace the tail record's exemplar.
    now.addAndGet(1_000);
    metrics.record(sampled);
    Exposition.Series sampledProduce = produce(metrics.segmentSeries(), "sampled", "g");
    assertThat(sampledProduce.count()).isEqualTo(2);
    assertThat(sampledProduce.exemplars()[bucket].traceIdHex()).isEqualTo(tail.traceIdHex());
    assertThat(metrics.e2eExemplars("orders", "g")[e2eBucket].traceIdHex())
        .isEqualTo(tail.traceIdHex());

    // After the hold, the newest record's again.
    now.addAndGet(BreakdownMetrics.TAIL_EXEMPLAR_HOLD_MILLIS);
    metrics.record(sampled);
    assertThat(produce(metrics.segmentSeries(), "sampled", "g").exemplars()[bucket].traceIdHex())
        .isEqualTo(sampled.traceIdHex());
  }

  private static JoinedBreakdown withTrace(JoinedBreakdown b) {
    return new JoinedBreakdown(
        b.key(),
        b.group(),
        0x7a11000000000001L,
        0x42,
        b.producerSpanId(),
        b.consumerSpanId(),
        b.breakdown(),
        b.consumerOffset(),
        b.brokerOffset(),
        b.flagged(),
        b.e2eFlagged(),
        b.leaderNodeId(),
        b.commitFollowerId(),
        b.requestQueueNanos(),
        b.requestLocalNanos(),
        b.producerEvidence(),
        b.consumerEvidence(),
        b.capture());
  }
}

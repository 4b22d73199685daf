package dev.klat.collector.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareSpans;
import dev.klat.model.TagKeys;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The share groups' series of {@code /metrics} (section 11 of the latency model). */
class ShareMetricsTest {

  @Test
  void redeliveriesAreCountedByCauseAndThePartIsAHistogramPerTopicAndShareGroup() {
    BreakdownMetrics metrics = new BreakdownMetrics(10, () -> 1_000L);
    for (JoinedBreakdown b : ShareSpans.records("jobs", 7, 3, 2012)) {
      metrics.record(b);
    }

    List<Exposition.Series> redeliveries = metrics.shareRedeliveriesSeries();
    assertThat(redeliveries)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.labels())
                  .isEqualTo(
                      Map.of(
                          TagKeys.TOPIC,
                          "jobs",
                          TagKeys.GROUP,
                          ShareSpans.GROUP,
                          TagKeys.CAUSE,
                          "lock-timeout"));
              assertThat(s.value()).isEqualTo(3);
            });
    assertThat(metrics.shareRecordsSeries())
        .singleElement()
        .satisfies(s -> assertThat(s.value()).isEqualTo(10));
    assertThat(metrics.shareRedeliverySeries())
        .singleElement()
        .satisfies(
            s -> {
              // First acquired at 12 ms; the counted deliveries fetched at 2012, 2013 and 2014 ms.
              assertThat(s.sum()).isCloseTo(6.003, org.assertj.core.data.Offset.offset(1e-9));
              assertThat(s.count()).isEqualTo(3);
            });
  }

  @Test
  void aConsumerGroupHasNoShareSeriesAndShareGroupsShareThePairCap() {
    BreakdownMetrics metrics = new BreakdownMetrics(1, () -> 1_000L);
    for (JoinedBreakdown b : ShareSpans.records("a", 0, 1, 2012)) {
      metrics.record(b);
    }
    for (JoinedBreakdown b : ShareSpans.records("b", 0, 1, 2012)) {
      metrics.record(b);
    }

    assertThat(metrics.shareRedeliveriesSeries())
        .extracting(s -> s.labels().get(TagKeys.TOPIC))
        .containsExactly("a", BreakdownMetrics.OTHER);
    assertThat(metrics.overflow()).isEqualTo(1);
  }
}

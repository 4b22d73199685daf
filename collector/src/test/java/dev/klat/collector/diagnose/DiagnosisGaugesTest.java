package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.TopicGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DiagnosisGaugesTest {
  private static final long SECOND = 1_000_000_000L;

  private long nowNanos = 100 * SECOND;
  private final AtomicInteger diagnoses = new AtomicInteger();
  private final List<Finding> findings = new ArrayList<>();
  private final DiagnosisGauges gauges =
      new DiagnosisGauges(
          (window, now, max) -> List.of(new TopicGroup("orders", "billing", 100)),
          (topic, group, window) -> {
            diagnoses.incrementAndGet();
            return new DiagnosisReport(100, 0.5, 5, 0.4, List.copyOf(findings), null);
          },
          300 * SECOND,
          15 * SECOND,
          20,
          () -> nowNanos);

  @Test
  void eachFindingIsASeriesWithItsTopicGroupSegmentAndKnob() {
    findings.add(new Finding("publish", "broker 3 follower fetch", 0.6, 0.24, Map.of(), "s"));
    findings.add(new Finding("produce", "linger.ms", 0.2, 0.08, Map.of(), "s"));

    List<Exposition.Series> series = gauges.series();

    assertThat(series).hasSize(2);
    assertThat(series.get(0).labels())
        .containsExactly(
            Map.entry("topic", "orders"),
            Map.entry("group", "billing"),
            Map.entry("segment", "publish"),
            Map.entry("knob", "broker 3 follower fetch"));
    assertThat(series.get(0).value()).isEqualTo(0.6);
  }

  @Test
  void aScrapeWithinTheIntervalGetsTheLatestAndAFindingThatNoLongerHoldsLeaves() {
    findings.add(new Finding("produce", "linger.ms", 0.9, 0.36, Map.of(), "s"));
    assertThat(gauges.series()).hasSize(1);
    findings.clear();

    nowNanos += 10 * SECOND;
    assertThat(gauges.series()).as("within the interval").hasSize(1);
    assertThat(diagnoses).hasValue(1);

    nowNanos += 5 * SECOND;
    assertThat(gauges.series()).as("recomputed").isEmpty();
    assertThat(diagnoses).hasValue(2);
  }
}

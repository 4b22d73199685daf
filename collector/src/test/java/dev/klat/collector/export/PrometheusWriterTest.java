package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.Buckets;
import dev.klat.collector.aggregate.Exposition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusWriterTest {

  private static List<Exposition.Family> families() {
    long[] counts = new long[Buckets.count()];
    counts[Buckets.indexOfNanos(3_000_000)] = 2;
    counts[Buckets.count() - 1] = 1;
    Exposition.Exemplar[] exemplars = new Exposition.Exemplar[Buckets.count()];
    exemplars[Buckets.indexOfNanos(3_000_000)] =
        new Exposition.Exemplar("0102030405060708090a0b0c0d0e0f10", 0.003, 1_700_000_000_123L);
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("topic", "a\"b\\c\nd");
    labels.put("group", "g");
    return List.of(
        new Exposition.Family(
            "klat_e2e_latency_seconds",
            "End-to-end latency",
            "seconds",
            Exposition.Type.HISTOGRAM,
            List.of(new Exposition.Series(labels, 0, counts, 100.006, exemplars))),
        new Exposition.Family(
            "klat_collector_spans_received_total",
            "Spans\nreceived",
            "",
            Exposition.Type.COUNTER,
            List.of(Exposition.Series.scalar(Map.of(), 12))),
        new Exposition.Family(
            "klat_clock_offset_seconds",
            "offset",
            "seconds",
            Exposition.Type.GAUGE,
            List.of(Exposition.Series.scalar(Map.of("from_host", "a", "to_host", "b"), -0.05))));
  }

  @Test
  void textFormatParsesWithCumulativeBucketsAndNoExemplars() {
    Scrape s = Scrape.parse(PrometheusWriter.write(families(), false), false);
    List<Scrape.Sample> buckets = s.named("klat_e2e_latency_seconds_bucket");
    assertThat(buckets).hasSize(Buckets.count());
    assertThat(buckets.get(0).labels().get("topic")).isEqualTo("a\"b\\c\nd");
    double previous = 0;
    for (Scrape.Sample b : buckets) {
      assertThat(b.value()).isGreaterThanOrEqualTo(previous);
      assertThat(b.exemplarLabels()).isNull();
      previous = b.value();
    }
    assertThat(buckets.get(buckets.size() - 1).labels().get("le")).isEqualTo("+Inf");
    assertThat(s.named("klat_e2e_latency_seconds_count").get(0).value()).isEqualTo(3);
    assertThat(s.named("klat_e2e_latency_seconds_sum").get(0).value()).isEqualTo(100.006);
    assertThat(s.types).containsEntry("klat_collector_spans_received_total", "counter");
    assertThat(s.named("klat_collector_spans_received_total").get(0).value()).isEqualTo(12);
    assertThat(s.named("klat_clock_offset_seconds").get(0).value()).isEqualTo(-0.05);
  }

  @Test
  void openMetricsCarriesExemplarsUnitsAndEof() {
    Scrape s = Scrape.parse(PrometheusWriter.write(families(), true), true);
    assertThat(s.eof).isTrue();
    assertThat(s.units).containsEntry("klat_e2e_latency_seconds", "seconds");
    assertThat(s.types).containsEntry("klat_collector_spans_received", "counter");
    assertThat(s.named("klat_collector_spans_received_total")).hasSize(1);
    List<Scrape.Sample> withExemplar =
        s.named("klat_e2e_latency_seconds_bucket").stream()
            .filter(b -> b.exemplarLabels() != null)
            .toList();
    assertThat(withExemplar).hasSize(1);
    Scrape.Sample b = withExemplar.get(0);
    assertThat(b.exemplarLabels()).containsEntry("trace_id", "0102030405060708090a0b0c0d0e0f10");
    assertThat(b.exemplarValue()).isEqualTo(0.003);
    assertThat(Double.parseDouble(b.labels().get("le"))).isGreaterThanOrEqualTo(0.003);
  }

  @Test
  void bucketsReachFromAMillisecondToAMinuteWithAtMostAnEighthWidth() {
    assertThat(Buckets.upperSeconds(0)).isLessThan(0.001);
    assertThat(Buckets.upperSeconds(Buckets.count() - 2)).isGreaterThan(60);
    for (int i = 1; i < Buckets.count() - 1; i++) {
      double lower = Buckets.upperSeconds(i - 1);
      assertThat((Buckets.upperSeconds(i) - lower) / lower).isLessThanOrEqualTo(0.125 + 1e-12);
    }
  }
}

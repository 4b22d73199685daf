package dev.klat.collector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.Finding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./klat diagnose}'s text: the tail's records by how they were captured. */
class DiagnosisTextTest {

  private static final Finding LAG =
      new Finding(
          "catch-up+fetch",
          "consumer lag or fetch wait",
          0.9,
          0.6,
          Map.of("consumer settings", "unknown (no klat agent on the consumer)"),
          "Records wait between their commit on the leader (H) and the moment the instrumentation"
              + " handed them to the application (P).",
          5);

  @Test
  void recordsFromInstrumentationsAreCountedApartFromTheSampledOnes() {
    String text =
        DiagnosisText.render(
            "orders",
            "service:billing",
            "5m",
            new DiagnosisReport(0, null, 8, 0.65, List.of(LAG), null, 1, 5));

    assertThat(text)
        .startsWith(
            "topic orders, group service:billing, last 5m: 0 sampled breakdowns, p99 -; the tail"
                + " (8 records: 1 tail-captured, 2 sampled, 5 from OpenTelemetry instrumentations)"
                + " averages 650.0 ms")
        .contains(
            "1. catch-up+fetch consumer lag or fetch wait: 90% of the tail (600.0 ms), from 5")
        .contains("consumer settings: unknown (no klat agent on the consumer)");
  }

  @Test
  void aReportWithoutThemReadsAsBefore() {
    String text =
        DiagnosisText.render(
            "orders",
            "billing",
            "5m",
            new DiagnosisReport(100, 0.024, 10, 0.024, List.of(), "x", 0));

    assertThat(text).contains("(10 records: 0 tail-captured, 10 sampled) averages");
  }
}

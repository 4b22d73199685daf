package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.MetricFamily;
import dev.klat.agentcore.otlp.ExportFailures;
import dev.klat.model.MetricDef;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExportCountersTest {

  @Test
  void theFourHealthCountersCarryModelsNamesAndTheCounts() {
    ExportCounters counters = new ExportCounters();
    counters.spanDropped();
    counters.spansDropped(2);
    counters.spansExported(5);
    counters.exportFailed();
    List<MetricFamily> families = counters.families(7, 1_000L, new ExportFailures());
    assertThat(families)
        .extracting(f -> f.name)
        .containsExactly(
            MetricDef.AGENT_EXPORT_SPANS_DROPPED.name(),
            MetricDef.AGENT_EXPORT_SPANS_EXPORTED.name(),
            MetricDef.AGENT_EXPORT_REQUESTS_FAILED.name(),
            MetricDef.AGENT_EXPORT_SERIES_OVERFLOW.name());
    assertThat(counters.droppedSpans()).isEqualTo(3);
    assertThat(counters.exportedSpans()).isEqualTo(5);
    assertThat(counters.failedExports()).isEqualTo(1);
  }
}

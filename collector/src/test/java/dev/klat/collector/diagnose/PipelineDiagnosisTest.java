package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.pipeline.ChainFixture;
import dev.klat.collector.pipeline.ChainFixture.Hop;
import dev.klat.collector.pipeline.PipelineNames;
import dev.klat.collector.pipeline.Pipelines;
import dev.klat.collector.pipeline.PipelinesReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link PipelineDiagnosis}: the hop and segment of a pipeline's tail, and what explains it. */
class PipelineDiagnosisTest {

  private static PipelinesReport.Pipeline pipeline(long processingMs, long commitMs) {
    ChainFixture f = new ChainFixture();
    for (int i = 0; i < 10; i++) {
      Hop in = f.record("orders", i, "enricher", i).instances(1, 2).add();
      f.output(in, "invoices", i, "billing", processingMs)
          .instances(2, 3)
          .segments(1, 1, commitMs, 1, 1)
          .linkedTo(in)
          .add();
    }
    return Pipelines.find(f.window(), PipelineNames.NONE, "orders->billing");
  }

  @Test
  void processingNamesTheApplicationAndNoKafkaKnob() {
    List<String> asked = new ArrayList<>();
    PipelineDiagnosis d =
        PipelineDiagnosis.of(
            pipeline(400, 1),
            (topic, group) -> {
              asked.add(topic + "/" + group);
              return null;
            });

    assertThat(asked).as("no rule weighs an application's own time").isEmpty();
    assertThat(d.hop()).isEqualTo(new PipelineDiagnosis.Hop(1, "orders", "enricher", "invoices"));
    assertThat(d.segment()).isEqualTo("processing");
    assertThat(d.application()).isEqualTo("enricher");
    Finding f = d.report().findings().get(0);
    assertThat(f.segment()).isEqualTo("processing");
    assertThat(f.knob()).isEqualTo("application enricher");
    assertThat(f.suggestion()).contains("No Kafka setting explains it");
    assertThat(d.tailShare()).isGreaterThan(0.9);
  }

  @Test
  void aSegmentIsExplainedByItsHopsOwnDiagnosisItsFindingsFirst() {
    List<String> asked = new ArrayList<>();
    Finding fetch = new Finding("fetch", "fetch.max.wait.ms", 0.3, 0.01, Map.of(), "s", 5);
    Finding commit = new Finding("commit", "broker 2 follower fetch", 0.6, 0.02, Map.of(), "s", 5);
    PipelineDiagnosis d =
        PipelineDiagnosis.of(
            pipeline(1, 300),
            (topic, group) -> {
              asked.add(topic + "/" + group);
              return new DiagnosisReport(10, 0.3, 5, 0.3, List.of(fetch, commit), null, 0);
            });

    assertThat(asked).containsExactly("invoices/billing");
    assertThat(d.hop().index()).isEqualTo(2);
    assertThat(d.segment()).isEqualTo("commit");
    assertThat(d.application()).isNull();
    assertThat(d.report().findings()).containsExactly(commit, fetch);
    assertThat(d.chains()).isEqualTo(10);
  }
}

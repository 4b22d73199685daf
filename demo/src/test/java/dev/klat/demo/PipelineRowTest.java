package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PipelineRowTest {

  // Two pipelines from the demo's first topic: the demo app's single hop, and the two-hop one.
  private static final String ANSWER =
      "{\"windowSeconds\":20,\"pipelines\":["
          + "{\"name\":\"demo-orders->demo-app\",\"firstTopic\":\"demo-orders\","
          + "\"lastGroup\":\"demo-app\",\"count\":900,\"e2e\":{\"p50Seconds\":0.01},"
          + "\"hops\":[{\"index\":1}],\"tail\":null},"
          + "{\"name\":\"demo-orders->demo-billing\",\"firstTopic\":\"demo-orders\","
          + "\"lastGroup\":\"demo-billing\",\"count\":412,\"e2e\":{\"p50Seconds\":0.0213,"
          + "\"p99Seconds\":4.8,\"p999Seconds\":5.1},\"identityViolations\":0,"
          + "\"hops\":[{\"index\":1,\"inputTopic\":\"demo-orders\",\"group\":\"demo-enricher\","
          + "\"outputTopic\":\"demo-orders-enriched\"},{\"index\":2,"
          + "\"inputTopic\":\"demo-orders-enriched\",\"group\":\"demo-billing\","
          + "\"outputTopic\":null}],"
          + "\"tail\":{\"hop\":2,\"segment\":\"catch-up\",\"part\":null,\"share\":0.934,"
          + "\"records\":5}}],\"graph\":{\"nodes\":[],\"edges\":[]}}";

  @Test
  void theDemoPipelineLineNamesTheHopAndSegmentOfItsTail() {
    PipelineRow row = PipelineRow.parse("demo-orders", "demo-billing", ANSWER);
    assertThat(row.tail().where())
        .isEqualTo("hop 2 (demo-orders-enriched / demo-billing): catch-up");
    assertThat(row.tail().where()).isEqualTo(Scenario.SLOW_LAST_HOP.expectedPipelineTail);
    String line = LiveTable.pipelineLine(Scenario.SLOW_LAST_HOP, 1, 6, 9, 62, row);
    assertThat(line)
        .isEqualTo(
            "[  62s] scenario=slow-last-hop (2/6, 9s left) pipeline=demo-orders->demo-billing"
                + " hops=2 n=412 p50=21.3 ms p99=4800 ms p99.9=5100 ms tail: hop 2"
                + " (demo-orders-enriched / demo-billing): catch-up 93% of the p99 tail, from 5"
                + " chains");
    String screen =
        LiveTable.screen(Scenario.SLOW_LAST_HOP, 1, 6, 9, null, null, row, 9464, "line");
    assertThat(screen)
        .contains(
            "pipeline (last 20 s): demo-orders->demo-billing (2 hops, 412 chains): end to end"
                + " p99 4800 ms; tail: hop 2 (demo-orders-enriched / demo-billing): catch-up 93%")
        .contains("expected pipeline tail: hop 2 (demo-orders-enriched / demo-billing): catch-up");
  }

  @Test
  void commitsTransactionPartIsNamed() {
    String answer =
        ANSWER.replace(
            "\"segment\":\"catch-up\",\"part\":null",
            "\"segment\":\"commit\",\"part\":\"transaction\"");
    assertThat(PipelineRow.parse("demo-orders", "demo-billing", answer).tail().where())
        .endsWith(": commit (transaction)");
  }

  @Test
  void noPipelineOrNoTailYet() {
    assertThat(PipelineRow.parse("demo-orders", "demo-billing", "{\"pipelines\":[]}")).isNull();
    assertThat(PipelineRow.parse("demo-orders", "demo-billing", "{}")).isNull();
    PipelineRow noTail = PipelineRow.parse("demo-orders", "demo-app", ANSWER);
    assertThat(noTail.tail()).isNull();
    assertThat(noTail.token()).endsWith("tail: -");
  }

  @Test
  void somethingThatIsNotJsonIsAClearError() {
    assertThatThrownBy(() -> PipelineRow.parse("t", "g", "<html>"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not JSON");
  }
}

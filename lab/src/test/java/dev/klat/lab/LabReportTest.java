package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.demo.BreakdownRow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabReportTest {

  private static final Experiment LINGER = Experiments.named("linger", true);

  @Test
  void findingNamesTheSegmentThatMovedAndHowFarTheOthersMoved() {
    Result base = result(LINGER.settings().get(0), 0.0012, 0.004);
    Result lingering = result(LINGER.settings().get(3), 0.098, 0.0055);
    List<String> findings = Findings.of(List.of(base, lingering));
    assertThat(findings.get(1))
        .isEqualTo(
            "on this cluster linger.ms=100 moved the p99 tail's produce from 1.2 ms to 98.0 ms and"
                + " left the other segments within 1.5 ms; end-to-end p99 7.2 ms -> 106 ms.");
  }

  @Test
  void acksZeroWithoutBreakdownsIsExplained() {
    Setting acksZero = Experiments.named("acks", true).settings().get(0);
    Result none = new Result(LINGER, acksZero, 200, 5000.0, 0, null, null);
    assertThat(Findings.of(List.of(none)).get(0)).contains("with acks=0 the producer never learns");
  }

  @Test
  void budgetTooSmallDropsMiddleValuesFirstAndSaysSo() {
    List<Experiment> all = Experiments.all(true);
    Plan plan = Plan.fit(all, Duration.ofMinutes(3), true);
    assertThat(plan.settingCount()).isLessThan(27);
    assertThat(plan.skipped()).isNotEmpty();
    for (Experiment experiment : plan.experiments()) {
      Experiment full = Experiments.named(experiment.name(), true);
      assertThat(experiment.settings().get(0)).isEqualTo(full.settings().get(0));
    }
    assertThat(plan.expectedSeconds() + Plan.EMBEDDED_START_S).isLessThanOrEqualTo(190);
  }

  @Test
  void largeBudgetKeepsEverythingWithTheUnboundedRun() {
    Plan plan = Plan.fit(Experiments.all(true), Duration.ofMinutes(20), true);
    assertThat(plan.skipped()).isEmpty();
    assertThat(plan.burstMs()).isPositive();
    assertThat(plan.measureMs()).isGreaterThanOrEqualTo(10_000);
  }

  @Test
  void chartsCarryTheirFigures() {
    String svg =
        Charts.stacked(
            "tail",
            List.of("a", "b"),
            List.of(Map.of("produce", 1.0), Map.of()),
            java.util.Arrays.asList(2.0, null));
    assertThat(svg)
        .contains("data-chart=\"tail\"")
        .contains("data-segment=\"produce\"")
        .contains("no data");
    assertThat(Charts.niceCeiling(98)).isEqualTo(100);
    assertThat(Charts.niceCeiling(101)).isEqualTo(200);
  }

  private static Result result(Setting setting, double produceSeconds, double fetchSeconds) {
    double e2e = produceSeconds + 0.002 + fetchSeconds;
    String json =
        "{\"count\":300,\"e2e\":{\"p50Seconds\":0.003,\"p99Seconds\":"
            + e2e
            + ",\"p999Seconds\":"
            + e2e
            + "},\"p99Tail\":{\"meanSeconds\":{\"produce\":"
            + produceSeconds
            + ",\"publish\":0.001,\"commit\":0.001,\"catch-up\":0,\"fetch\":"
            + fetchSeconds
            + ",\"publish+commit\":0.002}}}";
    return new Result(LINGER, setting, 200, null, 0, BreakdownRow.parse("t", "g", json), null);
  }
}

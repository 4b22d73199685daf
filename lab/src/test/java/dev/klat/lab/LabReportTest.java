package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.demo.BreakdownRow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabReportTest {

  private static final Experiment LINGER = Experiments.named("linger");

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
  void aSpikeInTheBaselineTailThatTheMedianDoesNotShareIsNotTheFinding() {
    Result base = withMedians(LINGER.settings().get(0), 0.014, 0.233, 0.001, 0.003);
    Result lingering = withMedians(LINGER.settings().get(3), 0.093, 0.046, 0.050, 0.003);
    assertThat(Findings.mostMoved(base, lingering)).isEqualTo("produce");
    assertThat(Findings.largestOtherMedianMoveMs(base, lingering, "produce")).isLessThan(0.1);
    assertThat(Findings.of(List.of(base, lingering)).get(1))
        .contains("moved the p99 tail's produce from 14.0 ms to 93.0 ms")
        .contains("moved the others' tail by up to 187 ms (their medians by up to 0.0 ms)");
  }

  @Test
  void eachRecordSizeOfTheAcksExperimentHasItsOwnBaseline() {
    List<Setting> acks = Experiments.named("acks").settings();
    List<String> findings =
        Findings.of(
            List.of(
                result(acks.get(1), 0.001, 0.002),
                result(acks.get(2), 0.001, 0.002),
                result(acks.get(4), 0.001, 0.002)));
    assertThat(findings.get(0)).startsWith("baseline acks=1, 100 B");
    assertThat(findings.get(1)).contains("acks=all, 100 B");
    assertThat(findings.get(2)).startsWith("baseline acks=1, 10 KiB");
  }

  @Test
  void acksZeroWithoutBreakdownsIsExplained() {
    Setting acksZero = Experiments.named("acks").settings().get(0);
    Result none = new Result(LINGER, acksZero, 1, 200, 5000.0, null, 0, null, null);
    assertThat(Findings.of(List.of(none)).get(0)).contains("with acks=0 the producer never learns");
  }

  @Test
  void budgetTooSmallDropsMiddleValuesFirstAndSaysSo() {
    List<Experiment> all = Experiments.all();
    Plan plan = Plan.fit(all, Duration.ofMinutes(3), true, 1, null);
    assertThat(plan.settingCount()).isLessThan(27);
    assertThat(plan.skipped()).isNotEmpty();
    for (Experiment experiment : plan.experiments()) {
      Experiment full = Experiments.named(experiment.name());
      assertThat(experiment.settings().get(0)).isEqualTo(full.settings().get(0));
    }
    assertThat(plan.expectedSeconds() + Plan.EMBEDDED_START_S).isLessThanOrEqualTo(190);
  }

  @Test
  void largeBudgetKeepsEverythingWithTheUnboundedRun() {
    Plan plan = Plan.fit(Experiments.all(), Duration.ofMinutes(20), true, 1, null);
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
            List.of(Map.of("produce", Spread.of(List.of(1.0))), Map.of()),
            java.util.Arrays.asList(Spread.of(List.of(2.0)), null));
    assertThat(svg)
        .contains("data-chart=\"tail\"")
        .contains("data-segment=\"produce\"")
        .contains("no data");
    assertThat(Charts.niceCeiling(98)).isEqualTo(100);
    assertThat(Charts.niceCeiling(101)).isEqualTo(200);
  }

  private static Result withMedians(
      Setting setting,
      double produceTail,
      double publishTail,
      double produceMedian,
      double publishMedian) {
    String json =
        "{\"count\":300,\"e2e\":{\"p50Seconds\":0.01,\"p99Seconds\":0.2,\"p999Seconds\":0.2},"
            + "\"p99Tail\":{\"meanSeconds\":{\"produce\":"
            + produceTail
            + ",\"publish\":"
            + publishTail
            + ",\"commit\":0.01,\"catch-up\":0.002,\"fetch\":0.004}},"
            + "\"segments\":{\"produce\":{\"p50Seconds\":"
            + produceMedian
            + "},\"publish\":{\"p50Seconds\":"
            + publishMedian
            + "},\"commit\":{\"p50Seconds\":0.002},\"catch-up\":{\"p50Seconds\":0.0001},"
            + "\"fetch\":{\"p50Seconds\":0.001}}}";
    return new Result(
        LINGER, setting, 1, 200, null, null, 0, BreakdownRow.parse("t", "g", json), null);
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
    return new Result(
        LINGER, setting, 1, 200, null, null, 0, BreakdownRow.parse("t", "g", json), null);
  }
}

package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {

  private static final List<Experiment> LINGER = List.of(Experiments.named("linger"));

  @Test
  void oneRepeatPlansAsBefore() {
    Plan plan = Plan.fit(LINGER, Duration.ofMinutes(3), true, 1, null);
    // 180 s less 45 s of cluster start over 4 settings: 33 s each, the full 3 + 10..30 + 3.
    assertThat(plan.runCount()).isEqualTo(4);
    assertThat(plan.warmupMs()).isEqualTo(3000);
    assertThat(plan.measureMs()).isEqualTo(18_000);
    assertThat(plan.burstMs()).isEqualTo(3000);
  }

  @Test
  void repeatsShareTheBudgetSoEachRunGetsShorterWindows() {
    Plan plan = Plan.fit(LINGER, Duration.ofMinutes(3), true, 3, null);
    // 135 s over 12 runs: 11 s each, not room for the 9 s overhead and 7 s of windows:
    // the middle values go, leaving 6 runs of 22 s.
    assertThat(plan.repeats()).isEqualTo(3);
    assertThat(plan.experiments().get(0).settings()).hasSize(2);
    assertThat(plan.runCount()).isEqualTo(6);
    assertThat(plan.skipped()).contains("linger: linger.ms=20 (time budget)");
    assertThat(plan.expectedSeconds() + Plan.EMBEDDED_START_S).isLessThanOrEqualTo(180);
    assertThat(plan.warmupMs() + plan.measureMs() + plan.burstMs()).isEqualTo(13_000);
  }

  @Test
  void throughputSecondsIsKeptAndTheWindowsFitAroundIt() {
    Plan plan = Plan.fit(LINGER, Duration.ofMinutes(5), true, 2, 10);
    assertThat(plan.burstMs()).isEqualTo(10_000);
    assertThat(plan.expectedSeconds() + Plan.EMBEDDED_START_S).isLessThanOrEqualTo(300);
    assertThat(plan.measureMs()).isGreaterThanOrEqualTo(5000);
    Plan none = Plan.fit(LINGER, Duration.ofMinutes(5), true, 1, 0);
    assertThat(none.burstMs()).isZero();
    assertThat(none.skipped()).contains("every unbounded-rate run (--throughput-seconds 0)");
  }

  @Test
  void theQuickProfileRepeatsAndTakesAnUnboundedRunOnlyWhenAsked() {
    Plan quick = Plan.quick(LINGER, 2, null);
    assertThat(quick.runCount()).isEqualTo(4);
    assertThat(quick.burstMs()).isZero();
    assertThat(Plan.quick(LINGER, 1, 4).burstMs()).isEqualTo(4000);
    assertThat(Plan.quick(LINGER, 1, 4).skipped()).noneMatch(s -> s.contains("unbounded"));
  }

  @Test
  void theConsumersReadingOfTheUnboundedRunIsInTheBudget() {
    Plan fetch = Plan.fit(List.of(Experiments.named("fetch")), Duration.ofMinutes(3), true, 1, 5);
    // 4 settings: each 9 s of overhead, the windows, 5 s unbounded and up to 5 s of reading.
    assertThat(fetch.expectedSeconds())
        .isEqualTo(4 * (9 + (fetch.warmupMs() + fetch.measureMs()) / 1000 + 5 + 5));
    Plan linger = Plan.fit(LINGER, Duration.ofMinutes(3), true, 1, 5);
    assertThat(linger.expectedSeconds())
        .isEqualTo(4 * (9 + (linger.warmupMs() + linger.measureMs()) / 1000 + 5));
    Plan all = Plan.fit(Experiments.all(), Duration.ofMinutes(10), true, 1, null);
    assertThat(all.skipped()).isEmpty();
    assertThat(all.expectedSeconds() + Plan.EMBEDDED_START_S).isLessThanOrEqualTo(600);
    assertThat(all.measureMs()).isEqualTo(5000);
    assertThat(all.burstMs()).isEqualTo(2000);
  }
}

package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveTableTest {

  private static BreakdownRow slowFollower() {
    return BreakdownRow.parse(
        DemoMain.TOPIC,
        DemoMain.GROUP,
        "{\"count\":120,\"e2e\":{\"p50Seconds\":0.02,\"p99Seconds\":0.45,"
            + "\"p999Seconds\":0.9},\"p99Tail\":{\"count\":2,\"meanSeconds\":"
            + "{\"produce\":0.002,\"publish\":0.4,\"commit\":0.01}}}");
  }

  @Test
  void aLineNamesTheScenarioTheQuantilesAndTheDriver() {
    String line = LiveTable.line(Scenario.SLOW_FOLLOWER, 2, 5, 30, 95, slowFollower());
    assertThat(line)
        .startsWith("[  95s] scenario=slow-follower (3/5, 30s left) expect=publish")
        .contains("n=120", "driver=publish", "tail means: produce=");
  }

  @Test
  void beforeTheFirstBreakdownsTheScreenSaysItWaits() {
    String line = LiveTable.line(Scenario.STEADY, 0, 5, 60, 1, null);
    assertThat(line).contains("n=0", "driver=-");
    String screen = LiveTable.screen(Scenario.STEADY, 0, 5, 60, null, 9464, line);
    assertThat(screen)
        .startsWith("\033[H\033[2J")
        .contains("(waiting for the first joined breakdowns)")
        .contains("live charts: http://127.0.0.1:9464/")
        .endsWith(line + "\n");
  }
}

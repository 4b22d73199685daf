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

  private static TopFinding network() {
    return TopFinding.parse(
        "{\"topic\":\"demo-orders\",\"findings\":[{\"segment\":\"publish\","
            + "\"knob\":\"before broker 2 read the request\",\"tailShare\":0.871,\"records\":412,"
            + "\"explainedSeconds\":0.39,"
            + "\"evidence\":{},\"suggestion\":\"...\"},{\"segment\":\"commit\","
            + "\"knob\":\"broker 2 replication\",\"tailShare\":0.1}],\"unexplained\":null}");
  }

  @Test
  void aLineNamesTheScenarioTheQuantilesTheDriverAndTheTopFinding() {
    String line = LiveTable.line(Scenario.SLOW_FOLLOWER, 2, 5, 30, 95, slowFollower(), network());
    assertThat(line)
        .startsWith("[  95s] scenario=slow-follower (3/5, 30s left) expect=publish")
        .contains(
            "n=120", "driver=publish", "why=publish:before_broker_2_read_the_request:87% from=412")
        .contains("tail means: produce=");
    String screen =
        LiveTable.screen(
            Scenario.SLOW_FOLLOWER, 2, 5, 30, slowFollower(), network(), null, 9464, line);
    assertThat(screen)
        .contains(
            "why (last 10 s): before broker 2 read the request (publish), 87% of the p99 tail,"
                + " from 412 records");
  }

  @Test
  void aDiagnosisWithoutFindingsHasNoTopFinding() {
    assertThat(
            TopFinding.parse("{\"findings\":[],\"unexplained\":\"Nothing explains the p99 tail\"}"))
        .isNull();
  }

  @Test
  void beforeTheFirstBreakdownsTheScreenSaysItWaits() {
    String line = LiveTable.line(Scenario.STEADY, 0, 5, 60, 1, null, null);
    assertThat(line).contains("n=0", "driver=-", "why=-");
    String screen = LiveTable.screen(Scenario.STEADY, 0, 5, 60, null, null, null, 9464, line);
    assertThat(screen)
        .startsWith("\033[H\033[2J")
        .contains("(waiting for the first joined breakdowns)")
        .contains("why (last 10 s): no finding explains the tail")
        .contains("pipeline (last 20 s): none found yet")
        .contains("live charts: http://127.0.0.1:9464/")
        .endsWith(line + "\n");
  }
}

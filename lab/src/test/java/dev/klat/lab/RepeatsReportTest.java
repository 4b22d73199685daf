package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.demo.BreakdownRow;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report of settings that ran more than once: medians, ranges, and what the runs can tell. */
class RepeatsReportTest {

  private static final Experiment LINGER = Experiments.named("linger");
  private static final Setting ZERO = LINGER.settings().get(0);
  private static final Setting HUNDRED = LINGER.settings().get(3);

  @Test
  void runsAreGroupedBySettingInTheExperimentsOrderWhateverOrderTheyRan() {
    List<Result> results =
        List.of(
            run(ZERO, 1, 2, 2, 1000),
            run(HUNDRED, 1, 100, 60, 2000),
            run(HUNDRED, 2, 104, 61, 2100),
            run(ZERO, 2, 4, 2, 1100),
            run(ZERO, 3, 3, 2, 900),
            run(HUNDRED, 3, 98, 59, 1900));
    List<SettingRuns> settings = SettingRuns.of(results);
    assertThat(settings)
        .extracting(s -> s.setting().label())
        .containsExactly("linger.ms=0", "linger.ms=100");
    assertThat(settings.get(0).tail("produce")).isEqualTo(new Spread(3.0, 2.0, 4.0, 3));
    assertThat(settings.get(1).burst()).isEqualTo(new Spread(2000, 1900, 2100, 3));
    assertThat(settings.get(1).tailMs("produce")).isEqualTo(100.0);
  }

  @Test
  void aMoveBeyondTheRunsRangesIsClaimedWithTheRanges() {
    List<String> findings =
        Findings.of(
            List.of(
                run(ZERO, 1, 2, 2, 1000),
                run(ZERO, 2, 4, 2, 1100),
                run(ZERO, 3, 3, 2, 900),
                run(HUNDRED, 1, 100, 60, 2000),
                run(HUNDRED, 2, 104, 61, 2100),
                run(HUNDRED, 3, 98, 59, 1900)));
    assertThat(findings.get(0)).startsWith("baseline linger.ms=0: end-to-end p99 ");
    assertThat(findings.get(1))
        .startsWith(
            "on this cluster linger.ms=100 moved the p99 tail's produce from 3.0 ms to 100 ms"
                + " (medians of 3 and 3 runs, ranges 2.0..4.0 ms and 98.0..104 ms)");
    assertThat(findings.get(2))
        .isEqualTo(
            "unbounded-rate throughput went from 1000 (900..1100) records/s at linger.ms=0 to"
                + " 2000 (1900..2100) at linger.ms=100 (x2.0).");
  }

  @Test
  void aMoveInsideTheRunsRangesSaysSoRatherThanClaimingIt() {
    List<String> findings =
        Findings.of(
            List.of(
                run(ZERO, 1, 5, 4, 1000),
                run(ZERO, 2, 30, 8, 1500),
                run(ZERO, 3, 6, 4, 1100),
                run(HUNDRED, 1, 25, 8, 1200),
                run(HUNDRED, 2, 7, 7, 1400),
                run(HUNDRED, 3, 20, 8, 1300)));
    assertThat(findings.get(1))
        .startsWith(
            "on this cluster linger.ms=100 moved no segment of the p99 tail beyond the spread of"
                + " the repeats: the largest move, produce from 6.0 ms to 20.0 ms (medians), is"
                + " inside the runs' ranges (5.0..30.0 ms against 7.0..25.0 ms)");
    assertThat(findings.get(2))
        .contains("inside the spread of the repeats: not a difference these runs can tell");
  }

  @Test
  void anotherSegmentsMoveInsideTheRunsRangesIsCalledSo() {
    List<Result> results = new ArrayList<>();
    double[][] publish = {{3.3, 16.3, 13.2}, {4.0, 27.6, 22.4}};
    for (int r = 0; r < 3; r++) {
      results.add(withPublish(ZERO, r + 1, 1.2, 0.1, publish[0][r]));
      results.add(withPublish(HUNDRED, r + 1, 99.6, 51.6, publish[1][r]));
    }
    assertThat(Findings.of(results).get(1))
        .contains(
            "moved the others' tail by up to 9.2 ms, inside the spread of the repeats (their"
                + " medians by up to 0.0 ms)");
  }

  @Test
  void aFailedRunIsLeftOutOfTheMediansAndCounted() {
    List<Result> results = new ArrayList<>();
    results.add(run(ZERO, 1, 2, 2, 1000));
    results.add(Result.failed(LINGER, ZERO, 2, "the consumer did not start"));
    results.add(run(ZERO, 3, 4, 2, 1200));
    SettingRuns runs = SettingRuns.of(results).get(0);
    assertThat(runs.failedRuns()).isEqualTo(1);
    assertThat(runs.error()).isNull();
    assertThat(runs.burst()).isEqualTo(new Spread(1100, 1000, 1200, 2));
    assertThat(Findings.of(results).get(0)).endsWith("(1 of 3 runs failed)");
  }

  @Test
  void theCsvHasOneRowPerRunInTheOrderTheyRanThenTheMedianMinAndMaxOfEachSetting() {
    String csv =
        CsvReport.of(
            List.of(
                run(ZERO, 1, 2, 2, 1000),
                run(HUNDRED, 1, 100, 60, 2000),
                run(HUNDRED, 2, 104, 61, 2100),
                run(ZERO, 2, 4, 2, 1100)));
    List<String> lines = csv.lines().toList();
    String[] header = lines.get(0).split(",");
    int run = List.of(header).indexOf("run");
    int unbounded = List.of(header).indexOf("unbounded_records_per_second");
    int tail = List.of(header).indexOf("p99_tail_produce_ms");
    assertThat(lines).hasSize(1 + 4 + 6);
    assertThat(lines.subList(1, 5))
        .extracting(l -> l.split(",")[0] + " " + l.split(",")[1] + " " + l.split(",")[run])
        .containsExactly(
            "linger \"linger.ms=0\" 1",
            "linger \"linger.ms=100\" 1",
            "linger \"linger.ms=100\" 2",
            "linger \"linger.ms=0\" 2");
    String[] median = lines.get(5).split(",");
    assertThat(median[1] + " " + median[run]).isEqualTo("\"linger.ms=0\" median");
    assertThat(median[unbounded]).isEqualTo("1050.000");
    assertThat(median[tail]).isEqualTo("3.000");
    assertThat(lines.get(6).split(",")[tail]).isEqualTo("2.000");
    assertThat(lines.get(7).split(",")[tail]).isEqualTo("4.000");
    assertThat(lines.get(8).split(",")[run]).isEqualTo("median");
    assertThat(lines.get(8).split(",")[tail]).isEqualTo("102.000");
  }

  @Test
  void oneRunPerSettingKeepsTheCsvToOneRowPerSetting() {
    String csv = CsvReport.of(List.of(run(ZERO, 1, 2, 2, 1000), run(HUNDRED, 1, 100, 60, 2000)));
    assertThat(csv.lines()).hasSize(3).noneMatch(l -> l.contains("median"));
  }

  @Test
  void chartsDrawTheMedianWithAWhiskerFromTheLowestToTheHighestRun() {
    String html =
        HtmlReport.of(
            List.of("test"),
            new Plan(List.of(LINGER), 2000, 5000, 2000, 2, List.of()),
            List.of(
                run(ZERO, 1, 2, 2, 1000),
                run(HUNDRED, 1, 100, 60, 2000),
                run(HUNDRED, 2, 104, 61, 2100),
                run(ZERO, 2, 4, 2, 1100)));
    assertThat(html)
        .contains("data-value=\"1050.000\"")
        .contains("data-min=\"1000.000\" data-max=\"1100.000\"")
        .contains("data-segment=\"produce\" data-value=\"102.000\"")
        .contains("median of 2 runs")
        .contains("<td>102 ms<br><span class=\"range\">100..104 ms</span></td>");
  }

  @Test
  void theConsumersThroughputAtEachFetchSettingIsChartedAndCompared() {
    Experiment fetch = Experiments.named("fetch");
    List<Result> results = new ArrayList<>();
    double[] consumer = {90_000, 150_000};
    for (int i = 0; i < 2; i++) {
      Setting setting = fetch.settings().get(i * 3);
      Result r = run(setting, 1, 3, 2, 100_000);
      results.add(
          new Result(fetch, setting, 1, 200, 100_000.0, consumer[i], 0, r.breakdown(), null));
    }
    String html =
        HtmlReport.of(
            List.of("test"), new Plan(List.of(fetch), 2000, 5000, 2000, 1, List.of()), results);
    assertThat(html)
        .contains("data-chart=\"consumer\"")
        .contains("data-value=\"150000.000\"")
        .contains("<th>consumer records/s</th>");
    assertThat(Findings.of(results))
        .contains(
            "the consumer's own throughput (reading the unbounded run's records) went from 90000"
                + " records/s at min 1 B, wait 500 ms to 150000 at min 1 MiB, wait 500 ms (x1.7).");
    assertThat(CsvReport.of(results).lines().toList().get(2)).contains(",150000.000,");
  }

  private static Result withPublish(
      Setting setting, int repeat, double produceTailMs, double produceMedianMs, double publishMs) {
    String json =
        "{\"count\":300,\"e2e\":{\"p50Seconds\":0.01,\"p99Seconds\":0.1,\"p999Seconds\":0.1},"
            + "\"p99Tail\":{\"meanSeconds\":{\"produce\":"
            + produceTailMs / 1000
            + ",\"publish\":"
            + publishMs / 1000
            + ",\"commit\":0.004,\"catch-up\":0.0003,\"fetch\":0.002}},"
            + "\"segments\":{\"produce\":{\"p50Seconds\":"
            + produceMedianMs / 1000
            + "},\"publish\":{\"p50Seconds\":0.001},\"commit\":{\"p50Seconds\":0.0005},"
            + "\"catch-up\":{\"p50Seconds\":0.0001},\"fetch\":{\"p50Seconds\":0.0005}}}";
    return new Result(
        LINGER, setting, repeat, 200, null, null, 0, BreakdownRow.parse("t", "g", json), null);
  }

  /** One run of linger with a produce tail and median, a 2 ms publish, a 1 ms fetch. */
  private static Result run(
      Setting setting, int repeat, double produceTailMs, double produceMedianMs, double burst) {
    double p99 = produceTailMs + 3;
    String json =
        "{\"count\":300,\"e2e\":{\"p50Seconds\":"
            + (produceMedianMs + 2) / 1000
            + ",\"p99Seconds\":"
            + p99 / 1000
            + ",\"p999Seconds\":"
            + p99 / 1000
            + "},\"p99Tail\":{\"meanSeconds\":{\"produce\":"
            + produceTailMs / 1000
            + ",\"publish\":0.002,\"commit\":0.0,\"catch-up\":0.0,\"fetch\":0.001}},"
            + "\"segments\":{\"produce\":{\"p50Seconds\":"
            + produceMedianMs / 1000
            + "},\"publish\":{\"p50Seconds\":0.001},\"commit\":{\"p50Seconds\":0.0005},"
            + "\"catch-up\":{\"p50Seconds\":0.0001},\"fetch\":{\"p50Seconds\":0.0005}}}";
    return new Result(
        LINGER, setting, repeat, 200, burst, null, 0, BreakdownRow.parse("t", "g", json), null);
  }
}

package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.HeadlessChromium;
import dev.klat.testsupport.JdkIndependent;
import dev.klat.testsupport.RequiredTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the lab's quick profile of the linger and fetch experiments on the embedded 3-broker cluster
 * with a 1 s unbounded-rate run, as {@code ./klat lab --experiment linger,fetch --quick
 * --throughput-seconds 1} does, and checks the effects that must hold at a low rate, that the
 * producers' and, at the fetch settings, the consumer's throughput were measured, then that
 * headless Chromium draws every chart of the report (skipped without Chromium, {@link
 * RequiredTool}).
 *
 * <p>CI's second pass (JDK 25, {@link JdkIndependent#leftToFirstPass()}) runs the linger experiment
 * only, about 28 s less, and no browser (tagged {@code jdk-independent}): the lab on that JDK, its
 * cluster, collector, producer and consumer processes with the agent, their unbounded-rate run and
 * the finding. The fetch experiment adds a consumer setting and the lab consumer's drain, plain
 * kafka-clients code on the consumer hooks the linger runs have too; the agent's fetch segment on
 * that JDK is DiagnosisIT's ({@code fetch.min.bytes}).
 */
class LabIT {

  private static final Path ROOT =
      Paths.get(System.getProperty("klat.lab.root", "..")).toAbsolutePath().normalize();
  private static final Path TARGET = ROOT.resolve("lab/target");

  private static final String EXPERIMENTS =
      JdkIndependent.leftToFirstPass() ? "linger" : "linger,fetch";

  private static Lab.Outcome outcome;

  @BeforeAll
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  static void runTheQuickProfile() throws Exception {
    outcome = runLab(EXPERIMENTS, "lab-it");
  }

  // The lab's quick profile for these experiments, its report in lab/target/<dir>.
  private static Lab.Outcome runLab(String experiments, String dir) throws Exception {
    Path out = TARGET.resolve(dir);
    LabOptions options =
        LabOptions.parse(
            List.of(
                "--experiment",
                experiments,
                "--quick",
                "--throughput-seconds",
                "1",
                "--out",
                out.toString()),
            out);
    Lab lab = new Lab(ROOT, options, System.out, false);
    long startNanos = System.nanoTime();
    Lab.Outcome result;
    try {
      result = lab.run();
    } finally {
      lab.stop();
    }
    System.out.printf(
        "LabIT: the lab took %d s%n",
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos));
    for (Result r : result.results()) {
      System.out.println("LabIT: " + Summary.line(r));
    }
    return result;
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void lingerMovesProduceAndFetchWaitMovesFetch() throws Exception {
    List<Result> linger = of(outcome, "linger");
    if (linger.size() == 2 && !"produce".equals(mostGrownTail(linger.get(0), linger.get(1)))) {
      // The p99 tail of a 5 s window is about 3 records, and one replication or scheduling hiccup
      // during a run takes it whole (seen once in CI: commit 357 ms in the linger.ms=100 tail, the
      // medians of every segment up with it). The linger experiment runs once more, alone, and
      // every check below holds for that run.
      System.out.println("LabIT: the linger tail did not grow most in produce; running it again");
      linger = of(runLab("linger", "lab-it-again"), "linger");
    }
    assertThat(linger)
        .extracting(r -> r.setting().label())
        .containsExactly("linger.ms=0", "linger.ms=100");
    for (Result result : linger) {
      assertThat(result.error()).isNull();
      assertThat(result.breakdowns()).as(result.setting().label()).isGreaterThan(100);
    }
    // At 200 records/s a 16 KiB batch never fills within 100 ms: each batch waits out linger.ms, so
    // a record waits between 0 and 100 ms in the accumulator, about 50 at the median, and the first
    // record of every batch (one in about 20) the whole 100 ms.
    assertThat(linger.get(1).p50Ms("produce") - linger.get(0).p50Ms("produce")).isGreaterThan(25);
    assertThat(linger.get(1).tailMs("produce")).isGreaterThan(50);
    // Not a rise of the tail by a fixed amount: the p99 tail is about 3 sampled records, and at
    // linger.ms=0 a busy cluster can hold them back too (a rise of only 35 ms in one CI run, from
    // 27 and 7 ms to 103 and 98 in local ones). Nor the segment that moved most: there, the publish
    // tail can fall by more than produce grows (177 to 12 ms against 35 to 102 ms in another).
    assertThat(mostGrownTail(linger.get(0), linger.get(1))).isEqualTo("produce");
    // Waiting longer slows no other segment. Checked on the medians, since the p99 tail of a 5 s
    // window is 3 records, which one scheduling hiccup of this loaded 2-core machine moves by
    // 100 ms. One-sided: at linger.ms=0 every record is a request of its own, and a slower
    // machine of this kind had 16 and 20 ms more publish there than at linger.ms=100.
    assertThat(largestOtherMedianRiseMs(linger.get(0), linger.get(1), "produce")).isLessThan(15);

    List<Result> fetch = of(outcome, "fetch");
    if (!EXPERIMENTS.contains("fetch")) {
      assertThat(fetch).isEmpty();
    } else {
      checkFetch(fetch);
    }

    // The unbounded-rate run of 1 s, and the consumer reading it back where the setting is its.
    for (Result result : outcome.results()) {
      assertThat(result.burstRecordsPerSecond()).as(result.setting().label()).isGreaterThan(1000);
    }
    assertThat(linger).allMatch(r -> r.consumerRecordsPerSecond() == null);
    assertThat(Files.readString(outcome.csv())).contains("linger,\"linger.ms=100\"");
  }

  private static void checkFetch(List<Result> fetch) {
    assertThat(fetch)
        .extracting(r -> r.setting().label())
        .containsExactly("min 1 B, wait 500 ms", "min 1 MiB, wait 500 ms");
    for (Result result : fetch) {
      assertThat(result.breakdowns()).as(result.setting().label()).isGreaterThan(100);
    }
    // 20 KB/s never fills 1 MiB: each fetch waits out fetch.max.wait.ms on the broker.
    assertThat(fetch.get(1).tailMs("fetch") - fetch.get(0).tailMs("fetch")).isGreaterThan(200);
    assertThat(fetch.get(1).p50Ms("fetch") - fetch.get(0).p50Ms("fetch")).isGreaterThan(100);
    assertThat(Findings.mostMoved(fetch.get(0), fetch.get(1))).isEqualTo("fetch");
    for (Result result : fetch) {
      assertThat(result.consumerRecordsPerSecond())
          .as(result.setting().label())
          .isGreaterThan(1000);
    }
  }

  // Chromium renders the report: CI's second JDK leaves it to the first (JdkIndependent).
  @Tag("jdk-independent")
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void everyChartOfTheReportIsDrawn() throws Exception {
    HeadlessChromium chromium =
        HeadlessChromium.require(TARGET, "LabIT's browser step (the report)").windowPx(1100, 1600);
    String report = outcome.html().toUri().toString();
    String dom = chromium.dumpDom(report);
    Matcher charts =
        Pattern.compile("<svg[^>]*data-chart=\"(\\w+)\"(.*?)</svg>", Pattern.DOTALL).matcher(dom);
    int drawn = 0;
    while (charts.find()) {
      assertThat(charts.group(2)).as("chart " + charts.group(1)).contains("data-value=");
      drawn++;
    }
    assertThat(drawn).as("two charts per experiment, and the consumer's in fetch").isEqualTo(5);
    // The finding that names its segment whatever the machine's load: fetch.max.wait.ms's 500 ms.
    assertThat(dom).contains("on this cluster min 1 MiB, wait 500 ms moved the p99 tail's fetch");
    assertThat(dom).contains("on this cluster linger.ms=100 moved the p99 tail's ");
    chromium.screenshot(report, TARGET.resolve("lab-report.png"));
  }

  private static List<Result> of(Lab.Outcome outcome, String experiment) {
    return outcome.results().stream()
        .filter(r -> r.experiment().name().equals(experiment))
        .toList();
  }

  // Findings.mostMoved, growth only: of the segments whose median grew too (by the lab's noise
  // margin or more), the one whose p99 tail grew most.
  private static String mostGrownTail(Result baseline, Result result) {
    String most = null;
    double mostGrowthMs = Double.NEGATIVE_INFINITY;
    for (String segment : Findings.SEGMENTS) {
      Double before = baseline.tailMs(segment);
      Double after = result.tailMs(segment);
      Double medianBefore = baseline.p50Ms(segment);
      Double medianAfter = result.p50Ms(segment);
      if (before == null || after == null || medianBefore == null || medianAfter == null) {
        continue;
      }
      if (medianAfter - medianBefore >= Findings.NOISE_MS && after - before > mostGrowthMs) {
        most = segment;
        mostGrowthMs = after - before;
      }
    }
    return most;
  }

  // The most any other segment's median grew from baseline to result, in ms; 0 when none grew.
  private static double largestOtherMedianRiseMs(Result baseline, Result result, String except) {
    double most = 0;
    for (String segment : Findings.SEGMENTS) {
      Double before = baseline.p50Ms(segment);
      Double after = result.p50Ms(segment);
      if (!segment.equals(except) && before != null && after != null) {
        most = Math.max(most, after - before);
      }
    }
    return most;
  }
}

package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.HeadlessChromium;
import dev.klat.testsupport.JdkIndependent;
import dev.klat.testsupport.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Runs {@code ./klat demo} as a user would, through one full cycle of scenarios, checks that each
 * scenario's cause shows up as the segment driving the p99 tail, that the demo pipeline's line
 * names its second hop in the slow-last-hop scenario, that the kafkajs consumer's records show on
 * their own line where Node.js is present (a {@code jdk-independent} check), that the collector's
 * live page draws both charts and the pipeline in a browser, then presses Ctrl-C (SIGINT, or
 * SIGTERM where this process tree ignores SIGINT) and checks that nothing the demo started is left
 * running. Without Chromium only the browser step is skipped ({@link RequiredTool}).
 *
 * <p>CI's second pass (JDK 25, {@link JdkIndependent#leftToFirstPass()}) runs a short cycle:
 * {@value #SHORT_CYCLE}, about 75 s of scenarios instead of 150, without the browser steps and the
 * kafkajs consumer (tagged {@code jdk-independent}). Kept there: the demo itself on that JDK (its
 * brokers with the probe, the collector, the applications with the agent, the scenario switch,
 * Ctrl-C), the pipeline's link, and the probe naming the follower the demo pauses. Left to the
 * first pass: linger-burst, fetch-wait and slow-consumer, whose causes ({@code linger.ms} in
 * produce, {@code fetch.min.bytes} in fetch, a slow poll loop in catch-up) the same agent hooks
 * measure on that JDK in DiagnosisIT, whose top findings must name the same knobs; what the demo
 * adds to them is which settings its applications read from the scenario file, plain Java.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DemoIT {

  private static final int SCENARIO_SECONDS = 25;
  // CI's second pass: the warm-up, the pipeline's scenario and the probe's, in the demo's order.
  static final String SHORT_CYCLE = "steady,slow-last-hop,slow-follower";
  private static final List<Scenario> RUN =
      JdkIndependent.leftToFirstPass()
          ? Arrays.stream(SHORT_CYCLE.split(",")).map(Scenario::byId).toList()
          : List.of(Scenario.values());
  private static final Pattern LINE =
      Pattern.compile(
          "scenario=(\\S+) \\(\\d+/\\d+, (\\d+)s left\\).* n=(\\d+) .* driver=(\\S+) .*why=(\\S+)");
  private static final Pattern PAUSED = Pattern.compile("slow follower: pausing broker (\\d+)");
  private static final Pattern PIPELINE_LINE =
      Pattern.compile(
          "scenario=(\\S+) \\(\\d+/\\d+, (\\d+)s left\\) pipeline=(\\S+) hops=(\\d+) n=(\\d+) .*"
              + " tail: (hop \\d+ \\([^)]*\\): \\S+)");
  // The kafkajs consumer's line (docs/clients.md): its records, seen through OpenTelemetry.
  private static final Pattern KAFKAJS_LINE =
      Pattern.compile("kafkajs=demo-orders/" + DemoMain.NODE_GROUP + " n=(\\d+) (.*)");
  // Three brokers, the collector, the producer, the consumer, the enricher and the last group.
  private static final int PROCESSES = 8;
  private static final int DRIVER = 4;
  private static final int WHY = 5;

  private static Path target;
  private static Path log;
  private static int adminPort;
  private static Process demo;
  private static List<ProcessHandle> started = new ArrayList<>();

  @BeforeAll
  @Timeout(value = 7, unit = TimeUnit.MINUTES)
  static void runOneFullCycle() throws Exception {
    Path root = Paths.get(System.getProperty("klat.demo.root")).toAbsolutePath().normalize();
    target = Files.createDirectories(root.resolve("demo/target"));
    log = target.resolve("demo-it.log");
    adminPort = freePort();
    List<String> command =
        new ArrayList<>(
            List.of(
                "bash",
                "klat",
                "demo",
                "-Dklat.demo.scenario.seconds=" + SCENARIO_SECONDS,
                "-Dklat.demo.refresh.seconds=2",
                "-Dklat.demo.otlp.port=" + freePort(),
                "-Dklat.demo.admin.port=" + adminPort));
    if (RUN.size() < Scenario.values().length) {
      command.add("-Dklat.demo.scenarios=" + SHORT_CYCLE);
      // Its check is left to the first pass too: no Node.js consumer to start and stop.
      command.add("-Dklat.demo.kafkajs=false");
    }
    demo =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // One full cycle: until the first scenario comes back.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
    while (!cycleComplete(Files.readAllLines(log, StandardCharsets.UTF_8))) {
      assertThat(demo.isAlive()).as("demo exited early:\n%s", read(log)).isTrue();
      assertThat(System.nanoTime())
          .as("no full cycle in 6 minutes:\n%s", read(log))
          .isLessThan(deadline);
      if (started.size() < PROCESSES) {
        started = demo.descendants().collect(Collectors.toList());
      }
      Thread.sleep(1000);
    }
    started = demo.descendants().collect(Collectors.toList());
  }

  @Test
  @Order(1)
  void everyScenarioShowsUpInItsSegmentAndItsCause() throws Exception {
    String output = read(log);
    Map<Scenario, List<String>> driversLateInScenario = lateInScenario(output, DRIVER);
    Map<Scenario, List<String>> whyLateInScenario = lateInScenario(output, WHY);
    for (Scenario scenario : RUN) {
      if (scenario.expectedSegment == null || scenario == Scenario.SLOW_FOLLOWER) {
        continue;
      }
      List<String> drivers = driversLateInScenario.get(scenario);
      assertThat(drivers).as("%s readings:\n%s", scenario.id, output).isNotEmpty();
      assertThat(drivers)
          .as("%s should be driven by %s:\n%s", scenario.id, scenario.expectedSegment, output)
          .contains(scenario.expectedSegment);
    }
    // A paused follower holds commit for the batch waiting on it, and the producer backs up
    // behind that batch (publish: one request per connection at a time; produce: in-flight
    // limit). CI runs saw publish or produce lead the tail. What must hold: the pause is in the
    // producer's half of the path, never in the consumer's.
    // The diagnosis names each scenario's cause: its top finding, in a reading late in the
    // scenario (the 20 s window still holds the previous scenario's records early on).
    Matcher paused = PAUSED.matcher(output);
    assertThat(paused.find()).as("the paused follower is named:\n%s", output).isTrue();
    int pausedFollower = Integer.parseInt(paused.group(1));
    for (Scenario scenario : RUN) {
      String expected = scenario.expectedFinding(pausedFollower);
      if (expected == null) {
        continue;
      }
      assertThat(whyLateInScenario.get(scenario))
          .as("%s should be explained by %s:\n%s", scenario.id, expected, output)
          .anyMatch(why -> Pattern.compile("^" + expected).matcher(why).find());
    }
    List<String> followerDrivers = driversLateInScenario.get(Scenario.SLOW_FOLLOWER);
    assertThat(followerDrivers).as("slow-follower readings:\n%s", output).isNotEmpty();
    assertThat(followerDrivers)
        .as("slow-follower tail in the producer's half:\n%s", output)
        .allMatch(d -> List.of("produce", "publish", "commit", "publish+commit").contains(d));
    assertThat(started).as(output).hasSizeGreaterThanOrEqualTo(PROCESSES);
  }

  /**
   * The demo pipeline (demo-orders, demo-enricher, demo-orders-enriched, demo-billing): its line
   * from {@code /api/pipelines} counts two hops, and late in the slow-last-hop scenario names hop
   * 2's catch-up as its tail. Needs the agent's link and the collector's pipelines.
   */
  @Test
  @Order(2)
  void thePipelineLineNamesTheSecondHopWhenTheLastGroupIsSlow() throws Exception {
    String output = read(log);
    List<String> lines = output.lines().filter(line -> PIPELINE_LINE.matcher(line).find()).toList();
    assertThat(lines).as("pipeline lines:\n%s", output).isNotEmpty();
    assertThat(lines)
        .as("two hops:\n%s", output)
        .allMatch(line -> line.contains(" pipeline=demo-orders->demo-billing hops=2 "));
    List<String> lateTails = new ArrayList<>();
    for (String line : lines) {
      Matcher m = PIPELINE_LINE.matcher(line);
      if (m.find()
          && Scenario.byId(m.group(1)) == Scenario.SLOW_LAST_HOP
          && Integer.parseInt(m.group(2)) <= SCENARIO_SECONDS / 2
          && Long.parseLong(m.group(5)) > 0) {
        lateTails.add(m.group(6));
      }
    }
    assertThat(lateTails)
        .as("the slow last hop's tail in hop 2:\n%s", output)
        .isNotEmpty()
        .anyMatch(tail -> tail.equals(Scenario.SLOW_LAST_HOP.expectedPipelineTail));
  }

  /**
   * Where Node.js is present, the kafkajs consumer (OpenTelemetry's instrumentation, no klat agent)
   * starts, and its records (klat's producer, the probe's {@code L} and {@code H}, the
   * instrumentation's {@code P}) show on their own line with catch-up+fetch. Reads the log only:
   * the consumer ran beside the other applications.
   */
  @Test
  @Order(2)
  @Tag("jdk-independent")
  void theKafkajsConsumersRecordsShowOnTheirOwnLine() throws Exception {
    RequiredTool.NODE.require("DemoIT's kafkajs consumer");
    String output = read(log);
    assertThat(output).contains(NodeConsumer.LABEL + ": started");
    Matcher line = KAFKAJS_LINE.matcher(output);
    boolean seen = false;
    while (line.find()) {
      seen |= Long.parseLong(line.group(1)) > 0 && line.group(2).contains("catch-up+fetch=");
    }
    assertThat(seen).as("a kafkajs line with records and catch-up+fetch:\n%s", output).isTrue();
  }

  /**
   * The collector's live page, as a browser renders it: both charts drawn from real data. Chromium
   * renders it: CI's second JDK leaves it to the first ({@link JdkIndependent}).
   */
  @Tag("jdk-independent")
  @Test
  @Order(3)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theLivePageDrawsBothChartsFromRealData() throws Exception {
    HeadlessChromium chromium =
        HeadlessChromium.require(target, "DemoIT's browser step (the live page)")
            .virtualTimeBudgetMs(12_000);
    assertThat(demo.isAlive()).as("the demo is still running:\n%s", read(log)).isTrue();
    String page = "http://127.0.0.1:" + adminPort + "/?refreshMs=1000";
    String dom = chromium.dumpDom(page);
    Matcher segments = Pattern.compile("id=\"segments\"[^>]*data-points=\"(\\d+)\"").matcher(dom);
    Matcher percentiles =
        Pattern.compile("id=\"percentiles\"[^>]*data-points=\"(\\d+)\"").matcher(dom);
    assertThat(segments.find() && percentiles.find()).as(dom).isTrue();
    assertThat(Integer.parseInt(segments.group(1))).as(dom).isGreaterThanOrEqualTo(2);
    assertThat(Integer.parseInt(percentiles.group(1))).as(dom).isGreaterThanOrEqualTo(2);
    assertThat(dom).contains("data-series=\"p99\"").contains("data-series=\"catch-up\"");
    // The page opened on the collector's history: a point every 10 s of the scenarios before.
    Matcher history = Pattern.compile("id=\"segments\"[^>]*data-history=\"(\\d+)\"").matcher(dom);
    assertThat(history.find()).as(dom).isTrue();
    assertThat(Integer.parseInt(history.group(1))).as(dom).isGreaterThanOrEqualTo(5);
    // The topic and group picker offers the demo's pair and the pipeline's two.
    assertThat(dom)
        .contains("data-pairs=\"3\"")
        .contains("demo-orders / demo-app (")
        .contains("demo-orders / demo-enricher (")
        .contains("demo-orders-enriched / demo-billing (");
    // The slowest records' table: ten rows, each with its trace id.
    assertThat(dom).contains("id=\"slowest\" data-records=\"10\"");
    assertThat(Pattern.compile("class=\"id\">[0-9a-f]{32}<").matcher(dom).results().count())
        .as(dom)
        .isEqualTo(10);
    chromium.screenshot(page, target.resolve("demo-page.png"));
  }

  /** The page's pipelines section from real chains: the graph and the demo pipeline's tail line. */
  @Tag("jdk-independent")
  @Test
  @Order(4)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theLivePageDrawsThePipeline() throws Exception {
    HeadlessChromium chromium =
        HeadlessChromium.require(target, "DemoIT's browser step (the page's pipelines)")
            .virtualTimeBudgetMs(5_000)
            .windowPx(1000, 1900);
    assertThat(demo.isAlive()).as("the demo is still running:\n%s", read(log)).isTrue();
    String page = "http://127.0.0.1:" + adminPort + "/?refreshMs=1000";
    String dom = chromium.dumpDom(page);
    Matcher pipelines = Pattern.compile("id=\"pipelines\" data-pipelines=\"(\\d+)\"").matcher(dom);
    assertThat(pipelines.find()).as(dom).isTrue();
    assertThat(Integer.parseInt(pipelines.group(1))).as(dom).isGreaterThanOrEqualTo(1);
    // Two topics and the three groups that read them.
    assertThat(dom)
        .containsPattern("id=\"pipeline-graph\"[^>]*data-nodes=\"([5-9]|\\d\\d)\"")
        .containsPattern("data-pipeline=\"demo-orders-(&gt;|>)demo-billing\"")
        .containsPattern("tail: hop [12] \\(demo-orders");
    chromium.screenshot(page, target.resolve("demo-pipelines.png"));
  }

  @Test
  @Order(5)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void ctrlCStopsEverything() throws Exception {
    String signal = stop();
    assertThat(demo.isAlive()).as("demo did not stop on SIG%s", signal).isFalse();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertThat(started.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid))
        .as("processes left running after Ctrl-C")
        .isEmpty();
  }

  /** Whatever failed before, nothing the demo started outlives the class. */
  @AfterAll
  static void stopIfStillRunning() throws Exception {
    if (demo != null && demo.isAlive()) {
      stop();
    }
  }

  /**
   * Presses Ctrl-C and waits up to 90 s; forces the demo and its children down if they do not stop.
   * Returns the signal sent.
   */
  private static String stop() throws Exception {
    // A process started in the background by a shell without job control (`cmd &` in a
    // script) inherits SIGINT ignored, and the JVM then installs no handler for it, so Ctrl-C
    // cannot reach the demo; the same shutdown hook runs on SIGTERM.
    String signal = sigintIgnoredHere() ? "TERM" : "INT";
    if (signal.equals("TERM")) {
      System.out.println("DemoIT: SIGINT is ignored in this process tree; stopping with SIGTERM");
    }
    new ProcessBuilder("kill", "-" + signal, Long.toString(demo.pid())).start().waitFor();
    if (!demo.waitFor(90, TimeUnit.SECONDS)) {
      // Children first: once the demo is gone they are no longer its descendants, and left
      // running (a broker possibly paused) they would slow every test after this one.
      demo.descendants().forEach(ProcessHandle::destroyForcibly);
      demo.destroyForcibly();
      demo.waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError("demo did not stop on SIG" + signal + " within 90 s: forced");
    }
    return signal;
  }

  /** Whether SIGINT (signal 2) is in this process's ignored set; children inherit that set. */
  static boolean sigintIgnoredHere() throws IOException {
    Path status = Paths.get("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false;
    }
    for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
      if (line.startsWith("SigIgn:")) {
        long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
        return (ignored & (1L << (2 - 1))) != 0;
      }
    }
    return false;
  }

  private static boolean cycleComplete(List<String> lines) {
    Scenario first = null;
    boolean left = false;
    for (String line : lines) {
      Matcher m = LINE.matcher(line);
      if (!m.find()) {
        continue;
      }
      Scenario scenario = Scenario.byId(m.group(1));
      if (first == null) {
        first = scenario;
      } else if (scenario != first) {
        left = true;
      } else if (left) {
        return true;
      }
    }
    return false;
  }

  /**
   * The driving segments read in the second half of each scenario, when its effect is in the
   * window.
   */
  // One field of every reading from the second half of a scenario, by scenario.
  private static Map<Scenario, List<String>> lateInScenario(String output, int field) {
    Map<Scenario, List<String>> drivers = new EnumMap<>(Scenario.class);
    for (String line : output.split("\n")) {
      Matcher m = LINE.matcher(line);
      if (m.find()
          && Integer.parseInt(m.group(2)) <= SCENARIO_SECONDS / 2
          && Long.parseLong(m.group(3)) > 0) {
        drivers
            .computeIfAbsent(Scenario.byId(m.group(1)), s -> new ArrayList<>())
            .add(m.group(field));
      }
    }
    return drivers;
  }

  private static String read(Path log) throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  private static int freePort() {
    return dev.klat.kafka.cluster.LoopbackPorts.free();
  }
}

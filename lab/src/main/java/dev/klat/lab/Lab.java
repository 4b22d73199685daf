package dev.klat.lab;

import dev.klat.demo.Progress;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One run of the lab: plans the chosen experiments into the budget, brings up the cluster (or
 * connects to the user's) and a collector of its own, runs every setting, and writes the report.
 * {@link #stop} is safe to call from a shutdown hook at any time.
 */
final class Lab {

  /** What a run produced. */
  record Outcome(Plan plan, List<Result> results, Path html, Path csv) {}

  private static final long PRIME_MS = 5000;

  private final Path root;
  private final LabOptions options;
  private final PrintStream out;
  private final boolean terminal;
  private volatile LabCluster cluster;
  private volatile LabCollector collector;
  private volatile SettingRunner runner;
  private volatile boolean stopping;

  Lab(Path root, LabOptions options, PrintStream out, boolean terminal) {
    this.root = root;
    this.options = options;
    this.out = out;
    this.terminal = terminal;
  }

  Outcome run() throws Exception {
    boolean embedded = options.bootstrap() == null;
    Path agentJar = require(root.resolve("agent/target/klat-agent.jar"));
    Path collectorJar = require(root.resolve("collector/target/klat-collector.jar"));
    Path probeJar =
        embedded ? require(root.resolve("broker-probe/target/klat-broker-probe.jar")) : null;
    String classPath =
        require(root.resolve("lab/target/classes"))
            + java.io.File.pathSeparator
            + Files.readString(require(root.resolve("lab/target/lab.classpath"))).trim();
    List<Experiment> chosen = new ArrayList<>();
    for (String name : options.experiments()) {
      chosen.add(Experiments.named(name));
    }
    Plan plan =
        options.quick()
            ? Plan.quick(chosen, options.repeats(), options.throughputSeconds())
            : Plan.fit(
                chosen,
                options.timeBudget(),
                embedded,
                options.repeats(),
                options.throughputSeconds());
    Path logs = options.out().resolve("logs");
    Files.createDirectories(logs);
    long startNanos = System.nanoTime();
    printPlan(plan);

    collector = new LabCollector();
    cluster =
        embedded
            ? Progress.run(
                out,
                terminal,
                "starting 3 Kafka brokers (KRaft, one JVM each, with klat's broker probe)",
                () -> LabCluster.embedded(options.out(), probeJar, collector.endpoint()))
            : Progress.run(
                out,
                terminal,
                "connecting to " + options.bootstrap(),
                () -> LabCluster.external(options.bootstrap(), options.commandConfig()));
    Progress.run(
        out,
        terminal,
        "starting the collector (OTLP on 127.0.0.1:" + collector.otlpPort + ")",
        () -> {
          collector.start(
              collectorJar,
              LabCollector.brokerArguments(
                  cluster.exporters(),
                  cluster.bootstrapServers(),
                  options.brokerExporterPort(),
                  options.brokerJmxPort(),
                  options.commandConfig()),
              logs.resolve("collector.log"));
          return null;
        });
    String runId = Long.toString(System.currentTimeMillis() / 1000 % 1_000_000, 36);
    runner =
        new SettingRunner(
            cluster, collector, agentJar, classPath, logs, options.recordsPerSecond(), plan, runId);
    Progress.run(
        out,
        terminal,
        "warming up the cluster (" + PRIME_MS / 1000 + " s of traffic, not measured)",
        () -> {
          Primer.prime(cluster, LabCluster.PREFIX + runId + "-prime", PRIME_MS);
          return null;
        });
    String brokers = brokerReadout();
    if (brokers != null) {
      out.println("  " + brokers);
    }
    List<Result> results = new ArrayList<>();
    int total = plan.runCount();
    int done = 0;
    for (Experiment experiment : plan.experiments()) {
      for (RunOrder.Run run : RunOrder.of(experiment.settings().size(), plan.repeats())) {
        Setting setting = experiment.settings().get(run.settingIndex());
        long left = (total - done) * plan.expectedSeconds() / Math.max(1, total);
        String what =
            String.format(
                Locale.ROOT,
                "[%d/%d, %ds in, ~%ds left] %s: %s%s",
                done + 1,
                total,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos),
                left,
                experiment.name(),
                setting.label(),
                plan.repeats() > 1 ? " (run " + run.repeat() + "/" + plan.repeats() + ")" : "");
        Result result = Progress.run(out, terminal, what, () -> runOne(experiment, run, setting));
        results.add(result);
        out.println("    " + Summary.line(result));
        done++;
      }
    }
    Path html = options.out().resolve("lab-report.html");
    Path csv = options.out().resolve("lab-results.csv");
    Files.writeString(csv, CsvReport.of(results), StandardCharsets.UTF_8);
    List<String> context = context(plan);
    brokers = brokerReadout();
    if (brokers != null) {
      context.add(2, brokers + " (at the end of the run)"); // after the line of the cluster
    }
    Files.writeString(html, HtmlReport.of(context, plan, results), StandardCharsets.UTF_8);
    return new Outcome(plan, results, html, csv);
  }

  // A setting that fails for a reason of its own (an application that did not start) is reported
  // and the lab goes on; a refusal by the cluster (ACLs) ends the run.
  private Result runOne(Experiment experiment, RunOrder.Run run, Setting setting) throws Exception {
    try {
      return runner.run(experiment, run.settingIndex(), run.repeat(), setting);
    } catch (LabException e) {
      throw stopping ? new Stopped() : e;
    } catch (IllegalStateException | IOException e) {
      if (stopping) {
        throw new Stopped();
      }
      return Result.failed(experiment, setting, run.repeat(), e.getMessage());
    }
  }

  /** The run was stopped from outside (Ctrl-C): nothing to report. */
  static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("stopped");
    }
  }

  private void printPlan(Plan plan) {
    out.println("klat lab: which segment does each setting move?");
    out.printf(
        Locale.ROOT,
        "plan: %d settings in %d experiments%s; per run %d s warm-up, %d s measured at %.0f"
            + " records/s%s; about %d min%n",
        plan.settingCount(),
        plan.experiments().size(),
        plan.repeats() > 1 ? ", each run " + plan.repeats() + " times in alternating order" : "",
        plan.warmupMs() / 1000,
        plan.measureMs() / 1000,
        options.recordsPerSecond(),
        plan.burstMs() > 0 ? ", " + plan.burstMs() / 1000 + " s unbounded" : "",
        Math.max(1, Math.round(plan.expectedSeconds() / 60.0)));
    for (String skipped : plan.skipped()) {
      out.println("skipped: " + skipped);
    }
    out.println("logs: " + options.out().resolve("logs"));
  }

  private List<String> context(Plan plan) {
    List<String> lines = new ArrayList<>();
    lines.add("run " + Instant.now() + (options.quick() ? " (quick profile)" : ""));
    lines.add(
        options.bootstrap() == null
            ? "cluster: embedded, 3 KRaft brokers on this machine (one JVM each, broker probe)"
            : "cluster: " + options.bootstrap() + brokerMetrics());
    lines.add(
        "machine: "
            + Runtime.getRuntime().availableProcessors()
            + " cores, "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.arch")
            + ", Java "
            + System.getProperty("java.version"));
    lines.add(
        String.format(
            Locale.ROOT,
            "each run of a setting: a fresh topic (replication %s, LogAppendTime), one consumer"
                + " JVM and the producer JVMs with the klat agent (25%% of records sampled), %d s"
                + " warm-up, %d s measured at %.0f records/s%s",
            options.bootstrap() == null ? "3" : "up to 3",
            plan.warmupMs() / 1000,
            plan.measureMs() / 1000,
            options.recordsPerSecond(),
            plan.burstMs() > 0
                ? ", then " + plan.burstMs() / 1000 + " s at an unbounded rate for throughput"
                : ""));
    if (plan.repeats() > 1) {
      lines.add(
          "repeats: each setting ran "
              + plan.repeats()
              + " times, forward then backward through the values; charts and findings show"
              + " the median of the runs, whiskers and ranges show the lowest and highest run");
    }
    lines.add("figures: " + options.out().resolve("lab-results.csv"));
    return lines;
  }

  /**
   * What the collector reads from the user's brokers, when the options asked it to read them; null
   * otherwise. Its discovery and first scrapes happen while the primer runs.
   */
  private String brokerReadout() {
    if (options.brokerExporterPort() == null && options.brokerJmxPort() == null) {
      return null;
    }
    try {
      String json = dev.klat.demo.AdminClient.get(collector.adminPort, "/api/brokers");
      return json == null
          ? "the brokers' request metrics: the collector did not answer /api/brokers"
          : BrokerReadout.describe(json);
    } catch (IOException e) {
      return "the brokers' request metrics: the collector did not answer /api/brokers (" + e + ")";
    }
  }

  private String brokerMetrics() {
    List<String> from = new ArrayList<>();
    if (options.brokerExporterPort() != null) {
      from.add("their JMX exporters on port " + options.brokerExporterPort());
    }
    if (options.brokerJmxPort() != null) {
      from.add("JMX on port " + options.brokerJmxPort());
    }
    return from.isEmpty()
        ? " (publish and commit split by LogAppendTime; commit bounded by the acks)"
        : " (the brokers' request metrics read from " + String.join(", then ", from) + ")";
  }

  /**
   * Stops every application, the collector and the cluster, deleting the lab's topics; true when
   * there was something to stop.
   */
  synchronized boolean stop() {
    stopping = true;
    boolean running = runner != null || collector != null || cluster != null;
    SettingRunner started = runner;
    runner = null;
    if (started != null) {
      started.killAll();
    }
    LabCollector listening = collector;
    collector = null;
    if (listening != null) {
      listening.close();
    }
    LabCluster connected = cluster;
    cluster = null;
    if (connected != null) {
      connected.close();
    }
    return running;
  }

  private static Path require(Path path) {
    if (!Files.exists(path)) {
      throw new LabException(path + " is missing: build first (./klat lab builds what it needs)");
    }
    return path;
  }
}

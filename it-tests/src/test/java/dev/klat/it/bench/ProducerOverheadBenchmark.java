package dev.klat.it.bench;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Producer overhead of the klat agent, side by side with no agent, in one run.
 *
 * <p>Method: one local broker (this project's fixture), a 6-partition topic; Kafka's {@code
 * ProducerPerformance} (kafka-tools 4.3.1 on kafka-clients 4.4.0) sends 100-byte records, {@code
 * acks=1}, {@code linger.ms=5}, unthrottled, in a fresh JVM per run. Variants alternate within each
 * round, the first variant alternating between rounds, so that drift and noise on the machine hit
 * both alike. The agent runs at its default settings, exporting to an OTLP receiver in this JVM.
 * Reported per variant: median and range of throughput, median p50 and p99 producer latency (the
 * tool's own), median CPU time per record (the forked JVM's process CPU time over the records,
 * which includes JVM start-up and warm-up for both variants alike), and, separately, JVM start-up
 * wall time with and without the agent (a JVM that creates and closes one producer).
 *
 * <p>Run: {@code ./mvnw -pl it-tests -am verify -Pbench -DskipTests}. Results go to stdout and to
 * {@code it-tests/target/bench/producer-overhead.md}.
 */
public final class ProducerOverheadBenchmark {

  private static final Pattern SUMMARY =
      Pattern.compile(
          "(\\d+) records sent, ([\\d.]+) records/sec .*?([\\d.]+) ms avg latency.*?(\\d+) ms 50th,"
              + " (\\d+) ms 95th, (\\d+) ms 99th");

  private static Path TARGET;

  private ProducerOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 5);
    long records = Long.getLong("bench.records", 3_000_000L);
    int startupRuns = Integer.getInteger("bench.startup.runs", 10);
    Path agentJar = Paths.get(System.getProperty("klat.agent.jar"));
    Path clientsDir = Paths.get(System.getProperty("klat.kafka-clients.dir"));
    Path toolsDir = Paths.get(System.getProperty("klat.kafka-tools.dir"));
    // exec:java runs in Maven's JVM, whose working directory is wherever mvn was started.
    TARGET = Paths.get(System.getProperty("klat.it.target"));
    Path testClasses = TARGET.resolve("test-classes");
    String classpath =
        classpath(testClasses, toolsDir, clientsDir.resolve("4.4.0"), clientsDir.resolve("common"));

    Map<String, List<Run>> runs = new LinkedHashMap<>();
    runs.put("no agent", new ArrayList<>());
    runs.put("klat (defaults)", new ArrayList<>());
    Map<String, List<Long>> startupMillis = new LinkedHashMap<>();
    startupMillis.put("no agent", new ArrayList<>());
    startupMillis.put("klat (defaults)", new ArrayList<>());

    try (KafkaCluster cluster =
            KafkaCluster.start(
                KafkaClusterSpec.brokers(1)
                    .name("bench")
                    .brokerHeapMb(1024)
                    .workRoot(TARGET.resolve("kafka-cluster"))
                    .build());
        dev.klat.it.agent.OtlpReceiver receiver = new dev.klat.it.agent.OtlpReceiver()) {
      cluster.createTopic(TopicSpec.named("bench").partitions(6).build());
      List<String> agentOptions = new ArrayList<>();
      agentOptions.add("-javaagent:" + agentJar);
      agentOptions.add("-Dklat.endpoint=" + receiver.endpoint());
      // For profiling, e.g. -Dbench.agent.jvm=-XX:StartFlightRecording=filename=agent.jfr
      String extra = System.getProperty("bench.agent.jvm", "").trim();
      if (!extra.isEmpty()) {
        agentOptions.addAll(List.of(extra.split("\\s+")));
      }
      // One discarded run of each variant: the broker's JIT and page cache warm up before
      // anything is measured.
      perf(classpath, List.of(), cluster.bootstrapServers(), records / 3);
      perf(classpath, agentOptions, cluster.bootstrapServers(), records / 3);
      for (int round = 0; round < rounds; round++) {
        List<String> order = new ArrayList<>(runs.keySet());
        if (round % 2 == 1) {
          Collections.reverse(order);
        }
        for (String variant : order) {
          List<String> jvm = variant.equals("no agent") ? List.of() : agentOptions;
          Run run = perf(classpath, jvm, cluster.bootstrapServers(), records);
          runs.get(variant).add(run);
          System.out.printf(Locale.ROOT, "round %d %-16s %s%n", round + 1, variant, run.describe());
        }
      }
      for (int i = 0; i < startupRuns; i++) {
        for (String variant : startupMillis.keySet()) {
          List<String> jvm = variant.equals("no agent") ? List.of() : agentOptions;
          startupMillis.get(variant).add(startup(classpath, jvm));
        }
      }
    }
    String report = report(runs, startupMillis, rounds, records);
    System.out.println(report);
    Path out = Files.createDirectories(TARGET.resolve("bench")).resolve("producer-overhead.md");
    Files.writeString(out, report, StandardCharsets.UTF_8);
  }

  record Run(
      double recordsPerSecond,
      double p50Millis,
      double p99Millis,
      double cpuNanosPerRecord,
      double cpuBeforeMainMillis,
      double networkThreadNanosPerRecord) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "%,.0f rec/s  p50 %.0f ms  p99 %.0f ms  cpu %.0f ns/rec  before main %.0f ms"
              + "  network thread %.0f ns/rec",
          recordsPerSecond,
          p50Millis,
          p99Millis,
          cpuNanosPerRecord,
          cpuBeforeMainMillis,
          networkThreadNanosPerRecord);
    }
  }

  private static Run perf(String classpath, List<String> jvmOptions, String bootstrap, long records)
      throws IOException, InterruptedException {
    List<String> command = java(classpath, jvmOptions);
    command.addAll(
        List.of(
            PerfMain.class.getName(),
            "--topic",
            "bench",
            "--num-records",
            Long.toString(records),
            "--record-size",
            "100",
            "--throughput",
            "-1",
            "--producer-props",
            "bootstrap.servers=" + bootstrap,
            "acks=1",
            "linger.ms=5"));
    String output = run(command, 600);
    Matcher summary = null;
    for (String line : output.split("\n")) {
      Matcher m = SUMMARY.matcher(line);
      if (m.find()) {
        summary = m;
      }
    }
    if (summary == null) {
      throw new IllegalStateException("no ProducerPerformance summary in:\n" + output);
    }
    long sent = Long.parseLong(summary.group(1));
    long cpuNanos = Long.parseLong(value(output, "CPU_NANOS"));
    long beforeMainNanos = Long.parseLong(value(output, "CPU_BEFORE_MAIN_NANOS"));
    long networkThreadNanos = Long.parseLong(value(output, "THREAD_CPU_NANOS kafka"));
    return new Run(
        Double.parseDouble(summary.group(2)),
        Double.parseDouble(summary.group(4)),
        Double.parseDouble(summary.group(6)),
        (double) cpuNanos / sent,
        beforeMainNanos / 1e6,
        (double) networkThreadNanos / sent);
  }

  private static long startup(String classpath, List<String> jvmOptions)
      throws IOException, InterruptedException {
    List<String> command = java(classpath, jvmOptions);
    command.add(StartupMain.class.getName());
    long start = System.nanoTime();
    run(command, 60);
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private static List<String> java(String classpath, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xms512m");
    command.add("-Xmx512m");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath);
    return command;
  }

  private static String run(List<String> command, int timeoutSeconds)
      throws IOException, InterruptedException {
    Path log =
        Files.createTempFile(Files.createDirectories(TARGET.resolve("bench")), "run-", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("timed out: " + command);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IllegalStateException("exit " + process.exitValue() + ":\n" + output);
    }
    return output;
  }

  private static String value(String output, String key) {
    for (String line : output.split("\n")) {
      if (line.startsWith(key + "=")) {
        return line.substring(key.length() + 1).trim();
      }
    }
    throw new IllegalStateException("no " + key + " in:\n" + output);
  }

  private static String classpath(Path... entries) throws IOException {
    List<String> parts = new ArrayList<>();
    for (Path entry : entries) {
      if (Files.isDirectory(entry) && !entry.getFileName().toString().endsWith("classes")) {
        try (Stream<Path> jars = Files.list(entry)) {
          parts.addAll(jars.map(Path::toString).sorted().collect(Collectors.toList()));
        }
      } else {
        parts.add(entry.toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, parts);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().collect(Collectors.toList());
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String report(
      Map<String, List<Run>> runs,
      Map<String, List<Long>> startupMillis,
      int rounds,
      long records) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%d rounds, %,d records of 100 bytes per run, acks=1, linger.ms=5, unthrottled%n%n",
            rounds,
            records));
    out.append(
        "| variant | throughput median (rec/s) | range | vs no agent | p50 ms | p99 ms | CPU ns/record | vs no agent | CPU before main ms | network thread ns/record | start-up ms (median) |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    double baseThroughput = 0;
    double baseCpu = 0;
    double baseStartup = 0;
    for (Map.Entry<String, List<Run>> entry : runs.entrySet()) {
      List<Run> list = entry.getValue();
      double throughput =
          median(list.stream().map(Run::recordsPerSecond).collect(Collectors.toList()));
      double min = list.stream().mapToDouble(Run::recordsPerSecond).min().orElse(0);
      double max = list.stream().mapToDouble(Run::recordsPerSecond).max().orElse(0);
      double p50 = median(list.stream().map(Run::p50Millis).collect(Collectors.toList()));
      double p99 = median(list.stream().map(Run::p99Millis).collect(Collectors.toList()));
      double cpu = median(list.stream().map(Run::cpuNanosPerRecord).collect(Collectors.toList()));
      double beforeMain =
          median(list.stream().map(Run::cpuBeforeMainMillis).collect(Collectors.toList()));
      double network =
          median(list.stream().map(Run::networkThreadNanosPerRecord).collect(Collectors.toList()));
      double startup =
          median(
              startupMillis.get(entry.getKey()).stream()
                  .map(Long::doubleValue)
                  .collect(Collectors.toList()));
      if (baseThroughput == 0) {
        baseThroughput = throughput;
        baseCpu = cpu;
        baseStartup = startup;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %,.0f – %,.0f | %.1f%% | %.0f | %.0f | %.0f | %+.1f%% | %.0f | %.0f | %.0f (%+.0f) |%n",
              entry.getKey(),
              throughput,
              min,
              max,
              100 * throughput / baseThroughput,
              p50,
              p99,
              cpu,
              100 * (cpu - baseCpu) / baseCpu,
              beforeMain,
              network,
              startup,
              startup - baseStartup));
    }
    return out.toString();
  }
}

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
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Consumer overhead of the klat agent, side by side with no agent, in one run.
 *
 * <p>Method: one local broker (this project's fixture), a 6-partition topic filled once with
 * 100-byte records by {@code ProducerPerformance} with the agent at its defaults (so that about as
 * many records carry klat headers as in production). Then Kafka's {@code ConsumerPerformance}
 * (kafka-tools 4.3.1 on kafka-clients 4.4.0) reads them all from the beginning, in a fresh JVM and
 * a fresh group per run, with the classic and the new ({@code group.protocol=consumer}) protocol.
 * Variants alternate within each round, the first alternating between rounds. Reported per variant:
 * median and range of the tool's {@code fetch.nMsg.sec} (records per second once the group has
 * joined) and the median CPU time per record of the forked JVM (all threads, start-up included).
 *
 * <p>Run: {@code ./mvnw -pl it-tests -am verify -Pbench-consumer -DskipTests}. Results go to stdout
 * and to {@code it-tests/target/bench/consumer-overhead.md}.
 */
public final class ConsumerOverheadBenchmark {

  private static Path TARGET;
  private static int groups;

  private ConsumerOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 5);
    long records = Long.getLong("bench.records", 3_000_000L);
    Path agentJar = Paths.get(System.getProperty("klat.agent.jar"));
    Path clientsDir = Paths.get(System.getProperty("klat.kafka-clients.dir"));
    Path toolsDir = Paths.get(System.getProperty("klat.kafka-tools.dir"));
    TARGET = Paths.get(System.getProperty("klat.it.target"));
    String classpath =
        classpath(
            TARGET.resolve("test-classes"),
            toolsDir,
            clientsDir.resolve("4.4.0"),
            clientsDir.resolve("common"));

    // -Dbench.protocols=classic runs one protocol only; -Dbench.compare.jar=other-klat-agent.jar
    // adds a "klat (compare)" variant per protocol, interleaved with the others, to compare two
    // builds of the agent in one run.
    String compareJar = System.getProperty("bench.compare.jar", "").trim();
    List<String> variants = new ArrayList<>();
    for (String protocol : System.getProperty("bench.protocols", "classic,consumer").split(",")) {
      variants.add(protocol + ", no agent");
      variants.add(protocol + ", klat");
      if (!compareJar.isEmpty()) {
        variants.add(protocol + ", klat (compare)");
      }
    }
    Map<String, List<double[]>> runs = new LinkedHashMap<>();
    variants.forEach(v -> runs.put(v, new ArrayList<>()));

    try (KafkaCluster cluster =
            KafkaCluster.start(
                KafkaClusterSpec.brokers(1)
                    .name("bench-consumer")
                    .brokerHeapMb(1024)
                    .workRoot(TARGET.resolve("kafka-cluster"))
                    .build());
        dev.klat.it.agent.OtlpReceiver receiver = new dev.klat.it.agent.OtlpReceiver()) {
      cluster.createTopic(TopicSpec.named("bench").partitions(6).build());
      List<String> agentOptions = new ArrayList<>();
      agentOptions.add("-javaagent:" + agentJar);
      agentOptions.add("-Dklat.endpoint=" + receiver.endpoint());
      // For profiling, e.g. -Dbench.agent.jvm=-XX:StartFlightRecording=filename=agent-%p.jfr
      String extra = System.getProperty("bench.agent.jvm", "").trim();
      if (!extra.isEmpty()) {
        agentOptions.addAll(List.of(extra.split("\\s+")));
      }
      List<String> compareOptions = new ArrayList<>(agentOptions);
      compareOptions.set(0, "-javaagent:" + compareJar);
      fill(classpath, agentOptions, cluster.bootstrapServers(), records);
      // One discarded run of each protocol: the broker's JIT and page cache warm up first.
      consume(classpath, List.of(), cluster.bootstrapServers(), records, "classic");
      consume(classpath, List.of(), cluster.bootstrapServers(), records, "consumer");
      for (int round = 0; round < rounds; round++) {
        List<String> order = new ArrayList<>(variants);
        if (round % 2 == 1) {
          Collections.reverse(order);
        }
        for (String variant : order) {
          String protocol = variant.startsWith("classic") ? "classic" : "consumer";
          List<String> jvm =
              variant.endsWith("klat")
                  ? agentOptions
                  : variant.endsWith("(compare)") ? compareOptions : List.of();
          double[] run = consume(classpath, jvm, cluster.bootstrapServers(), records, protocol);
          runs.get(variant).add(run);
          System.out.printf(
              Locale.ROOT,
              "round %d %-30s %,.0f rec/s  cpu %.0f ns/rec  main thread %.0f ns/rec%n",
              round + 1,
              variant,
              run[0],
              run[1],
              run[4]);
        }
      }
    }
    String report = report(runs, rounds, records);
    System.out.println(report);
    Path out = Files.createDirectories(TARGET.resolve("bench")).resolve("consumer-overhead.md");
    Files.writeString(out, report, StandardCharsets.UTF_8);
  }

  private static void fill(String classpath, List<String> jvm, String bootstrap, long records)
      throws IOException, InterruptedException {
    List<String> command = java(classpath, jvm);
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
    run(command, 600);
  }

  /**
   * Returns {records per second after the join, CPU ns per record, CPU ns per record after {@code
   * main} started, CPU ms before {@code main}, CPU ns per record of the application thread}.
   */
  private static double[] consume(
      String classpath, List<String> jvm, String bootstrap, long records, String protocol)
      throws IOException, InterruptedException {
    List<String> options = new ArrayList<>();
    // bench.jvm applies to every run, bench.agent.jvm to the agent's; "%p" in either becomes the
    // run's number (Java 17's JFR does not expand it), e.g.
    // -Dbench.jvm=-XX:StartFlightRecording=filename=/tmp/consumer-%p.jfr
    String all = System.getProperty("bench.jvm", "").trim();
    if (!all.isEmpty()) {
      options.addAll(List.of(all.split("\\s+")));
    }
    options.addAll(jvm);
    int run = ++groups;
    options.replaceAll(o -> o.replace("%p", run + "-" + protocol + (jvm.isEmpty() ? "" : "-klat")));
    options.add("-Dbench.tool=org.apache.kafka.tools.ConsumerPerformance");
    List<String> command = java(classpath, options);
    command.addAll(
        List.of(
            PerfMain.class.getName(),
            "--bootstrap-server",
            bootstrap,
            "--topic",
            "bench",
            "--num-records",
            Long.toString(records),
            "--group",
            "bench-" + run,
            "--timeout",
            "60000",
            "--command-property",
            "group.protocol=" + protocol));
    String output = run(command, 600);
    String[] values = null;
    for (String line : output.split("\n")) {
      String[] fields = line.split(",\\s*");
      if (fields.length >= 10 && !line.startsWith("start.time")) {
        values = fields;
      }
    }
    if (values == null) {
      throw new IllegalStateException("no ConsumerPerformance summary in:\n" + output);
    }
    long consumed = Long.parseLong(values[4].trim());
    long cpuNanos = Long.parseLong(value(output, "CPU_NANOS"));
    long beforeMainNanos = Long.parseLong(value(output, "CPU_BEFORE_MAIN_NANOS"));
    return new double[] {
      Double.parseDouble(values[9].trim()),
      (double) cpuNanos / consumed,
      (double) (cpuNanos - beforeMainNanos) / consumed,
      beforeMainNanos / 1e6,
      Long.parseLong(value(output, "THREAD_CPU_NANOS main")) / (double) consumed
    };
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
        Files.createTempFile(
            Files.createDirectories(TARGET.resolve("bench")), "consumer-run-", ".log");
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

  private static String report(Map<String, List<double[]>> runs, int rounds, long records) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%d rounds, %,d records of 100 bytes per run, 6 partitions, read from the beginning%n%n",
            rounds,
            records));
    out.append(
        "| variant | throughput median (rec/s) | range | vs no agent | CPU ns/record | vs no agent"
            + " | CPU after main ns/record | vs no agent | CPU before main ms |\n");
    out.append("|---|---|---|---|---|---|---|---|---|\n");
    Map<String, double[]> baseByProtocol = new LinkedHashMap<>();
    for (Map.Entry<String, List<double[]>> entry : runs.entrySet()) {
      List<double[]> list = entry.getValue();
      double throughput = median(list.stream().map(r -> r[0]).collect(Collectors.toList()));
      double min = list.stream().mapToDouble(r -> r[0]).min().orElse(0);
      double max = list.stream().mapToDouble(r -> r[0]).max().orElse(0);
      double cpu = median(list.stream().map(r -> r[1]).collect(Collectors.toList()));
      double afterMain = median(list.stream().map(r -> r[2]).collect(Collectors.toList()));
      double beforeMain = median(list.stream().map(r -> r[3]).collect(Collectors.toList()));
      String protocol = entry.getKey().substring(0, entry.getKey().indexOf(','));
      double[] base =
          baseByProtocol.computeIfAbsent(protocol, p -> new double[] {throughput, cpu, afterMain});
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %,.0f – %,.0f | %.1f%% | %.0f | %+.1f%% | %.0f | %+.1f%% | %.0f |%n",
              entry.getKey(),
              throughput,
              min,
              max,
              100 * throughput / base[0],
              cpu,
              100 * (cpu - base[1]) / base[1],
              afterMain,
              100 * (afterMain - base[2]) / base[2],
              beforeMain));
    }
    return out.toString();
  }
}

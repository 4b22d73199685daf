package dev.klat.it.bench;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The benchmark suite of issue 8: one command, every variant side by side in the same rounds.
 *
 * <ol>
 *   <li>Agent overhead: one local broker (this project's fixture); Kafka's own {@code
 *       ProducerPerformance} and {@code ConsumerPerformance} (kafka-tools, on kafka-clients 4.4.0),
 *       each run in a fresh JVM wrapped by {@link PerfMain}, under each variant: no agent, klat at
 *       its defaults, klat sampling every record, and the OpenTelemetry Java agent with its
 *       exporters off and on (OTLP to {@link DiscardingOtlpReceiver} in this JVM, where klat
 *       exports too). Rounds interleave the variants, the order rotated by one each round, so that
 *       drift and noise on the machine hit every variant alike. Then JVM start-up, interleaved the
 *       same way ({@link StartupMain}: a JVM that creates and closes one producer).
 *   <li>The JMH microbenchmarks of {@code benchmarks/} ({@code benchmarks.jar}).
 *   <li>The collector's {@code CorrelatorBench} and {@code IngestBench}, pinned to one core.
 * </ol>
 *
 * <p>Results: {@code target/bench/suite.md} (tables), {@code suite.svg} (plot), {@code
 * suite-runs.csv} (every run), {@code jmh.txt}, and one log per forked JVM. Options are system
 * properties, listed in {@code docs/benchmarks.md}; {@code -Dbench.quick=true} runs a smoke test of
 * the whole harness in a few minutes and its figures mean nothing.
 *
 * <p>Run: {@code ./mvnw -pl it-tests -am verify -Pbench-suite -DskipTests} or {@code ./klat bench}.
 */
public final class BenchSuite {

  /** The agent variants, in the default order; the first selected one is the baseline. */
  enum Variant {
    NONE("none", "no agent"),
    KLAT("klat", "klat (defaults)"),
    KLAT_ALL("klat-all", "klat, every record sampled"),
    /** klat at its defaults from the jar {@code -Dbench.compare.jar} names: before and after. */
    KLAT_COMPARE("klat-compare", "klat (defaults), compare jar"),
    /** Every record sampled, from the compare jar: the per-span work before and after. */
    KLAT_ALL_COMPARE("klat-all-compare", "klat, every record sampled, compare jar"),
    OTEL_OFF("otel-off", "OpenTelemetry agent, exporters off"),
    OTEL_OTLP("otel-otlp", "OpenTelemetry agent, OTLP export"),
    /** klat at its defaults, attached once kafka-clients is loaded, as {@code klat attach} does. */
    KLAT_ATTACHED("klat-attached", "klat (defaults), attached at run time"),
    /** Both agents, klat at its defaults, OpenTelemetry exporting OTLP: the cost of the pair. */
    KLAT_OTEL("klat-otel", "klat (defaults) and the OpenTelemetry agent, OTLP export");

    final String id;
    final String label;

    Variant(String id, String label) {
      this.id = id;
      this.label = label;
    }

    static Variant of(String id) {
      for (Variant v : values()) {
        if (v.id.equals(id)) {
          return v;
        }
      }
      throw new IllegalArgumentException(
          "unknown variant "
              + id
              + "; known: none, klat, klat-all, klat-compare, klat-all-compare, klat-attached, otel-off, otel-otlp,"
              + " klat-otel");
    }
  }

  /** One cell of the load matrix; {@code acks} is null for the consumer. */
  /** A producer load with its {@code acks}, or a consumer load with its group protocol. */
  record Load(boolean producer, int recordBytes, String acks, String groupProtocol) {
    String label() {
      return producer
          ? String.format(Locale.ROOT, "producer, %d B, acks=%s", recordBytes, acks)
              + (PRODUCER_RECORDS_PER_SECOND > 0
                  ? String.format(
                      Locale.ROOT, ", at most %,d records/s", PRODUCER_RECORDS_PER_SECOND)
                  : "")
          : String.format(
              Locale.ROOT, "consumer, %d B, group.protocol=%s", recordBytes, groupProtocol);
    }

    String topic() {
      return (producer ? "produce-" : "consume-") + recordBytes;
    }
  }

  /** One measured run. NaN where the tool reports nothing (latency of the consumer). */
  record Run(
      Variant variant,
      Load load,
      int round,
      long records,
      double recordsPerSecond,
      double p50Millis,
      double p99Millis,
      double cpuNanosPerRecord,
      double allocatedBytesPerRecord,
      double cpuBeforeMainMillis,
      double allocatedBeforeMainBytes,
      double jitCpuMillis,
      ThreadCpu threads,
      Warm warm) {

    /** Bytes allocated per record leaving out what was allocated before {@code main}. */
    double allocatedAfterMainBytesPerRecord() {
      return allocatedBytesPerRecord - allocatedBeforeMainBytes / records;
    }

    /** CPU per record leaving out what the JVM and the agent spent before {@code main}. */
    double cpuAfterMainNanosPerRecord() {
      return cpuNanosPerRecord - cpuBeforeMainMillis * 1e6 / records;
    }

    /**
     * CPU per record after {@code main} leaving out the JIT compiler threads too: the steady cost
     * per record, without compiling the hot code once.
     */
    double cpuSteadyNanosPerRecord() {
      return cpuAfterMainNanosPerRecord() - jitCpuMillis * 1e6 / records;
    }
  }

  /**
   * The second half of a run's records ({@link WarmWindow}): throughput and CPU once the hot code
   * is compiled. Null when the client's metrics could not be read.
   */
  record Warm(long records, double recordsPerSecond, double cpuNanosPerRecord, ThreadCpu threads) {

    static Warm parse(String output) {
      String prefix = WarmWindow.PREFIX;
      if (!output.contains(prefix + "RECORDS=")) {
        return null;
      }
      long records = Long.parseLong(value(output, prefix + "RECORDS"));
      long millis = Long.parseLong(value(output, prefix + "MILLIS"));
      long cpuNanos = Long.parseLong(value(output, prefix + "CPU_NANOS"));
      long jitNanos = Long.parseLong(value(output, prefix + "JIT_CPU_NANOS"));
      if (records <= 0 || millis <= 0) {
        return null;
      }
      return new Warm(
          records,
          records * 1000.0 / millis,
          (double) cpuNanos / records,
          ThreadCpu.parse(output, prefix, records, cpuNanos, jitNanos));
    }
  }

  private static final Pattern PRODUCER_SUMMARY =
      Pattern.compile(
          "(\\d+) records sent, ([\\d.]+) records/sec .*?([\\d.]+) ms avg latency.*?(\\d+) ms 50th,"
              + " (\\d+) ms 95th, (\\d+) ms 99th");

  private static final Pattern CORRELATOR_ROUND =
      Pattern.compile(
          "round (\\d+): (\\d+) joins in ([\\d.]+) s = (\\d+) joins/s; heap after GC with (\\d+)"
              + " records pending: ([\\d.]+) MiB");

  private static final Pattern INGEST = Pattern.compile("= (\\d+) joins/s \\(round (\\d+)\\)");

  private static Path target;
  private static Path benchDir;
  private static int groups;

  private BenchSuite() {}

  public static void main(String[] args) throws Exception {
    boolean quick = Boolean.getBoolean("bench.quick");
    List<Variant> variants =
        list("bench.variants", "none,klat,klat-all,otel-off,otel-otlp").stream()
            .map(Variant::of)
            .collect(Collectors.toList());
    if ((variants.contains(Variant.KLAT_COMPARE) || variants.contains(Variant.KLAT_ALL_COMPARE))
        && !Files.isRegularFile(Paths.get(System.getProperty("bench.compare.jar", " ").trim()))) {
      throw new IllegalArgumentException(
          "variants klat-compare and klat-all-compare need -Dbench.compare.jar=<an agent jar>,"
              + " an existing file");
    }
    List<String> loadKinds = list("bench.loads", "producer,consumer");
    List<Integer> sizes =
        list("bench.sizes", "100,1024").stream().map(Integer::valueOf).collect(Collectors.toList());
    List<String> acks = list("bench.acks", "1,all");
    List<String> groupProtocols = list("bench.group.protocols", "classic,consumer");
    int rounds = Integer.getInteger("bench.rounds", quick ? 1 : 3);
    long records = Long.getLong("bench.records", quick ? 20_000L : 1_000_000L);
    int startupRuns = Integer.getInteger("bench.startup.runs", quick ? 1 : 5);
    boolean warmup = Boolean.parseBoolean(System.getProperty("bench.warmup", "" + !quick));
    boolean jmh = Boolean.parseBoolean(System.getProperty("bench.jmh", "true"));
    boolean collector = Boolean.parseBoolean(System.getProperty("bench.collector", "true"));

    target = Paths.get(System.getProperty("klat.it.target"));
    benchDir = Files.createDirectories(target.resolve("bench"));
    Path agentJar = Paths.get(System.getProperty("klat.agent.jar"));
    Path otelJar = Paths.get(System.getProperty("klat.otel.agent.jar"));
    Path clientsDir = Paths.get(System.getProperty("klat.kafka-clients.dir"));
    Path toolsDir = Paths.get(System.getProperty("klat.kafka-tools.dir"));
    String classpath =
        classpath(
            target.resolve("test-classes"),
            toolsDir,
            clientsDir.resolve("4.4.0"),
            clientsDir.resolve("common"));

    List<Load> loads = new ArrayList<>();
    for (String kind : loadKinds) {
      for (int size : sizes) {
        if (kind.equals("producer")) {
          for (String a : acks) {
            loads.add(new Load(true, size, a, null));
          }
        } else if (kind.equals("consumer")) {
          for (String protocol : groupProtocols) {
            loads.add(new Load(false, size, null, protocol));
          }
        } else {
          throw new IllegalArgumentException(
              "unknown load " + kind + "; known: producer, consumer");
        }
      }
    }

    String started = Instant.now().toString();
    double loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    List<Run> runs = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    Map<Variant, List<Long>> startupMillis = new LinkedHashMap<>();
    if (!variants.isEmpty() && !loads.isEmpty()) {
      try (KafkaCluster cluster =
              KafkaCluster.start(
                  KafkaClusterSpec.brokers(1)
                      .name("bench-suite")
                      .brokerHeapMb(1024)
                      .workRoot(target.resolve("kafka-cluster"))
                      .build());
          DiscardingOtlpReceiver receiver = new DiscardingOtlpReceiver()) {
        String bootstrap = cluster.bootstrapServers();
        Map<Variant, List<String>> options = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
          options.put(v, jvmOptions(v, agentJar, otelJar, receiver.endpoint()));
        }
        java.util.Set<String> topics = new java.util.HashSet<>();
        for (Load load : loads) {
          if (!topics.add(load.topic())) {
            continue;
          }
          TopicSpec.Builder topic = TopicSpec.named(load.topic()).partitions(6);
          if (load.producer()) {
            // Producer runs append for the whole suite; old segments may go.
            topic.config("retention.bytes", Long.toString(256L << 20));
            topic.config("segment.bytes", Long.toString(64L << 20));
          }
          cluster.createTopic(topic.build());
          if (!load.producer()) {
            // Filled once, by the producer at klat's defaults, so that a realistic few records
            // carry klat headers; every consumer run reads them all from the beginning.
            produce(
                classpath, options.get(Variant.KLAT), bootstrap, load, recordsFor(load, records));
          }
        }
        if (warmup) {
          // One discarded run per load: the broker's JIT and page cache warm up first.
          for (Load load : loads) {
            measure(classpath, List.of(), bootstrap, load, recordsFor(load, records));
          }
        }
        for (int round = 0; round < rounds; round++) {
          List<Variant> order = rotate(variants, round);
          for (Load load : loads) {
            for (Variant variant : order) {
              try {
                Run run =
                    measure(
                            classpath,
                            options.get(variant),
                            bootstrap,
                            load,
                            recordsFor(load, records))
                        .as(variant, round);
                runs.add(run);
                System.out.printf(
                    Locale.ROOT,
                    "round %d  %-26s %-38s %,12.0f rec/s  cpu %6.0f ns/rec  alloc %7.0f B/rec%n",
                    round + 1,
                    load.label(),
                    variant.label,
                    run.recordsPerSecond(),
                    run.cpuNanosPerRecord(),
                    run.allocatedBytesPerRecord());
              } catch (RuntimeException e) {
                String failure =
                    "round " + (round + 1) + ", " + load.label() + ", " + variant.label + ": " + e;
                failures.add(failure.length() > 2000 ? failure.substring(0, 2000) : failure);
                System.out.println("FAILED " + failure);
              }
            }
          }
        }
        for (int i = 0; i < startupRuns; i++) {
          for (Variant variant : rotate(variants, i)) {
            try {
              startupMillis
                  .computeIfAbsent(variant, v -> new ArrayList<>())
                  .add(startup(classpath, options.get(variant)));
            } catch (RuntimeException e) {
              failures.add("start-up, " + variant.label + ": " + e);
            }
          }
        }
        System.out.printf(
            Locale.ROOT,
            "OTLP receiver: %,d requests, %,d bytes%n",
            receiver.requests(),
            receiver.bytes());
      }
    }

    String jmhReport = "";
    if (jmh) {
      try {
        jmhReport = jmh(quick);
      } catch (RuntimeException e) {
        failures.add("JMH: " + e);
      }
    }
    String collectorReport = "";
    if (collector) {
      try {
        collectorReport = collector(quick);
      } catch (RuntimeException e) {
        failures.add("collector: " + e);
      }
    }
    String probeReport = "";
    if (Boolean.parseBoolean(System.getProperty("bench.probe", "true"))) {
      try {
        probeReport =
            BrokerProbeBench.run(
                classpath,
                Paths.get(System.getProperty("klat.broker-probe.jar")),
                target.resolve("kafka-cluster"),
                Long.getLong("bench.probe.records", quick ? 20_000L : 500_000L),
                rounds,
                warmup);
      } catch (Exception e) {
        failures.add("broker probe: " + e);
      }
    }

    String settings =
        SuiteReport.settings(started, quick, rounds, records, startupRuns, warmup, loadAtStart);
    String report =
        SuiteReport.markdown(settings, variants, loads, runs, startupMillis, failures)
            + jmhReport
            + collectorReport
            + probeReport;
    System.out.println(report);
    Files.writeString(benchDir.resolve("suite.md"), report, StandardCharsets.UTF_8);
    if (!runs.isEmpty()) {
      Files.writeString(
          benchDir.resolve("suite.svg"), Svg.plot(variants, loads, runs), StandardCharsets.UTF_8);
    }
    Files.writeString(
        benchDir.resolve("suite-runs.csv"), SuiteReport.csv(runs), StandardCharsets.UTF_8);
    System.out.println("written: " + benchDir.resolve("suite.md") + ", suite.svg, suite-runs.csv");
    if (!failures.isEmpty()) {
      throw new IllegalStateException(failures.size() + " part(s) failed, see " + benchDir);
    }
  }

  static List<String> jvmOptions(Variant variant, Path agentJar, Path otelJar, String endpoint) {
    List<String> options = new ArrayList<>();
    switch (variant) {
      case NONE:
        break;
      case KLAT:
      case KLAT_ALL:
        options.add("-javaagent:" + agentJar);
        options.add("-Dklat.endpoint=" + endpoint);
        if (variant == Variant.KLAT_ALL) {
          options.add("-Dklat.sampling.probability=1");
          // There is no "unlimited": a cap far above any rate a producer reaches.
          options.add("-Dklat.sampling.max-per-second=1000000000");
        }
        break;
      case KLAT_COMPARE:
      case KLAT_ALL_COMPARE:
        // Resolved only when the variant is chosen, so that the other runs need no second jar.
        String compareJar = System.getProperty("bench.compare.jar", "").trim();
        if (!compareJar.isEmpty()) {
          options.add("-javaagent:" + Paths.get(compareJar).toAbsolutePath());
          options.add("-Dklat.endpoint=" + endpoint);
          if (variant == Variant.KLAT_ALL_COMPARE) {
            options.add("-Dklat.sampling.probability=1");
            options.add("-Dklat.sampling.max-per-second=1000000000");
          }
        }
        break;
      case OTEL_OFF:
        options.add("-javaagent:" + otelJar);
        options.add("-Dotel.service.name=bench");
        options.add("-Dotel.traces.exporter=none");
        options.add("-Dotel.metrics.exporter=none");
        options.add("-Dotel.logs.exporter=none");
        break;
      case KLAT_ATTACHED:
        options.add("-Djdk.attach.allowAttachSelf=true");
        options.add("-Dbench.attach.agent=" + agentJar);
        options.add("-Dklat.endpoint=" + endpoint);
        break;
      case KLAT_OTEL:
        options.add("-javaagent:" + agentJar);
        options.add("-Dklat.endpoint=" + endpoint);
        options.addAll(jvmOptions(Variant.OTEL_OTLP, agentJar, otelJar, endpoint));
        return options;
      case OTEL_OTLP:
        options.add("-javaagent:" + otelJar);
        options.add("-Dotel.service.name=bench");
        options.add("-Dotel.exporter.otlp.protocol=http/protobuf");
        options.add("-Dotel.exporter.otlp.endpoint=" + endpoint);
        break;
    }
    // For profiling, e.g. -Dbench.agent.jvm=-XX:StartFlightRecording=filename=agent.jfr
    String extra = System.getProperty("bench.agent.jvm", "").trim();
    if (variant != Variant.NONE && !extra.isEmpty()) {
      options.addAll(List.of(extra.split("\\s+")));
    }
    // For comparing one option interleaved with klat, e.g. the compare jar set to klat's own and
    // -Dbench.compare.jvm=-Dklat.sampling.probability=0
    String compared = System.getProperty("bench.compare.jvm", "").trim();
    if ((variant == Variant.KLAT_COMPARE || variant == Variant.KLAT_ALL_COMPARE)
        && !compared.isEmpty()) {
      options.addAll(List.of(compared.split("\\s+")));
    }
    // For comparing with the baseline as well, e.g. -Dbench.jvm=-XX:+PrintCompilation
    String every = System.getProperty("bench.jvm", "").trim();
    if (!every.isEmpty()) {
      options.addAll(List.of(every.split("\\s+")));
    }
    return options;
  }

  /** Records per run: {@code records} for 100-byte records, the same bytes for bigger ones. */
  static long recordsFor(Load load, long records) {
    return Math.max(1, records * 100 / Math.max(100, load.recordBytes()));
  }

  static <T> List<T> rotate(List<T> list, int by) {
    List<T> rotated = new ArrayList<>(list);
    if (!rotated.isEmpty()) {
      java.util.Collections.rotate(rotated, -(by % rotated.size()));
    }
    return rotated;
  }

  private static List<String> list(String key, String defaults) {
    String value = System.getProperty(key, defaults).trim();
    if (value.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toList());
  }

  /** A run before its variant and round are known. */
  interface Measured {
    Run as(Variant variant, int round);
  }

  static Measured measure(
      String classpath, List<String> jvm, String bootstrap, Load load, long records)
      throws IOException, InterruptedException {
    return load.producer()
        ? produce(classpath, jvm, bootstrap, load, records)
        : consume(classpath, jvm, bootstrap, load, records);
  }

  // ProducerPerformance's --throughput: -1 sends as fast as the producer can; a cap stands for an
  // application slower than its producer, where klat's cost per record weighs less.
  private static final long PRODUCER_RECORDS_PER_SECOND =
      Long.getLong("bench.producer.throughput", -1);

  static Measured produce(
      String classpath, List<String> jvm, String bootstrap, Load load, long records)
      throws IOException, InterruptedException {
    List<String> command = java(classpath, jvm);
    command.addAll(
        List.of(
            PerfMain.class.getName(),
            "--topic",
            load.topic(),
            "--num-records",
            Long.toString(records),
            "--record-size",
            Integer.toString(load.recordBytes()),
            "--throughput",
            Long.toString(PRODUCER_RECORDS_PER_SECOND),
            "--producer-props",
            "bootstrap.servers=" + bootstrap,
            "acks=" + (load.acks() == null ? "1" : load.acks()),
            "linger.ms=5"));
    if (Boolean.getBoolean("bench.producer.print-metrics")) {
      command.add("--print-metrics");
    }
    String output = run(command, 900);
    Matcher summary = null;
    for (String line : output.split("\n")) {
      Matcher m = PRODUCER_SUMMARY.matcher(line);
      if (m.find()) {
        summary = m;
      }
    }
    if (summary == null) {
      throw new IllegalStateException("no ProducerPerformance summary in:\n" + tail(output));
    }
    long sent = Long.parseLong(summary.group(1));
    double throughput = Double.parseDouble(summary.group(2));
    double p50 = Double.parseDouble(summary.group(4));
    double p99 = Double.parseDouble(summary.group(6));
    return measured(output, load, sent, throughput, p50, p99);
  }

  private static Measured consume(
      String classpath, List<String> jvm, String bootstrap, Load load, long records)
      throws IOException, InterruptedException {
    List<String> options = new ArrayList<>(jvm);
    options.add("-Dbench.tool=org.apache.kafka.tools.ConsumerPerformance");
    List<String> command = java(classpath, options);
    command.addAll(
        List.of(
            PerfMain.class.getName(),
            "--bootstrap-server",
            bootstrap,
            "--topic",
            load.topic(),
            "--num-records",
            Long.toString(records),
            "--group",
            "bench-suite-" + (++groups),
            "--timeout",
            "60000",
            "--command-property",
            "group.protocol=" + load.groupProtocol()));
    String output = run(command, 900);
    // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
    // rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    long consumed = -1;
    double throughput = 0;
    for (String line : output.split("\n")) {
      String[] fields = line.split(",\\s*");
      if (fields.length >= 10 && line.matches("^\\d{4}-\\d\\d-\\d\\d.*")) {
        try {
          consumed = Long.parseLong(fields[4].trim());
          throughput = Double.parseDouble(fields[9].trim());
        } catch (NumberFormatException e) {
          // not the summary line
        }
      }
    }
    if (consumed <= 0) {
      throw new IllegalStateException("no ConsumerPerformance summary in:\n" + tail(output));
    }
    return measured(output, load, consumed, throughput, Double.NaN, Double.NaN);
  }

  private static Measured measured(
      String output, Load load, long records, double throughput, double p50, double p99) {
    long cpuNanos = Long.parseLong(value(output, "CPU_NANOS"));
    long beforeMainNanos = Long.parseLong(value(output, "CPU_BEFORE_MAIN_NANOS"));
    long allocated = Long.parseLong(value(output, "ALLOCATED_BYTES"));
    long allocatedBeforeMain = Long.parseLong(value(output, "ALLOCATED_BYTES_BEFORE_MAIN"));
    long jitNanos = Long.parseLong(value(output, "JIT_CPU_NANOS"));
    return (variant, round) ->
        new Run(
            variant,
            load,
            round,
            records,
            throughput,
            p50,
            p99,
            (double) cpuNanos / records,
            (double) allocated / records,
            beforeMainNanos / 1e6,
            allocatedBeforeMain,
            jitNanos / 1e6,
            ThreadCpu.parse(output, records, cpuNanos, jitNanos),
            Warm.parse(output));
  }

  private static long startup(String classpath, List<String> jvmOptions)
      throws IOException, InterruptedException {
    List<String> command = java(classpath, jvmOptions);
    command.add(StartupMain.class.getName());
    long start = System.nanoTime();
    run(command, 120);
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private static String jmh(boolean quick) throws IOException, InterruptedException {
    Path jar = Paths.get(System.getProperty("klat.benchmarks.jar"));
    String args =
        System.getProperty(
            "bench.jmh.args",
            quick ? "-f 1 -wi 1 -w 200ms -i 1 -r 200ms" : "-f 1 -wi 3 -w 1s -i 5 -r 1s");
    Path result = benchDir.resolve("jmh.txt");
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args.trim().split("\\s+")));
    command.addAll(List.of("-foe", "true", "-rf", "text", "-rff", result.toString()));
    System.out.println("JMH: " + String.join(" ", command));
    run(command, 3600);
    return "\n## JMH microbenchmarks (per-record hot paths)\n\n"
        + "`java -jar benchmarks/target/benchmarks.jar "
        + args
        + "`; average time per operation, the error column is JMH's 99.9% interval (empty with"
        + " one iteration).\n\n```\n"
        + Files.readString(result, StandardCharsets.UTF_8).strip()
        + "\n```\n";
  }

  private static String collector(boolean quick) throws IOException, InterruptedException {
    Path root = Paths.get(System.getProperty("klat.collector.jar")).getParent().getParent();
    // The collector jar carries its runtime dependencies; IngestBench also needs the OTLP
    // protobuf classes, which are on this suite's test class path.
    String classpath =
        String.join(
            File.pathSeparator,
            root.resolve("target/test-classes").toString(),
            System.getProperty("klat.collector.jar"),
            codeSource("io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
            codeSource("com.google.protobuf.ByteString"));
    String cpu = System.getProperty("bench.collector.cpu", "1").trim();
    List<String> prefix = new ArrayList<>();
    if (!cpu.isEmpty() && Files.isExecutable(Paths.get("/usr/bin/taskset"))) {
      prefix.addAll(List.of("/usr/bin/taskset", "-c", cpu));
    }
    String correlatorArgs =
        System.getProperty(
            "bench.collector.correlator", quick ? "100000 2 full" : "1000000 4 full");
    String ingestArgs = System.getProperty("bench.collector.ingest", quick ? "40 2" : "800 4");

    List<String> correlator = new ArrayList<>(prefix);
    correlator.addAll(
        List.of(
            javaExecutable(),
            "-Xmx2g",
            "-XX:+UseParallelGC",
            "-cp",
            classpath,
            "dev.klat.collector.correlate.join.CorrelatorBench"));
    correlator.addAll(List.of(correlatorArgs.split("\\s+")));
    System.out.println("collector: " + String.join(" ", correlator));
    String correlatorOut = run(correlator, 1800);

    List<String> ingest = new ArrayList<>(prefix);
    ingest.addAll(
        List.of(
            javaExecutable(),
            "-Xmx3g",
            "-XX:+UseParallelGC",
            "-cp",
            classpath,
            "dev.klat.collector.IngestBench"));
    ingest.addAll(List.of(ingestArgs.split("\\s+")));
    System.out.println("collector: " + String.join(" ", ingest));
    String ingestOut = run(ingest, 1800);

    // The same path with TLS and a token, against a plain collector in the same run.
    String secureArgs =
        System.getProperty("bench.collector.secure", quick ? "20 6" : "100 16").trim();
    String secureOut = "";
    if (!secureArgs.isEmpty()) {
      List<String> secure = new ArrayList<>(prefix);
      secure.addAll(
          List.of(
              javaExecutable(),
              "-Xmx3g",
              "-XX:+UseParallelGC",
              "-cp",
              String.join(
                  File.pathSeparator,
                  classpath,
                  codeSource("dev.klat.testsupport.tls.TestPki"),
                  codeSource("org.bouncycastle.cert.X509v3CertificateBuilder"),
                  codeSource("org.bouncycastle.asn1.x509.Extension"),
                  codeSource("org.bouncycastle.asn1.cms.ContentInfo")),
              "dev.klat.collector.IngestBench"));
      secure.addAll(List.of(secureArgs.split("\\s+")));
      secure.add("secure");
      System.out.println("collector: " + String.join(" ", secure));
      secureOut = run(secure, 1800);
    }

    StringBuilder out = new StringBuilder();
    out.append("\n## Collector\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "%s; `CorrelatorBench %s` (join, breakdown and, with `full`, the segment histograms and"
                + " the recent ring) and `IngestBench %s` (OTLP/HTTP, decoding and join, client on"
                + " the same core). Target: 100,000 joined breakdowns per second per core.%n%n",
            prefix.isEmpty() ? "Not pinned" : "Pinned to CPU " + cpu + " (`taskset`)",
            correlatorArgs,
            ingestArgs));
    out.append("| benchmark | joined breakdowns per second | heap after GC, records pending |\n");
    out.append("|---|---|---|\n");
    for (String line : correlatorOut.split("\n")) {
      Matcher m = CORRELATOR_ROUND.matcher(line);
      if (m.find()) {
        out.append(
            String.format(
                Locale.ROOT,
                "| CorrelatorBench, round %s | %,d | %s MiB, %,d |%n",
                m.group(1),
                Long.parseLong(m.group(4)),
                m.group(6),
                Long.parseLong(m.group(5))));
      }
    }
    // Round 0 includes class loading and compilation of the whole HTTP path; the rounds after it
    // are the steady state the target is about.
    Matcher m = INGEST.matcher(ingestOut);
    boolean found = false;
    while (m.find()) {
      found = true;
      int round = Integer.parseInt(m.group(2));
      out.append(
          String.format(
              Locale.ROOT,
              "| IngestBench, round %d%s | %,d | |%n",
              round,
              round == 0 ? " (warm-up)" : "",
              Long.parseLong(m.group(1))));
    }
    if (!found) {
      out.append("| IngestBench | ? (no round reported) | |\n");
    }
    if (!secureArgs.isEmpty()) {
      Matcher ratio = SECURE_RATIO.matcher(secureOut);
      Matcher cpuRatio = SECURE_CPU_RATIO.matcher(secureOut);
      out.append(
          String.format(
              Locale.ROOT,
              "%nOTLP/HTTP with TLS and a bearer token over plain (`IngestBench %s secure`, both"
                  + " collectors in one JVM, interleaved five requests at a time): %s; %s.%n",
              secureArgs,
              cpuRatio.find()
                  ? cpuRatio.group(1)
                      + " of the plain joins per CPU second of the collector (95% interval "
                      + cpuRatio.group(2)
                      + "; the sender's threads excluded)"
                  : "? (no CPU ratio reported)",
              ratio.find()
                  ? ratio.group(1)
                      + " of the plain joins per second, sender and collectors on one core (95%"
                      + " interval "
                      + ratio.group(2)
                      + ")"
                  : "? (no ratio reported)"));
    }
    return out.toString();
  }

  private static final Pattern SECURE_CPU_RATIO =
      Pattern.compile(
          "over plain, collector joins per CPU second[^:]*: ([0-9.]+) \\(95% interval"
              + " (-?[0-9.]+ to -?[0-9.]+)");
  private static final Pattern SECURE_RATIO =
      Pattern.compile(
          "over plain, OTLP/HTTP joins/s: ([0-9.]+) \\(95% interval (-?[0-9.]+ to -?[0-9.]+)");

  private static String codeSource(String className) {
    try {
      return Paths.get(
              Class.forName(className).getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + className, e);
    }
  }

  private static String javaExecutable() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static List<String> java(String classpath, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-Xms512m");
    command.add("-Xmx512m");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath);
    return command;
  }

  private static String run(List<String> command, int timeoutSeconds)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile(benchDir, "suite-run-", ".log");
    Files.writeString(log, String.join(" ", command) + "\n", StandardCharsets.UTF_8);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("timed out, see " + log);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          "exit " + process.exitValue() + ", see " + log + ":\n" + tail(output));
    }
    return output;
  }

  private static String tail(String output) {
    return output.length() > 1500 ? "..." + output.substring(output.length() - 1500) : output;
  }

  private static String value(String output, String key) {
    for (String line : output.split("\n")) {
      if (line.startsWith(key + "=")) {
        return line.substring(key.length() + 1).trim();
      }
    }
    throw new IllegalStateException("no " + key + " in:\n" + tail(output));
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

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().collect(Collectors.toList());
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static List<Run> of(List<Run> runs, Variant variant, Load load) {
    return runs.stream()
        .filter(r -> r.variant() == variant && r.load().equals(load))
        .collect(Collectors.toList());
  }

  static double median(List<Run> runs, ToDoubleFunction<Run> field) {
    return median(runs.stream().map(field::applyAsDouble).collect(Collectors.toList()));
  }
}

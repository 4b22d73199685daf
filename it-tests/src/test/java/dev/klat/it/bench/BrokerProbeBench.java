package dev.klat.it.bench;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The broker probe's cost, in one run: two 3-broker clusters side by side, one with the probe on
 * every broker (sending to a discarding OTLP endpoint), one without, and Kafka's own
 * ProducerPerformance ({@code acks=all}, 100-byte records, replication factor 3, {@code
 * min.insync.replicas=2}) and ConsumerPerformance against each in turn, interleaved round by round
 * (the order alternates). Client throughput is what the tools report; broker CPU is the three
 * broker processes' user and system time over the run ({@code /proc/<pid>/stat}), per record.
 */
final class BrokerProbeBench {

  private static final String NO_PROBE = "no probe";
  private static final String PROBE = "probe";
  // Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every common build.
  private static final long NANOS_PER_TICK = 10_000_000L;
  // A consumer reads about ten times as fast as the producer writes: it reads more records per run,
  // so that a run lasts long enough for the 10 ms ticks of process CPU time.
  private static final long CONSUMER_FACTOR = 5;
  // The probe's exporter thread as /proc names it: "klat-broker-probe", cut to 15 characters.
  private static final String PROBE_THREAD_COMM = "klat-broker-pro";

  /** One measured run against one cluster. */
  record ProbeRun(
      String variant,
      Load load,
      int round,
      double recordsPerSecond,
      double brokerCpuNanosPerRecord,
      long records,
      long probeThreadTicks) {}

  private BrokerProbeBench() {}

  /** Runs the comparison and returns its report section (Markdown). */
  static String run(
      String classpath, Path probeJar, Path workRoot, long records, int rounds, boolean warmup)
      throws Exception {
    Load producer = new Load(true, 100, "all", null);
    Load consumer = new Load(false, 100, null, "classic");
    List<ProbeRun> runs = new ArrayList<>();
    long probeRequests;
    try (DiscardingOtlpReceiver receiver = new DiscardingOtlpReceiver();
        KafkaCluster plain = cluster("bench-no-probe", workRoot, null, null);
        KafkaCluster probed = cluster("bench-probe", workRoot, probeJar, receiver.endpoint())) {
      for (KafkaCluster cluster : List.of(plain, probed)) {
        for (Load load : List.of(producer, consumer)) {
          cluster.createTopic(
              TopicSpec.named(load.topic())
                  .partitions(6)
                  .replicationFactor(3)
                  .config("min.insync.replicas", "2")
                  .config("retention.bytes", Long.toString(256L << 20))
                  .build());
        }
        // What every consumer run reads from the beginning, written once.
        BenchSuite.produce(
            classpath, List.of(), cluster.bootstrapServers(), consumer, CONSUMER_FACTOR * records);
        if (warmup) {
          BenchSuite.measure(classpath, List.of(), cluster.bootstrapServers(), producer, records);
        }
      }
      for (int round = 0; round < rounds; round++) {
        List<String> order = round % 2 == 0 ? List.of(NO_PROBE, PROBE) : List.of(PROBE, NO_PROBE);
        for (Load load : List.of(producer, consumer)) {
          for (String variant : order) {
            KafkaCluster cluster = variant.equals(PROBE) ? probed : plain;
            long before = brokerCpuTicks(cluster);
            long probeBefore = probeThreadTicks(cluster);
            long count = load.producer() ? records : CONSUMER_FACTOR * records;
            Run run =
                BenchSuite.measure(classpath, List.of(), cluster.bootstrapServers(), load, count)
                    .as(Variant.NONE, round);
            long ticks = brokerCpuTicks(cluster) - before;
            ProbeRun r =
                new ProbeRun(
                    variant,
                    load,
                    round,
                    run.recordsPerSecond(),
                    (double) ticks * NANOS_PER_TICK / run.records(),
                    run.records(),
                    probeThreadTicks(cluster) - probeBefore);
            runs.add(r);
            System.out.printf(
                Locale.ROOT,
                "probe round %d  %-26s %-9s %,12.0f rec/s  broker cpu %6.0f ns/rec%n",
                round + 1,
                load.label(),
                variant,
                r.recordsPerSecond(),
                r.brokerCpuNanosPerRecord());
          }
        }
      }
      probeRequests = receiver.requests();
    }
    return report(runs, records, rounds, probeRequests);
  }

  private static String report(List<ProbeRun> runs, long records, int rounds, long requests) {
    StringBuilder out = new StringBuilder("\n## Broker probe\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "Two 3-broker clusters side by side, with and without the broker probe; %d round(s)"
                + " of %,d 100-byte records each (the consumer reads five times as many), the order"
                + " alternating. Medians over rounds; the"
                + " spread is the slowest minus the fastest run of a kind. The probe sent %,d"
                + " requests.%n%n",
            rounds,
            records,
            requests));
    out.append(
        "| load | records/s no probe | records/s probe | ratio | broker CPU ns/record no probe"
            + " | probe | change | change per round, mean and 95% interval"
            + " | the probe's thread, ns/record |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
    for (Load load : runs.stream().map(ProbeRun::load).distinct().collect(Collectors.toList())) {
      List<ProbeRun> none = of(runs, load, NO_PROBE);
      List<ProbeRun> probe = of(runs, load, PROBE);
      double rateNone = median(none, true);
      double rateProbe = median(probe, true);
      double cpuNone = median(none, false);
      double cpuProbe = median(probe, false);
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f (spread %,.0f) | %,.0f (spread %,.0f) | %.3f | %.0f (spread %.0f) |"
                  + " %.0f (spread %.0f) | %+.1f%% | %s | %s |%n",
              load.label(),
              rateNone,
              spread(none, true),
              rateProbe,
              spread(probe, true),
              rateProbe / rateNone,
              cpuNone,
              spread(none, false),
              cpuProbe,
              spread(probe, false),
              (cpuProbe / cpuNone - 1) * 100,
              pairedChange(none, probe),
              probeThread(probe, cpuNone)));
    }
    return out.toString();
  }

  /**
   * The broker CPU change of each round (the probe's run against the run without it in the same
   * round, back to back), their mean and its 95% confidence interval (Student's t): pairing by
   * round takes out what drifts between rounds (page cache, the machine's other load).
   */
  static String pairedChange(List<ProbeRun> none, List<ProbeRun> probe) {
    List<Double> changes = new ArrayList<>();
    for (ProbeRun p : probe) {
      for (ProbeRun n : none) {
        if (n.round() == p.round()) {
          changes.add(p.brokerCpuNanosPerRecord() / n.brokerCpuNanosPerRecord() - 1);
        }
      }
    }
    int count = changes.size();
    if (count < 2) {
      return "n/a";
    }
    double mean = changes.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    double variance = 0;
    for (double c : changes) {
      variance += (c - mean) * (c - mean);
    }
    double half = studentT975(count - 1) * Math.sqrt(variance / (count - 1) / count);
    return String.format(
        Locale.ROOT,
        "%+.1f%% (%+.1f%% to %+.1f%%, %d rounds)",
        mean * 100,
        (mean - half) * 100,
        (mean + half) * 100,
        count);
  }

  /**
   * The CPU of the probe's own thread (draining, encoding, sending) over every run with the probe,
   * per record, and as a share of the broker CPU per record without the probe: the part of the
   * probe's cost that is not on the brokers' request threads, measured apart from the noise of the
   * whole process.
   */
  static String probeThread(List<ProbeRun> probe, double cpuNoneNanosPerRecord) {
    long ticks = probe.stream().mapToLong(ProbeRun::probeThreadTicks).sum();
    long records = probe.stream().mapToLong(ProbeRun::records).sum();
    if (records == 0) {
      return "n/a";
    }
    double perRecord = (double) ticks * NANOS_PER_TICK / records;
    return String.format(
        Locale.ROOT,
        "%.1f (%.2f%% of the broker CPU; %d ms over %d runs)",
        perRecord,
        perRecord / cpuNoneNanosPerRecord * 100,
        ticks * NANOS_PER_TICK / 1_000_000,
        probe.size());
  }

  // The 97.5th percentile of Student's t distribution with the given degrees of freedom.
  private static double studentT975(int degrees) {
    double[] table = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
      2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
      2.052, 2.048, 2.045, 2.042
    };
    return degrees <= table.length ? table[degrees - 1] : 1.96;
  }

  private static List<ProbeRun> of(List<ProbeRun> runs, Load load, String variant) {
    return runs.stream()
        .filter(r -> r.load().equals(load) && r.variant().equals(variant))
        .collect(Collectors.toList());
  }

  private static double median(List<ProbeRun> runs, boolean rate) {
    return BenchSuite.median(
        runs.stream()
            .map(r -> rate ? r.recordsPerSecond() : r.brokerCpuNanosPerRecord())
            .collect(Collectors.toList()));
  }

  private static double spread(List<ProbeRun> runs, boolean rate) {
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    for (ProbeRun r : runs) {
      double v = rate ? r.recordsPerSecond() : r.brokerCpuNanosPerRecord();
      max = Math.max(max, v);
      min = Math.min(min, v);
    }
    return runs.isEmpty() ? Double.NaN : max - min;
  }

  private static KafkaCluster cluster(String name, Path workRoot, Path probeJar, String endpoint) {
    KafkaClusterSpec.Builder spec =
        KafkaClusterSpec.brokers(3).name(name).brokerHeapMb(768).workRoot(workRoot);
    if (probeJar != null) {
      spec.brokerProbe(probeJar, endpoint);
    }
    return spec.start();
  }

  private static long brokerCpuTicks(KafkaCluster cluster) throws IOException {
    long ticks = 0;
    for (Broker broker : cluster.brokers()) {
      ticks += cpuTicks(Paths.get("/proc", Long.toString(broker.pid()), "stat"));
    }
    return ticks;
  }

  // The probe's thread in every broker of the cluster; 0 for a cluster without the probe.
  private static long probeThreadTicks(KafkaCluster cluster) throws IOException {
    long ticks = 0;
    for (Broker broker : cluster.brokers()) {
      Path tasks = Paths.get("/proc", Long.toString(broker.pid()), "task");
      try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
        for (Path thread : threads) {
          try {
            if (Files.readString(thread.resolve("comm")).trim().equals(PROBE_THREAD_COMM)) {
              ticks += cpuTicks(thread.resolve("stat"));
            }
          } catch (IOException ended) {
            // A thread that ended between the listing and the read: not the probe's, which lives
            // as long as the broker.
          }
        }
      }
    }
    return ticks;
  }

  private static long cpuTicks(Path statFile) throws IOException {
    String stat = Files.readString(statFile);
    // The command name may hold spaces: fields are counted after its closing parenthesis, where
    // utime and stime (fields 14 and 15 of the line) are the 12th and 13th.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}

package dev.klat.lab;

import dev.klat.demo.AgentCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one setting: a fresh topic, a consumer and the producers in JVMs of their own with the
 * agent, the warm-up, the measured window at the fixed rate, the collector's breakdown of that
 * window, then the unbounded-rate run (read back by the consumer, where the setting is the
 * consumer's), and the topic deleted again.
 */
final class SettingRunner {

  // The agent flushes spans every second; the slowest setting (a 500 ms fetch wait) returns its
  // last records well within this.
  private static final long SPAN_WAIT_MS = 2500;
  private static final long START_TIMEOUT_MS = 90_000;
  private static final Pattern COUNTS =
      Pattern.compile("acked=(\\d+) failed=(\\d+) seconds=([0-9.]+)");
  private static final Pattern DRAINED = Pattern.compile("records=(\\d+) seconds=([0-9.]+)");

  private final LabCluster cluster;
  private final LabCollector collector;
  private final Path agentJar;
  private final String classPath;
  private final Path logs;
  private final double recordsPerSecond;
  private final Plan plan;
  private final String runId;
  private final Set<AppProcess> running = new CopyOnWriteArraySet<>();

  SettingRunner(
      LabCluster cluster,
      LabCollector collector,
      Path agentJar,
      String classPath,
      Path logs,
      double recordsPerSecond,
      Plan plan,
      String runId) {
    this.cluster = cluster;
    this.collector = collector;
    this.agentJar = agentJar;
    this.classPath = classPath;
    this.logs = logs;
    this.recordsPerSecond = recordsPerSecond;
    this.plan = plan;
    this.runId = runId;
  }

  /**
   * @param repeat which run of the setting this is, from 1; later runs get topics of their own
   */
  Result run(Experiment experiment, int index, int repeat, Setting setting) throws Exception {
    String topic =
        LabCluster.PREFIX
            + runId
            + "-"
            + experiment.name()
            + "-"
            + index
            + (repeat > 1 ? "-" + repeat : "");
    String group = topic;
    cluster.createTopic(topic, setting.partitions());
    List<AppProcess> producers = new ArrayList<>();
    AppProcess consumer = null;
    try {
      consumer = start(topic + "-consumer", LabConsumer.class, consumerArgs(topic, group, setting));
      for (int p = 0; p < setting.producers(); p++) {
        producers.add(
            start(topic + "-producer-" + p, LabProducer.class, producerArgs(topic, setting)));
      }
      consumer.await("assigned", START_TIMEOUT_MS);
      for (AppProcess producer : producers) {
        producer.await("ready", START_TIMEOUT_MS);
      }
      long goNanos = System.nanoTime();
      for (AppProcess producer : producers) {
        producer.send("go");
      }
      double fixedRate = 0;
      long failed = 0;
      long windowTimeoutMs = plan.warmupMs() + plan.measureMs() + 60_000;
      for (AppProcess producer : producers) {
        Matcher counts = counts(producer.await("measured", windowTimeoutMs));
        fixedRate += Long.parseLong(counts.group(1)) / Double.parseDouble(counts.group(3));
        failed += Long.parseLong(counts.group(2));
      }
      Thread.sleep(SPAN_WAIT_MS);
      long windowMs = (System.nanoTime() - goNanos) / 1_000_000L - plan.warmupMs();
      var breakdown = collector.breakdown(topic, group, windowMs);
      // Where the setting is the consumer's, the consumer reads the unbounded run's records
      // afterwards as fast as it can; elsewhere it leaves before the producers' run.
      boolean drain = plan.burstMs() > 0 && !setting.consumerConfig().isEmpty();
      if (drain) {
        consumer.send("pause");
        consumer.await("paused", 30_000);
      } else {
        consumer.stop(5000);
        running.remove(consumer);
      }
      Double burstRate = null;
      Double consumerRate = null;
      if (plan.burstMs() > 0) {
        for (AppProcess producer : producers) {
          producer.send("burst " + plan.burstMs());
        }
        double sum = 0;
        long acked = 0;
        for (AppProcess producer : producers) {
          Matcher counts = counts(producer.await("burst", plan.burstMs() + 60_000));
          acked += Long.parseLong(counts.group(1));
          sum += Long.parseLong(counts.group(1)) / Double.parseDouble(counts.group(3));
        }
        burstRate = sum;
        if (drain) {
          consumer.send("drain " + acked + " " + plan.burstMs());
          Matcher drained = DRAINED.matcher(consumer.await("drained", plan.burstMs() + 60_000));
          if (!drained.find()) {
            throw new IllegalStateException("unexpected answer from the lab consumer");
          }
          long read = Long.parseLong(drained.group(1));
          consumerRate = read == 0 ? null : read / Double.parseDouble(drained.group(2));
        }
      }
      return new Result(
          experiment, setting, repeat, fixedRate, burstRate, consumerRate, failed, breakdown, null);
    } finally {
      for (AppProcess producer : producers) {
        producer.stop(5000);
        running.remove(producer);
      }
      if (consumer != null) {
        consumer.stop(5000);
        running.remove(consumer);
      }
      cluster.deleteTopic(topic);
    }
  }

  /** Kills every application still running, for the shutdown hook. */
  void killAll() {
    for (AppProcess app : running) {
      app.kill();
    }
  }

  private AppProcess start(String name, Class<?> main, List<String> args) throws Exception {
    String service = main == LabConsumer.class ? "klat-lab-consumer" : "klat-lab-producer";
    AppProcess app =
        AppProcess.start(
            name,
            AgentCommand.of(
                agentJar, collector.endpoint(), service, classPath, main.getName(), args),
            logs.resolve(name + ".log"));
    running.add(app);
    return app;
  }

  private List<String> producerArgs(String topic, Setting setting) {
    List<String> args = new ArrayList<>();
    args.add(cluster.bootstrapServers());
    args.add(topic);
    args.add(Double.toString(recordsPerSecond / setting.producers()));
    args.add(Integer.toString(setting.recordBytes()));
    args.add(Boolean.toString(setting.keyed()));
    args.add(Long.toString(plan.warmupMs()));
    args.add(Long.toString(plan.measureMs()));
    addCommandConfig(args);
    for (Map.Entry<String, String> config : setting.producerConfig().entrySet()) {
      args.add(config.getKey() + "=" + config.getValue());
    }
    return args;
  }

  private List<String> consumerArgs(String topic, String group, Setting setting) {
    List<String> args = new ArrayList<>();
    args.add(cluster.bootstrapServers());
    args.add(topic);
    args.add(group);
    addCommandConfig(args);
    for (Map.Entry<String, String> config : setting.consumerConfig().entrySet()) {
      args.add(config.getKey() + "=" + config.getValue());
    }
    return args;
  }

  // The file's name, not its settings: passwords stay off the processes' command lines.
  private void addCommandConfig(List<String> args) {
    if (cluster.commandConfig() != null) {
      args.add(ClientSettings.FILE_KEY + "=" + cluster.commandConfig());
    }
  }

  private static Matcher counts(String line) {
    Matcher matcher = COUNTS.matcher(line);
    if (!matcher.find()) {
      throw new IllegalStateException("unexpected answer from a lab producer: " + line);
    }
    return matcher;
  }
}

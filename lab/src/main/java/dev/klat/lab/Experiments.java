package dev.klat.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalogue of experiments: the ones Kafka's tuning advice comes from, each re-run at a fixed,
 * low rate so that what moves is latency, with an optional unbounded run for throughput.
 */
final class Experiments {

  static final List<String> NAMES =
      List.of("linger", "linger-keyed", "acks", "batch-size", "partitions", "producers", "fetch");

  private Experiments() {}

  /** All experiments, in the order of {@link #NAMES}. */
  static List<Experiment> all() {
    List<Experiment> all = new ArrayList<>();
    for (String name : NAMES) {
      all.add(named(name));
    }
    return all;
  }

  /**
   * @throws IllegalArgumentException for a name not in {@link #NAMES}
   */
  static Experiment named(String name) {
    switch (name) {
      case "linger":
        return new Experiment(
            name,
            "linger.ms",
            "unkeyed 100 B records (sticky partitioner), 6 partitions, acks=all",
            linger(false));
      case "linger-keyed":
        return new Experiment(
            name,
            "linger.ms",
            "keyed 100 B records (1000 keys over 6 partitions), acks=all",
            linger(true));
      case "acks":
        return new Experiment(
            name, "acks and record size", "linger.ms=5, 6 partitions, unkeyed", acks());
      case "batch-size":
        return new Experiment(
            name,
            "batch.size",
            "linger.ms=100 (so that a full batch is what ends the wait), 6 partitions, unkeyed 100 B",
            batchSize());
      case "partitions":
        return new Experiment(
            name,
            "partitions",
            "one producer, keyed 100 B records (1000 keys), linger.ms=5",
            partitions(new int[] {1, 10, 100, 1000}));
      case "producers":
        return new Experiment(
            name,
            "producer JVMs",
            "the total rate is split across them; linger.ms=5, 6 partitions, unkeyed",
            producers());
      case "fetch":
        return new Experiment(
            name,
            "fetch.min.bytes / fetch.max.wait.ms",
            "the producer at linger.ms=5, 6 partitions, unkeyed 100 B",
            fetch());
      default:
        throw new IllegalArgumentException(
            "unknown experiment " + name + " (known: " + String.join(", ", NAMES) + ")");
    }
  }

  private static List<Setting> linger(boolean keyed) {
    List<Setting> settings = new ArrayList<>();
    for (int lingerMs : new int[] {0, 5, 20, 100}) {
      Setting setting =
          Setting.of("linger.ms=" + lingerMs, producer("linger.ms", lingerMs), Map.of());
      settings.add(keyed ? setting.withKeys() : setting);
    }
    return settings;
  }

  private static List<Setting> acks() {
    List<Setting> settings = new ArrayList<>();
    for (int bytes : new int[] {100, 10 * 1024}) {
      for (String acks : new String[] {"0", "1", "all"}) {
        Map<String, String> config = producer("linger.ms", 5);
        config.put("acks", acks);
        String size = bytes >= 1024 ? (bytes / 1024) + " KiB" : bytes + " B";
        settings.add(
            Setting.of("acks=" + acks + ", " + size, config, Map.of())
                .withRecordBytes(bytes)
                .inSeries(size));
      }
    }
    return settings;
  }

  private static List<Setting> batchSize() {
    List<Setting> settings = new ArrayList<>();
    for (int bytes : new int[] {1024, 4096, 16384, 131072}) {
      Map<String, String> config = producer("linger.ms", 100);
      config.put("batch.size", Integer.toString(bytes));
      settings.add(Setting.of("batch.size=" + bytes, config, Map.of()));
    }
    return settings;
  }

  private static List<Setting> partitions(int[] counts) {
    List<Setting> settings = new ArrayList<>();
    for (int count : counts) {
      settings.add(
          Setting.of("partitions=" + count, producer("linger.ms", 5), Map.of())
              .withKeys()
              .withPartitions(count));
    }
    return settings;
  }

  private static List<Setting> producers() {
    List<Setting> settings = new ArrayList<>();
    for (int count : new int[] {1, 2, 4}) {
      settings.add(
          Setting.of("producers=" + count, producer("linger.ms", 5), Map.of())
              .withProducers(count));
    }
    return settings;
  }

  private static List<Setting> fetch() {
    // The first is Kafka's default. At the lab's 20 KB/s, 16 KiB takes about 0.8 s to gather and
    // 1 MiB never does, so a fetch with either waits out fetch.max.wait.ms.
    int[][] values = {{1, 500}, {16 * 1024, 100}, {1 << 20, 100}, {1 << 20, 500}};
    List<Setting> settings = new ArrayList<>();
    for (int[] value : values) {
      Map<String, String> consumer = new LinkedHashMap<>();
      consumer.put("fetch.min.bytes", Integer.toString(value[0]));
      consumer.put("fetch.max.wait.ms", Integer.toString(value[1]));
      String bytes =
          value[0] >= 1 << 20
              ? (value[0] >> 20) + " MiB"
              : value[0] >= 1024 ? (value[0] >> 10) + " KiB" : value[0] + " B";
      settings.add(
          Setting.of(
              "min " + bytes + ", wait " + value[1] + " ms", producer("linger.ms", 5), consumer));
    }
    return settings;
  }

  private static Map<String, String> producer(String key, int value) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("acks", "all");
    config.put(key, Integer.toString(value));
    return config;
  }
}

package dev.klat.lab;

import java.util.Map;

/**
 * One value of an experiment's knob and everything a run of it needs: the producers' and the
 * consumer's settings (beyond the lab's defaults), the topic's partition count, the record size,
 * whether records carry keys, and how many producer JVMs share the rate.
 *
 * @param label the knob's value as the report shows it, e.g. {@code linger.ms=20}
 * @param series the settings compared with each other share a series (the acks experiment has one
 *     per record size); empty for the one series of most experiments
 */
record Setting(
    String label,
    Map<String, String> producerConfig,
    Map<String, String> consumerConfig,
    int partitions,
    int recordBytes,
    boolean keyed,
    int producers,
    String series) {

  /** A setting of 6 partitions, 100-byte unkeyed records, one producer, and these configs. */
  static Setting of(
      String label, Map<String, String> producerConfig, Map<String, String> consumerConfig) {
    return new Setting(label, producerConfig, consumerConfig, 6, 100, false, 1, "");
  }

  Setting withPartitions(int count) {
    return new Setting(
        label, producerConfig, consumerConfig, count, recordBytes, keyed, producers, series);
  }

  Setting withRecordBytes(int bytes) {
    return new Setting(
        label, producerConfig, consumerConfig, partitions, bytes, keyed, producers, series);
  }

  Setting withKeys() {
    return new Setting(
        label, producerConfig, consumerConfig, partitions, recordBytes, true, producers, series);
  }

  Setting withProducers(int count) {
    return new Setting(
        label, producerConfig, consumerConfig, partitions, recordBytes, keyed, count, series);
  }

  Setting inSeries(String name) {
    return new Setting(
        label, producerConfig, consumerConfig, partitions, recordBytes, keyed, producers, name);
  }
}

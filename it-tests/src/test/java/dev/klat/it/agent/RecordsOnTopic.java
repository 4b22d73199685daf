package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/** What the integration tests read back from a topic: its records, and their headers. */
final class RecordsOnTopic {

  private RecordsOnTopic() {}

  /** How many headers named {@code header} the record carries. */
  static int headerCount(ConsumerRecord<?, ?> record, String header) {
    int n = 0;
    for (Header h : record.headers().headers(header)) {
      n++;
    }
    return n;
  }

  /**
   * Every record of {@code topic}, read from the start; fails unless there are {@code expected}.
   */
  static List<ConsumerRecord<String, String>> readAll(
      KafkaCluster cluster, String topic, int expected) {
    Properties p = cluster.clientProperties();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-reader");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (records.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertThat(records).hasSize(expected);
    return records;
  }
}

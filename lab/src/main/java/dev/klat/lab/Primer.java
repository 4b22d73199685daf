package dev.klat.lab;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Traffic through the cluster before the first measured setting, from the lab's own JVM and without
 * the agent: in the first run on the development machine, the first setting's tail had 141 ms of
 * publish that no later setting showed (brokers not yet compiled hot, the group coordinator's first
 * use), which the baseline of every finding would have carried.
 */
final class Primer {

  private static final int RECORDS_PER_SECOND = 1000;

  private Primer() {}

  static void prime(LabCluster cluster, String topic, long durationMs) throws Exception {
    cluster.createTopic(topic, 6);
    try {
      Properties producerConfig = cluster.clientSettings();
      producerConfig.put("bootstrap.servers", cluster.bootstrapServers());
      producerConfig.put("acks", "all");
      producerConfig.put("key.serializer", ByteArraySerializer.class.getName());
      producerConfig.put("value.serializer", ByteArraySerializer.class.getName());
      Properties consumerConfig = cluster.clientSettings();
      consumerConfig.put("bootstrap.servers", cluster.bootstrapServers());
      consumerConfig.put("group.id", topic);
      consumerConfig.put("auto.offset.reset", "earliest");
      consumerConfig.put("key.deserializer", ByteArrayDeserializer.class.getName());
      consumerConfig.put("value.deserializer", ByteArrayDeserializer.class.getName());
      byte[] value = new byte[100];
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig);
          KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig)) {
        consumer.subscribe(List.of(topic));
        long end = System.nanoTime() + durationMs * 1_000_000L;
        while (System.nanoTime() < end) {
          for (int i = 0; i < RECORDS_PER_SECOND / 20; i++) {
            producer.send(new ProducerRecord<>(topic, value));
          }
          // Each poll waits at most 50 ms, which paces the sends at about the rate above.
          consumer.poll(Duration.ofMillis(50));
        }
      }
    } finally {
      cluster.deleteTopic(topic);
    }
  }
}

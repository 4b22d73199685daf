package dev.klat.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.kafka.cluster.TopicSpec.TimestampType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Proves the one-broker fixture, topic timestamp types and both consumer group protocols. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
// The test fixture and Kafka's own behaviour, not klat: CI runs it on its first JDK only
// (JdkIndependent); on the second, every IT starts its brokers through this fixture.
@Tag("jdk-independent")
class SingleBrokerClusterIT {

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  /** A producer timestamp an hour old, so that the broker's replacement is unmistakable. */
  private static final long HOUR_OLD_TIMESTAMP_MS = System.currentTimeMillis() - 3_600_000L;

  @Test
  void logAppendTimeTopicStampsRecordsWithTheBrokerClock() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(
        TopicSpec.named("stamped-by-broker").timestampType(TimestampType.LOG_APPEND_TIME).build());
    assertThat(topicConfig(cluster, "stamped-by-broker", "message.timestamp.type"))
        .isEqualTo("LogAppendTime");

    long beforeSendMs = System.currentTimeMillis();
    ConsumerRecord<String, String> record = roundTrip(cluster, "stamped-by-broker", "classic");

    assertThat(record.timestampType())
        .isEqualTo(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME);
    assertThat(record.timestamp()).isBetween(beforeSendMs - 1000, System.currentTimeMillis());
  }

  @Test
  void createTimeTopicKeepsTheProducerTimestamp() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(
        TopicSpec.named("stamped-by-producer").timestampType(TimestampType.CREATE_TIME).build());

    ConsumerRecord<String, String> record = roundTrip(cluster, "stamped-by-producer", "classic");

    assertThat(record.timestampType())
        .isEqualTo(org.apache.kafka.common.record.TimestampType.CREATE_TIME);
    assertThat(record.timestamp()).isEqualTo(HOUR_OLD_TIMESTAMP_MS);
  }

  @Test
  void consumerGroupProtocolServesRecords() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("new-protocol").partitions(3).build());
    Set<String> acknowledged = Clients.produce(cluster, "new-protocol", "n-", 0, 300);

    var consumed =
        Clients.consumeUntil(
            cluster,
            "new-protocol",
            "new-protocol-group",
            "consumer",
            acknowledged,
            Duration.ofSeconds(60));

    assertThat(consumed.keySet()).containsExactlyInAnyOrderElementsOf(acknowledged);
  }

  private static ConsumerRecord<String, String> roundTrip(
      KafkaCluster cluster, String topic, String groupProtocol) throws Exception {
    try (KafkaProducer<String, String> producer = Clients.producer(cluster)) {
      producer
          .send(new ProducerRecord<>(topic, null, HOUR_OLD_TIMESTAMP_MS, "key", "value"))
          .get(30, TimeUnit.SECONDS);
    }
    try (KafkaConsumer<String, String> consumer =
        Clients.consumer(cluster, topic + "-group", groupProtocol)) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> records = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (records.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      assertThat(records).hasSize(1);
      return records.get(0);
    }
  }

  private static String topicConfig(KafkaCluster cluster, String topic, String key)
      throws Exception {
    try (Admin admin = cluster.admin()) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config = admin.describeConfigs(Set.of(resource)).all().get().get(resource);
      return config.get(key).value();
    }
  }
}

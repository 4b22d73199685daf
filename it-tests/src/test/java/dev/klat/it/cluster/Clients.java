package dev.klat.it.cluster;

import dev.klat.kafka.cluster.KafkaCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plain kafka-clients producers and consumers, configured the way a careful application does. */
final class Clients {

  private Clients() {}

  static KafkaProducer<String, String> producer(KafkaCluster cluster) {
    Properties p = cluster.clientProperties();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(p);
  }

  /** Sends {@code count} records with keys {@code prefix + i} and returns the acknowledged keys. */
  static Set<String> produce(
      KafkaCluster cluster, String topic, String prefix, int from, int count) {
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = producer(cluster)) {
      for (int i = from; i < from + count; i++) {
        String key = prefix + i;
        producer.send(
            new ProducerRecord<>(topic, key, key),
            (metadata, exception) -> {
              if (exception == null) {
                acknowledged.add(key);
              } else {
                failure.compareAndSet(null, exception);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new AssertionError("a send failed", failure.get());
    }
    return acknowledged;
  }

  /**
   * Sends records until told to stop, recording every acknowledged key. Sends that fail are not
   * acknowledged and need not be found later; that is the contract a producer application has.
   */
  static void produceWhile(
      KafkaCluster cluster,
      String topic,
      String prefix,
      AtomicInteger sequence,
      AtomicBoolean keepProducing,
      Set<String> acknowledged)
      throws InterruptedException {
    try (KafkaProducer<String, String> producer = producer(cluster)) {
      while (keepProducing.get()) {
        String key = prefix + sequence.getAndIncrement();
        producer.send(
            new ProducerRecord<>(topic, key, key),
            (metadata, exception) -> {
              if (exception == null) {
                acknowledged.add(key);
              }
            });
        // About 2,000 records/s: enough traffic across the kill, not enough to swamp 2 cores.
        Thread.sleep(0, 500_000);
      }
      producer.flush();
    }
  }

  static KafkaConsumer<String, String> consumer(
      KafkaCluster cluster, String group, String groupProtocol) {
    Properties p = cluster.clientProperties();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, groupProtocol);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  /** Consumes with the classic protocol until every expected key arrived or the time is up. */
  static Map<String, Integer> consumeUntil(
      KafkaCluster cluster, String topic, String group, Set<String> expected, Duration timeout) {
    return consumeUntil(cluster, topic, group, "classic", expected, timeout);
  }

  /** Returns how often each key was seen. */
  static Map<String, Integer> consumeUntil(
      KafkaCluster cluster,
      String topic,
      String group,
      String groupProtocol,
      Set<String> expected,
      Duration timeout) {
    Map<String, Integer> seen = new HashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    try (KafkaConsumer<String, String> consumer = consumer(cluster, group, groupProtocol)) {
      consumer.subscribe(List.of(topic));
      while (!seen.keySet().containsAll(expected) && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          seen.merge(record.key(), 1, Integer::sum);
        }
      }
      consumer.commitSync();
    }
    return seen;
  }
}

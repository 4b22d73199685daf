package dev.klat.it.agent;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * ShareGroupIT's application: a producer and two share consumers in one JVM (run with the agent).
 * Group {@value #EXPLICIT} acknowledges each record explicitly: the normal records are accepted,
 * record {@value #HOLD} is held past its acquisition lock on its first delivery and accepted late
 * (the broker refuses it: the lock is lost, the record comes again), record {@value #RELEASE} is
 * released on its first delivery (it comes again). Group {@value #IMPLICIT} reads the same records
 * with implicit acknowledgement. Prints one line per delivery, {@code delivered group=... key=...
 * offset=... count=...}, then {@code done}.
 *
 * <p>Arguments: bootstrap servers, topic, number of normal records, hold time in ms.
 */
public final class ShareApp {

  static final String EXPLICIT = "share-explicit";
  static final String IMPLICIT = "share-implicit";
  static final String HOLD = "hold";
  static final String RELEASE = "release";
  static final long DEADLINE_MS = 40_000;
  private static final long STARTED_MS = System.currentTimeMillis();
  private static final CountDownLatch NORMAL_TAKEN = new CountDownLatch(1);
  private static final CountDownLatch HOLD_REDELIVERED = new CountDownLatch(1);

  private ShareApp() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int normal = Integer.parseInt(args[2]);
    long holdMs = Long.parseLong(args[3]);
    CountDownLatch polling = new CountDownLatch(2);
    Thread explicit =
        new Thread(() -> runExplicit(bootstrap, topic, normal, holdMs, polling), EXPLICIT);
    Thread implicit = new Thread(() -> runImplicit(bootstrap, topic, normal, polling), IMPLICIT);
    explicit.start();
    implicit.start();
    polling.await(20, TimeUnit.SECONDS);
    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap);
    producerProps.put("key.serializer", StringSerializer.class.getName());
    producerProps.put("value.serializer", StringSerializer.class.getName());
    producerProps.put("linger.ms", "0");
    // The held and the released record each come alone, once the explicit group took what came
    // before: a fetch then acquires only that record, so holding it holds no other past its lock,
    // in every client version (4.1 has no share.acquire.mode=record_limit).
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
      for (int i = 0; i < normal; i++) {
        producer.send(new ProducerRecord<>(topic, "normal-" + i, "v")).get();
        Thread.sleep(20);
      }
      NORMAL_TAKEN.await(DEADLINE_MS, TimeUnit.MILLISECONDS);
      producer.send(new ProducerRecord<>(topic, HOLD, "v")).get();
      HOLD_REDELIVERED.await(DEADLINE_MS, TimeUnit.MILLISECONDS);
      producer.send(new ProducerRecord<>(topic, RELEASE, "v")).get();
    }
    explicit.join(DEADLINE_MS);
    implicit.join(DEADLINE_MS);
    System.out.println("done ms=" + (System.currentTimeMillis() - STARTED_MS));
    System.out.flush();
    // The agent's exporter flushes its last spans and metrics when the JVM exits.
  }

  private static Properties consumerProps(String bootstrap, String group) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", group);
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    return props;
  }

  private static void runExplicit(
      String bootstrap, String topic, int normal, long holdMs, CountDownLatch polling) {
    Properties props = consumerProps(bootstrap, EXPLICIT);
    props.put("share.acknowledgement.mode", "explicit");
    Map<String, Integer> deliveries = new HashMap<>();
    long deadline = System.currentTimeMillis() + DEADLINE_MS;
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      boolean counted = false;
      while (System.currentTimeMillis() < deadline && !complete(deliveries, normal, 2)) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        if (!counted) {
          polling.countDown();
          counted = true;
        }
        for (ConsumerRecord<String, String> record : records) {
          int count = record.deliveryCount().orElse((short) 0);
          deliveries.merge(record.key(), 1, Integer::sum);
          print(EXPLICIT, record, count);
          if (complete(deliveries, normal, 0)) {
            NORMAL_TAKEN.countDown();
          }
          if (HOLD.equals(record.key()) && count == 2) {
            HOLD_REDELIVERED.countDown();
          }
          if (HOLD.equals(record.key()) && count == 1) {
            sleep(holdMs);
            consumer.acknowledge(record);
          } else if (RELEASE.equals(record.key()) && count == 1) {
            consumer.acknowledge(record, AcknowledgeType.RELEASE);
          } else {
            consumer.acknowledge(record);
          }
        }
      }
      // Sends the last acknowledgements and waits for the broker's answer.
      consumer.commitSync();
    }
  }

  private static void runImplicit(
      String bootstrap, String topic, int normal, CountDownLatch polling) {
    Map<String, Integer> deliveries = new HashMap<>();
    long deadline = System.currentTimeMillis() + DEADLINE_MS;
    try (KafkaShareConsumer<String, String> consumer =
        new KafkaShareConsumer<>(consumerProps(bootstrap, IMPLICIT))) {
      consumer.subscribe(List.of(topic));
      boolean counted = false;
      while (System.currentTimeMillis() < deadline && !complete(deliveries, normal, 1)) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        if (!counted) {
          polling.countDown();
          counted = true;
        }
        for (ConsumerRecord<String, String> record : records) {
          deliveries.merge(record.key(), 1, Integer::sum);
          print(IMPLICIT, record, record.deliveryCount().orElse((short) 0));
        }
      }
      // Accepts the last poll's records and waits for the broker's answer.
      consumer.commitSync();
    }
  }

  private static boolean complete(Map<String, Integer> deliveries, int normal, int special) {
    for (int i = 0; i < normal; i++) {
      if (!deliveries.containsKey("normal-" + i)) {
        return false;
      }
    }
    return special == 0
        || (deliveries.getOrDefault(HOLD, 0) >= special
            && deliveries.getOrDefault(RELEASE, 0) >= special);
  }

  private static synchronized void print(String group, ConsumerRecord<?, ?> record, int count) {
    System.out.println(
        "delivered ms="
            + (System.currentTimeMillis() - STARTED_MS)
            + " group="
            + group
            + " key="
            + record.key()
            + " offset="
            + record.offset()
            + " count="
            + count);
    System.out.flush();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.klat.it.agent;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Producer applications for the paths where records do not simply succeed: batches that expire,
 * {@code acks=0} and transactions. Usage: {@code EdgeCaseApp <mode> <bootstrap> <topic> <count>
 * <lingerAfterMillis> [markerFile]}.
 */
public final class EdgeCaseApp {

  private EdgeCaseApp() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String bootstrap = args[1];
    String topic = args[2];
    int count = Integer.parseInt(args[3]);
    long lingerAfterMillis = Long.parseLong(args[4]);

    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", "edge-" + mode);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    final String value = "v";
    switch (mode) {
      case "expire":
        p.put("acks", "all");
        p.put("linger.ms", "0");
        p.put("request.timeout.ms", "1000");
        p.put("delivery.timeout.ms", "3000");
        p.put("retry.backoff.ms", "100");
        break;
      case "acks0":
        p.put("acks", "0");
        p.put("enable.idempotence", "false");
        break;
      case "transactional":
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("transactional.id", "edge-tx");
        break;
      default:
        throw new IllegalArgumentException(mode);
    }

    AtomicInteger acked = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      if (mode.equals("transactional")) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      int firstPhase = mode.equals("expire") ? count / 2 : count;
      for (int i = 0; i < firstPhase; i++) {
        send(producer, topic, "k-" + i, value, acked, failed);
      }
      producer.flush();
      if (mode.equals("transactional")) {
        producer.commitTransaction();
      }
      if (mode.equals("expire")) {
        // The test freezes the broker, then lets us go on: these records can only expire.
        System.out.println("PHASE=sent-first-half");
        while (!Files.exists(Paths.get(args[5]))) {
          Thread.sleep(20);
        }
        for (int i = firstPhase; i < count; i++) {
          send(producer, topic, "k-" + i, value, acked, failed);
        }
        producer.flush();
      }
      producer.close(java.time.Duration.ofSeconds(10));
    }
    System.out.println("ACKED=" + acked.get());
    System.out.println("FAILED=" + failed.get());
    Thread.sleep(lingerAfterMillis);
    System.out.println("DONE");
  }

  private static void send(
      KafkaProducer<String, String> producer,
      String topic,
      String key,
      String value,
      AtomicInteger acked,
      AtomicInteger failed) {
    producer.send(
        new ProducerRecord<>(topic, key, value),
        (metadata, exception) -> {
          if (exception == null) {
            acked.incrementAndGet();
          } else {
            failed.incrementAndGet();
          }
        });
  }
}

package dev.klat.it.agent;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Producer applications for the paths where records do not simply succeed: batches that expire,
 * {@code acks=0}, transactions (one committed, one aborted, then read back by a {@code
 * read_committed} consumer), batches the broker rejects as too large, which the producer splits,
 * and records too large for the producer itself, which fail inside {@code send()}. Usage: {@code
 * EdgeCaseApp <mode> <bootstrap> <topic> <count> <lingerAfterMillis> [markerFile]}.
 */
public final class EdgeCaseApp {

  /** The records of the aborted transaction that follows the committed one. */
  static final int ABORTED_RECORDS = 5;

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
    final String value = mode.equals("split") ? "x".repeat(300) : "v";
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
      case "split":
        // One batch per record in the first half (flushed one by one) teaches the producer's
        // compression estimate that records shrink about 3:1 (it improves by 0.5% per
        // batch). The random second half, lingering into one batch, then holds far more than the
        // topic's max.message.bytes: the broker rejects it and the producer splits it.
        p.put("acks", "all");
        p.put("batch.size", "4000");
        p.put("linger.ms", "500");
        p.put("compression.type", "gzip");
        break;
      case "oversized":
        // Every fourth record is over max.request.size: send() fails it before any batch.
        p.put("max.request.size", "2000");
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
      int firstPhase = mode.equals("expire") || mode.equals("split") ? count / 2 : count;
      for (int i = 0; i < firstPhase; i++) {
        String recordValue = mode.equals("oversized") && i % 4 == 3 ? "x".repeat(3000) : value;
        send(producer, topic, "k-" + i, recordValue, acked, failed);
        if (mode.equals("split")) {
          producer.flush();
        }
      }
      producer.flush();
      if (mode.equals("transactional")) {
        producer.commitTransaction();
        // A second transaction, aborted once its records were acknowledged: a read_committed
        // consumer never sees them.
        producer.beginTransaction();
        for (int i = 0; i < ABORTED_RECORDS; i++) {
          send(producer, topic, "aborted-" + i, value, acked, failed);
        }
        producer.flush();
        producer.abortTransaction();
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
      if (mode.equals("split")) {
        java.util.Random random = new java.util.Random(42);
        for (int i = firstPhase; i < count; i++) {
          send(producer, topic, "k-" + i, randomText(random, 300), acked, failed);
        }
        producer.flush();
        System.out.println("BATCH_SPLITS=" + producerMetric(producer, "batch-split-total"));
        System.out.println("BATCH_SIZE_MAX=" + producerMetric(producer, "batch-size-max"));
        System.out.println(
            "COMPRESSION_RATE_AVG=" + producerMetric(producer, "compression-rate-avg"));
        System.out.println(
            "RECORDS_PER_REQUEST_AVG=" + producerMetric(producer, "records-per-request-avg"));
      }
      producer.close(java.time.Duration.ofSeconds(10));
    }
    System.out.println("ACKED=" + acked.get());
    System.out.println("FAILED=" + failed.get());
    if (mode.equals("transactional")) {
      System.out.println("READ_COMMITTED=" + readCommitted(bootstrap, topic, count));
    }
    Thread.sleep(lingerAfterMillis);
    System.out.println("DONE");
  }

  // Reads the topic from its start with isolation.level=read_committed until it has seen
  // `expected` records (or 30 s passed); returns how many it saw.
  private static int readCommitted(String bootstrap, String topic, int expected) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", "edge-read-committed");
    p.put("auto.offset.reset", "earliest");
    p.put("isolation.level", "read_committed");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    int seen = 0;
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(java.util.List.of(topic));
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (seen < expected && System.nanoTime() < deadline) {
        seen += consumer.poll(java.time.Duration.ofMillis(200)).count();
      }
      // One more poll: an aborted record would come now, if at all.
      seen += consumer.poll(java.time.Duration.ofMillis(500)).count();
    }
    return seen;
  }

  private static String randomText(java.util.Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('!' + random.nextInt(90)));
    }
    return text.toString();
  }

  private static double producerMetric(KafkaProducer<?, ?> producer, String name) {
    for (var entry : producer.metrics().entrySet()) {
      if (entry.getKey().name().equals(name) && entry.getKey().group().equals("producer-metrics")) {
        return ((Number) entry.getValue().metricValue()).doubleValue();
      }
    }
    return -1;
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

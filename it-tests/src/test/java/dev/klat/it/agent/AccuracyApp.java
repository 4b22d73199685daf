package dev.klat.it.agent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The application of the accuracy suite: per stream (a topic and its {@code acks}), a producer
 * sending 100-byte records at a fixed rate and a consumer group reading them, with one of the
 * delays of the suite set on the client side (linger, fetch wait, a sleep after each poll).
 *
 * <p>In mode {@code both}, producer and consumer share this JVM, so the application measures each
 * record's end-to-end latency itself on one monotonic clock (it writes {@code System.nanoTime()} at
 * {@code send()} into the value and reads it after {@code poll()} returned the record), the truth
 * klat is checked against. Modes {@code produce} and {@code consume} split the two sides across
 * JVMs (for a consumer host with a shifted clock).
 *
 * <p>Each stream first sends its records for the warm-up seconds to the topic's warm-up twin
 * ({@code topic-warmup}, same leader), through the same clients: a freshly started broker and
 * client JVM run interpreted code: eight streams' first 16 s measured 28 to 34 ms at p50 and 220 to
 * 797 ms at p99, where the same streams on the warm cluster measured 9 to 10 ms and 54 to 83 ms.
 *
 * <p>Arguments: mode, producer bootstrap, consumer bootstrap, seconds, warm-up seconds, records per
 * second and stream, then one {@code
 * topic:acks:linger.ms:fetch.min.bytes:fetch.max.wait.ms:sleepMs:group.protocol:sendAfterAck} per
 * stream, where sleepMs is a sleep after each poll and sendAfterAck ({@code true} or {@code false})
 * makes the producer send each record only once the previous one is acknowledged, and no sooner
 * than its slot in the rate (a slot missed while waiting is skipped, not caught up on), and
 * optionally {@code :key=value,key=value} more producer settings ({@code producers=N}: the records
 * go round-robin through N producers; {@code value.text.bytes=N}: values of N bytes of text).
 * Prints {@code STREAM topic count p50Nanos p99Nanos} per stream, for the measured records only.
 */
public final class AccuracyApp {

  private static final int VALUE_BYTES = 100;

  /** A stream setting that is not Kafka's: how many producers take turns sending its records. */
  static final String PRODUCERS = "producers";

  /**
   * A stream setting that is not Kafka's: values of this many bytes of random words (about 3:1
   * compressible, work for a compressor), instead of 100 bytes.
   */
  static final String VALUE_TEXT_BYTES = "value.text.bytes";

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String producerBootstrap = args[1];
    String consumerBootstrap = args[2];
    int seconds = Integer.parseInt(args[3]);
    int warmupSeconds = Integer.parseInt(args[4]);
    int perSecond = Integer.parseInt(args[5]);
    List<String[]> streams = new ArrayList<>();
    for (String stream : Arrays.asList(args).subList(6, args.length)) {
      streams.add(stream.split(":"));
    }
    int records = seconds * perSecond;
    int warmupRecords = warmupSeconds * perSecond;
    boolean produce = !mode.equals("consume");
    boolean consume = !mode.equals("produce");

    List<Thread> threads = new ArrayList<>();
    List<long[]> latencies = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch assigned = new CountDownLatch(consume ? streams.size() : 0);
    for (String[] stream : streams) {
      String topic = stream[0];
      if (consume) {
        long[] e2e = new long[records];
        latencies.add(e2e);
        threads.add(
            start(
                "consumer-" + topic,
                () ->
                    consume(
                        consumerBootstrap,
                        topic,
                        stream[3],
                        stream[4],
                        Long.parseLong(stream[5]),
                        stream[6],
                        records,
                        seconds + warmupSeconds,
                        e2e,
                        assigned,
                        mode.equals("both"))));
      }
    }
    if (!assigned.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("consumers not assigned in 60 s");
    }
    System.out.println("ASSIGNED");
    if (produce) {
      for (String[] stream : streams) {
        threads.add(
            start(
                "producer-" + stream[0],
                () ->
                    produce(
                        producerBootstrap,
                        stream[0],
                        stream[1],
                        stream[2],
                        Boolean.parseBoolean(stream[7]),
                        stream.length > 8 ? stream[8] : "",
                        perSecond,
                        warmupRecords,
                        records)));
      }
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (Boolean.getBoolean("accuracy.debug")) {
      for (int i = 0; i < latencies.size(); i++) {
        long[] e2e = latencies.get(i);
        for (int j = 0; j < e2e.length; j++) {
          if (e2e[j] > 30_000_000L) {
            System.out.println("SLOW " + streams.get(i)[0] + " " + j + " " + e2e[j] / 1_000_000);
          }
        }
      }
    }
    for (int i = 0; i < latencies.size(); i++) {
      long[] e2e = latencies.get(i).clone();
      Arrays.sort(e2e);
      System.out.println(
          "STREAM "
              + streams.get(i)[0]
              + " "
              + e2e.length
              + " "
              + e2e[(int) Math.ceil(0.5 * e2e.length) - 1]
              + " "
              + e2e[(int) Math.ceil(0.99 * e2e.length) - 1]);
    }
    // Lets the agent's export interval pass before the JVM exits.
    Thread.sleep(3_000);
    System.out.println("DONE");
  }

  static String warmupTopic(String topic) {
    return topic + "-warmup";
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread start(String name, Body body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable t) {
                // An Error too (a missing class): a stream that died must fail the run.
                t.printStackTrace();
                System.exit(2);
              }
            },
            name);
    thread.start();
    return thread;
  }

  /** Random words, compressible about 3:1: work for a compressor on every byte. */
  static byte[] text(int bytes) {
    Random random = new Random(1);
    String[] words = new String[2000];
    for (int i = 0; i < words.length; i++) {
      StringBuilder word = new StringBuilder();
      for (int n = 3 + random.nextInt(7); n > 0; n--) {
        word.append((char) ('a' + random.nextInt(26)));
      }
      words[i] = word.toString();
    }
    StringBuilder out = new StringBuilder(bytes + 16);
    while (out.length() < bytes) {
      out.append(words[random.nextInt(words.length)]).append(' ');
    }
    return out.substring(0, bytes).getBytes(StandardCharsets.US_ASCII);
  }

  private static void produce(
      String bootstrap,
      String topic,
      String acks,
      String lingerMs,
      boolean sendAfterAck,
      String moreSettings,
      int perSecond,
      int warmupRecords,
      int records)
      throws Exception {
    Properties p = new Properties();
    for (String setting : moreSettings.split(",")) {
      if (!setting.isEmpty()) {
        p.put(
            setting.substring(0, setting.indexOf('=')),
            setting.substring(setting.indexOf('=') + 1));
      }
    }
    // Not a Kafka setting: the stream's records go round-robin through this many producers, so that
    // each writes the topic that many times less often.
    Object producerCount = p.remove(PRODUCERS);
    int count = producerCount == null ? 1 : Integer.parseInt((String) producerCount);
    Object textBytes = p.remove(VALUE_TEXT_BYTES);
    byte[] text = textBytes == null ? null : text(Integer.parseInt((String) textBytes));
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", acks);
    p.put("linger.ms", lingerMs);
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
    try {
      for (int k = 0; k < count; k++) {
        p.put("client.id", "accuracy-" + topic + (count > 1 ? "-" + k : ""));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        producers.add(producer);
        // Metadata first, so that no record waits for it.
        producer.partitionsFor(topic);
        producer.partitionsFor(warmupTopic(topic));
      }
      long periodNanos = 1_000_000_000L / perSecond;
      long next = System.nanoTime();
      for (int i = -warmupRecords; i < records; i++) {
        long wait;
        while ((wait = next - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        next += periodNanos;
        byte[] value = text == null ? new byte[VALUE_BYTES] : text.clone();
        ByteBuffer.wrap(value).putLong(System.nanoTime()).putInt(i);
        KafkaProducer<byte[], byte[]> producer =
            producers.get(Math.floorMod(i + warmupRecords, count));
        Future<RecordMetadata> sent =
            producer.send(
                new ProducerRecord<>(i < 0 ? warmupTopic(topic) : topic, value),
                (metadata, error) -> {
                  if (error != null) {
                    error.printStackTrace();
                  }
                });
        if (sendAfterAck) {
          sent.get();
          // Two records sent back to back after a slow acknowledgement would be pipelined on the
          // connection, which is what sendAfterAck is there to avoid.
          next = Math.max(next, System.nanoTime());
        }
      }
      for (KafkaProducer<byte[], byte[]> producer : producers) {
        producer.flush();
      }
    } finally {
      for (KafkaProducer<byte[], byte[]> producer : producers) {
        producer.close();
      }
    }
  }

  private static void consume(
      String bootstrap,
      String topic,
      String fetchMinBytes,
      String fetchMaxWaitMs,
      long sleepAfterPollMs,
      String groupProtocol,
      int records,
      int seconds,
      long[] e2e,
      CountDownLatch assigned,
      boolean measure)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", topic + "-group");
    p.put("client.id", "accuracy-" + topic + "-consumer");
    p.put("auto.offset.reset", "earliest");
    p.put("fetch.min.bytes", fetchMinBytes);
    p.put("fetch.max.wait.ms", fetchMaxWaitMs);
    p.put("group.protocol", groupProtocol);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic, warmupTopic(topic)));
      while (consumer.assignment().isEmpty()) {
        consumer.poll(Duration.ofMillis(100));
      }
      assigned.countDown();
      int received = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 60L);
      while (received < records && System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
        long now = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> record : batch.records(topic)) {
          ByteBuffer value = ByteBuffer.wrap(record.value());
          long sent = value.getLong();
          int index = value.getInt();
          if (measure && index < records) {
            e2e[index] = now - sent;
          }
          received++;
        }
        if (sleepAfterPollMs > 0) {
          Thread.sleep(sleepAfterPollMs);
        }
      }
      if (received < records) {
        throw new IllegalStateException(topic + ": received " + received + " of " + records);
      }
      consumer.commitSync();
    }
  }
}

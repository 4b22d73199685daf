package dev.klat.it.agent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Consumer-side test application, run in its own JVM with one kafka-clients version and the klat
 * agent. Uses only API present in kafka-clients 2.8 to 4.4. Modes:
 *
 * <ul>
 *   <li>{@code e2e}: a producer thread and the consuming main thread in one JVM, so that the value
 *       (the producer's {@code System.nanoTime()} just before {@code send()}) and the consumer's
 *       {@code nanoTime()} just after {@code poll()} returned are on the same clock; prints {@code
 *       LAT partition/offset nanos} per record;
 *   <li>{@code produce}: produces {@code count} records at a steady rate;
 *   <li>{@code slow}: consumes {@code count} records, sleeping after every poll;
 *   <li>{@code produce-later}: as {@code produce}, after a pause of {@code intervalMillis * 100}
 *       with the producer open, so that the agent has exported (and measured its clock) first;
 *   <li>{@code consume}: consumes {@code count} records of a {@code produce} run, printing each
 *       one's latency from its value (the producer's {@code System.nanoTime()}, comparable across
 *       JVMs of one Linux host) to the return of its poll;
 *   <li>{@code bad}: produces records with forged, broken and missing klat headers and consumes
 *       them.
 * </ul>
 *
 * Arguments: mode bootstrap topic group protocol count intervalOrSleepMillis lingerMillis.
 */
public final class ConsumerApp {

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String bootstrap = args[1];
    String topic = args[2];
    String group = args[3];
    String protocol = args[4];
    int count = Integer.parseInt(args[5]);
    long intervalMillis = Long.parseLong(args[6]);
    long lingerMillis = Long.parseLong(args[7]);
    switch (mode) {
      case "produce":
        produceSteadily(bootstrap, topic, count, intervalMillis);
        break;
      case "e2e":
        e2e(bootstrap, topic, group, protocol, count, intervalMillis);
        break;
      case "produce-later":
        produceLater(bootstrap, topic, count, intervalMillis);
        break;
      case "consume":
        consume(bootstrap, topic, group, protocol, count);
        break;
      case "slow":
        slow(bootstrap, topic, group, protocol, count, intervalMillis);
        break;
      case "bad":
        bad(bootstrap, topic, group, protocol);
        break;
      default:
        throw new IllegalArgumentException(mode);
    }
    // Gives the agent's metrics interval time to pass before the JVM exits.
    Thread.sleep(lingerMillis);
    System.out.println("DONE");
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    return producer(bootstrap, StringSerializer.class);
  }

  private static <V> KafkaProducer<String, V> producer(
      String bootstrap, Class<? extends Serializer<? super V>> valueSerializer) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("acks", "all");
    properties.put("linger.ms", "0");
    properties.put("client.id", "it-consumer-app-producer");
    properties.put("key.serializer", StringSerializer.class.getName());
    properties.put("value.serializer", valueSerializer.getName());
    properties.putAll(securedClientSettings());
    return new KafkaProducer<>(properties);
  }

  /**
   * The client properties of the file named by {@code -Dklat.it.client-config} (a secured cluster's
   * listener: security protocol, SASL, trust store), or none.
   */
  private static Properties securedClientSettings() {
    Properties settings = new Properties();
    String file = System.getProperty("klat.it.client-config");
    if (file != null) {
      try (java.io.Reader in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(file))) {
        settings.load(in);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return settings;
  }

  /** Writes a {@code long[1]} holder as the decimal string of its value. */
  public static final class NanoTimeSerializer
      implements org.apache.kafka.common.serialization.Serializer<Object> {
    @Override
    public byte[] serialize(String topic, Object data) {
      return Long.toString(((long[]) data)[0]).getBytes(StandardCharsets.US_ASCII);
    }
  }

  static KafkaConsumer<String, String> consumer(
      String bootstrap, String group, String protocol, int maxPollRecords) {
    Properties properties = new Properties();
    // kafka-clients 3.9's new consumer otherwise returns records in batches about every 500 ms
    // (fetch.max.wait.ms), so that one poll holds the median record and any pause of the machine
    // in that poll moves the median; smaller, more frequent polls make the comparison robust.
    properties.put("fetch.max.wait.ms", "100");
    properties.put("bootstrap.servers", bootstrap);
    properties.put("group.id", group);
    properties.put("client.id", "it-consumer");
    properties.put("auto.offset.reset", "earliest");
    properties.put("max.poll.records", Integer.toString(maxPollRecords));
    if (!"classic".equals(protocol)) {
      properties.put("group.protocol", protocol);
    }
    properties.put("key.deserializer", StringDeserializer.class.getName());
    properties.put("value.deserializer", StringDeserializer.class.getName());
    properties.putAll(securedClientSettings());
    return new KafkaConsumer<>(properties);
  }

  private static void awaitAssignment(KafkaConsumer<String, String> consumer, String topic) {
    awaitAssignment(consumer, Collections.singletonList(topic));
  }

  private static void awaitAssignment(KafkaConsumer<String, String> consumer, List<String> topics) {
    consumer.subscribe(topics);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (consumer.assignment().isEmpty()) {
      ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
      if (!records.isEmpty()) {
        throw new IllegalStateException("topic must be empty before the test");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no assignment after 60 s");
      }
    }
    System.out.println("ASSIGNED=" + consumer.assignment().size());
  }

  private static void produceSteadily(String bootstrap, String topic, int count, long intervalMs)
      throws Exception {
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(topic, "k-" + i, Long.toString(System.nanoTime())));
        Thread.sleep(intervalMs);
      }
      producer.flush();
    }
    System.out.println("SENT=" + count);
  }

  private static void produceLater(String bootstrap, String topic, int count, long intervalMs)
      throws Exception {
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      producer.partitionsFor(topic);
      Thread.sleep(intervalMs * 100);
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(topic, "k-" + i, Long.toString(System.nanoTime())));
        Thread.sleep(intervalMs);
      }
      producer.flush();
    }
    System.out.println("SENT=" + count);
  }

  private static void consume(
      String bootstrap, String topic, String group, String protocol, int count) {
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, protocol, 500)) {
      awaitAssignment(consumer, topic);
      System.out.println("READY");
      int received = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      StringBuilder out = new StringBuilder();
      while (received < count && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        long pollReturnedNanos = System.nanoTime();
        for (ConsumerRecord<String, String> record : records) {
          out.append("LAT ")
              .append(record.partition())
              .append('/')
              .append(record.offset())
              .append(' ')
              .append(pollReturnedNanos - Long.parseLong(record.value()))
              .append('\n');
          received++;
        }
      }
      System.out.print(out);
      System.out.println("RECEIVED=" + received);
    }
  }

  private static void e2e(
      String bootstrap, String topic, String group, String protocol, int count, long intervalMs)
      throws Exception {
    // Warm-up records go to their own topic, so that class loading and JIT compilation, of the
    // application and of the agent, stay out of the measured topic's histograms.
    String warmupTopic = topic + "-warmup";
    int warmupCount = 200;
    java.util.concurrent.CountDownLatch warmedUp = new java.util.concurrent.CountDownLatch(1);
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, protocol, 500)) {
      awaitAssignment(consumer, java.util.Arrays.asList(topic, warmupTopic));
      Thread producerThread =
          new Thread(
              () -> {
                try (KafkaProducer<String, Object> producer =
                    producer(bootstrap, NanoTimeSerializer.class)) {
                  for (int i = 0; i < warmupCount; i++) {
                    producer.send(new ProducerRecord<>(warmupTopic, "w-" + i, new long[1]));
                    Thread.sleep(2);
                  }
                  warmedUp.await(60, TimeUnit.SECONDS);
                  for (int i = 0; i < count; i++) {
                    long[] sendNanos = new long[1];
                    ProducerRecord<String, Object> record =
                        new ProducerRecord<>(topic, "k-" + i, sendNanos);
                    // Read on the line before send(), where klat takes S; the serializer writes
                    // it inside send(). Nothing else runs in between that could be paused.
                    sendNanos[0] = System.nanoTime();
                    producer.send(record);
                    Thread.sleep(intervalMs);
                  }
                  producer.flush();
                } catch (Exception e) {
                  e.printStackTrace();
                }
              },
              "it-producer");
      producerThread.start();
      int received = 0;
      int warmupReceived = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      StringBuilder out = new StringBuilder();
      while (received < count && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        long pollReturnedNanos = System.nanoTime();
        for (ConsumerRecord<String, String> record : records) {
          if (record.topic().equals(warmupTopic)) {
            if (++warmupReceived == warmupCount) {
              warmedUp.countDown();
            }
            continue;
          }
          long latencyNanos = pollReturnedNanos - Long.parseLong(record.value());
          out.append("LAT ")
              .append(record.partition())
              .append('/')
              .append(record.offset())
              .append(' ')
              .append(latencyNanos)
              .append('\n');
          received++;
        }
      }
      producerThread.join();
      System.out.print(out);
      System.out.println("RECEIVED=" + received);
    }
  }

  private static void slow(
      String bootstrap, String topic, String group, String protocol, int count, long sleepMs)
      throws Exception {
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, protocol, 20)) {
      awaitAssignment(consumer, topic);
      System.out.println("READY");
      int received = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (received < count && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        received += records.count();
        // The application is busy: records wait in the client's buffer meanwhile.
        Thread.sleep(sleepMs);
      }
      System.out.println("RECEIVED=" + received);
    }
  }

  /** Header cases of the bad-input test, by key; the test expects exactly these counts. */
  private static void bad(String bootstrap, String topic, String group, String protocol)
      throws Exception {
    long nowMicros = System.currentTimeMillis() * 1000L;
    String goodTraceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    List<ProducerRecord<String, String>> records = new ArrayList<>();
    records.add(new ProducerRecord<>(topic, 0, "no-headers", "v"));
    records.add(withHeaders(topic, "truncated", null, "klat-timing", new byte[] {1, 1, 0, 0, 0}));
    records.add(withHeaders(topic, "oversized", null, "klat-timing", new byte[100]));
    records.add(withHeaders(topic, "garbage", null, "klat-timing", "not a header".getBytes()));
    records.add(
        withHeaders(
            topic,
            "duplicated",
            null,
            "klat-timing",
            timing(nowMicros, true),
            "klat-timing",
            timing(nowMicros, true)));
    records.add(
        withHeaders(
            topic, "future", null, "klat-timing", timing(nowMicros + 86_400_000_000L, true)));
    records.add(withHeaders(topic, "pre-1970", null, "klat-timing", timing(-5_000_000L, true)));
    records.add(
        withHeaders(
            topic,
            "bad-traceparent",
            null,
            "klat-timing",
            timing(nowMicros, true),
            "traceparent",
            "00-zzzz-garbage".getBytes(StandardCharsets.US_ASCII)));
    records.add(
        withHeaders(
            topic,
            "oversized-traceparent",
            null,
            "klat-timing",
            timing(nowMicros, true),
            "traceparent",
            new byte[4096]));
    records.add(withHeaders(topic, "no-traceparent", null, "klat-timing", timing(nowMicros, true)));
    records.add(
        withHeaders(
            topic,
            "good",
            null,
            "klat-timing",
            timing(nowMicros, true),
            "traceparent",
            goodTraceparent.getBytes(StandardCharsets.US_ASCII)));
    // A record timestamp a day ahead: its end-to-end latency is negative, clamped and counted.
    records.add(
        new ProducerRecord<>(topic, 0, System.currentTimeMillis() + 86_400_000L, "future-ts", "v"));
    // A record timestamp at the start of 1970: a huge but valid age.
    records.add(new ProducerRecord<>(topic, 0, 1L, "epoch-ts", "v"));

    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group, protocol, 500)) {
      awaitAssignment(consumer, topic);
      try (KafkaProducer<String, String> producer = producer(bootstrap)) {
        for (ProducerRecord<String, String> record : records) {
          producer.send(record).get(30, TimeUnit.SECONDS);
        }
      }
      int received = 0;
      int iteratedTwice = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (received < records.size() && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> polled = consumer.poll(Duration.ofMillis(200));
        // The application's view: plain ConsumerRecords, iterable twice, per-partition lists.
        if (polled.getClass() != ConsumerRecords.class) {
          throw new IllegalStateException("records were wrapped: " + polled.getClass());
        }
        for (ConsumerRecord<String, String> record : polled) {
          received++;
        }
        for (TopicPartition partition : polled.partitions()) {
          iteratedTwice += polled.records(partition).size();
        }
        consumer.commitSync();
      }
      System.out.println("RECEIVED=" + received);
      System.out.println("ITERATED_TWICE=" + iteratedTwice);
      System.out.println("VIEW=" + applicationView(consumer, topic, records.size()));
    }
  }

  /**
   * Seeks back and reads everything again through the calls whose behaviour the agent must not
   * change: {@code ListIterator} both ways, {@code pause}/{@code resume}, {@code wakeup}.
   */
  private static String applicationView(
      KafkaConsumer<String, String> consumer, String topic, int expected) {
    TopicPartition partition = new TopicPartition(topic, 0);
    consumer.seekToBeginning(Collections.singletonList(partition));
    int forward = 0;
    int backward = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (forward < expected && System.nanoTime() < deadline) {
      java.util.ListIterator<ConsumerRecord<String, String>> iterator =
          consumer.poll(Duration.ofMillis(200)).records(partition).listIterator();
      while (iterator.hasNext()) {
        iterator.next();
        forward++;
      }
      while (iterator.hasPrevious()) {
        iterator.previous();
        backward++;
      }
    }
    consumer.pause(consumer.assignment());
    consumer.seekToBeginning(Collections.singletonList(partition));
    boolean pausedEmpty = consumer.poll(Duration.ofMillis(300)).isEmpty();
    consumer.resume(consumer.assignment());
    consumer.wakeup();
    String wakeup = "missed";
    try {
      consumer.poll(Duration.ofSeconds(5));
    } catch (org.apache.kafka.common.errors.WakeupException e) {
      wakeup = "thrown";
    }
    int afterWakeup = 0;
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (afterWakeup < expected && System.nanoTime() < deadline) {
      afterWakeup += consumer.poll(Duration.ofMillis(200)).count();
    }
    return "forward "
        + forward
        + " backward "
        + backward
        + " pausedEmpty "
        + pausedEmpty
        + " wakeup "
        + wakeup
        + " afterWakeup "
        + afterWakeup;
  }

  private static ProducerRecord<String, String> withHeaders(
      String topic, String key, String value, Object... keysAndValues) {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, key, value);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      record.headers().add((String) keysAndValues[i], (byte[]) keysAndValues[i + 1]);
    }
    return record;
  }

  /** A klat timing header, laid out by hand so that the test does not trust the codec. */
  private static byte[] timing(long sendEpochMicros, boolean sampled) {
    return ByteBuffer.allocate(18)
        .put((byte) 1)
        .put((byte) (sampled ? 1 : 0))
        .putLong(sendEpochMicros)
        .putLong(42L)
        .array();
  }
}

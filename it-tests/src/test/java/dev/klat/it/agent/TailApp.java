package dev.klat.it.agent;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The application of {@link TailCaptureIT}: producers writing each topic at a fixed rate, with the
 * topic's {@code acks}, and per topic a consumer (group {@code <topic>-group}, the new consumer
 * protocol, whose background thread reads fetch responses as they come, so that a stall shows as
 * catch-up and not as fetch) that records, for every record, the truth the test checks klat
 * against: its poll time {@code P} (epoch microseconds, read as {@code poll()} returns) and its
 * timestamp ({@code S} on a {@code CreateTime} topic, {@code L} on a {@code LogAppendTime} one).
 *
 * <p>Each record's value starts with its sequence number in the run, negative during the warm-up.
 * The consumer stalls ({@code sleep}) after the poll that returned a chosen record: those whose
 * sequence number is {@code perSecond * (stallPhase + k * stallEvery)}. The producer prints {@code
 * PRODUCING} as the measured records start, and the test times its follower pauses from there.
 *
 * <p>Arguments: bootstrap, truth file, seconds, warm-up seconds, records per second and topic,
 * stall ms, stall phase seconds, stall every seconds, then one {@code topic:acks} per topic (one
 * producer per distinct {@code acks}). The truth file has one line per measured record, {@code R
 * topic partition offset sequence timestampMs pollMicros}, and one per stall, {@code STALL topic
 * sequence startMicros endMicros}.
 */
public final class TailApp {

  private static final int VALUE_BYTES = 100;

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    Path truthFile = Paths.get(args[1]);
    int seconds = Integer.parseInt(args[2]);
    int warmupSeconds = Integer.parseInt(args[3]);
    int perSecond = Integer.parseInt(args[4]);
    long stallMs = Long.parseLong(args[5]);
    int stallPhaseSeconds = Integer.parseInt(args[6]);
    int stallEverySeconds = Integer.parseInt(args[7]);
    Map<String, String> acksByTopic = new LinkedHashMap<>();
    for (String spec : List.of(args).subList(8, args.length)) {
      String[] parts = spec.split(":");
      acksByTopic.put(parts[0], parts[1]);
    }
    List<String> topics = List.copyOf(acksByTopic.keySet());
    long records = (long) seconds * perSecond;

    List<String> truth = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch assigned = new CountDownLatch(topics.size());
    List<Thread> consumers = new ArrayList<>();
    AtomicLong failures = new AtomicLong();
    for (String topic : topics) {
      Thread t =
          new Thread(
              () -> {
                try {
                  consume(
                      bootstrap,
                      topic,
                      records,
                      perSecond,
                      stallMs,
                      stallPhaseSeconds,
                      stallEverySeconds,
                      seconds + warmupSeconds + 60,
                      assigned,
                      truth);
                } catch (Exception e) {
                  failures.incrementAndGet();
                  e.printStackTrace();
                }
              },
              "consumer-" + topic);
      t.start();
      consumers.add(t);
    }
    if (!assigned.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("consumers not assigned in 60 s");
    }
    System.out.println("ASSIGNED");
    produce(bootstrap, acksByTopic, seconds, warmupSeconds, perSecond);
    for (Thread t : consumers) {
      t.join();
    }
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(truthFile))) {
      synchronized (truth) {
        truth.forEach(out::println);
      }
    }
    System.out.println("TRUTH " + truth.size());
    System.exit(failures.get() == 0 ? 0 : 1);
  }

  private static void produce(
      String bootstrap,
      Map<String, String> acksByTopic,
      int seconds,
      int warmupSeconds,
      int perSecond)
      throws Exception {
    Map<String, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
    for (String acks : new HashSet<>(acksByTopic.values())) {
      producers.put(acks, new KafkaProducer<>(producerSettings(bootstrap, acks)));
    }
    AtomicLong failed = new AtomicLong();
    try {
      long warmup = (long) warmupSeconds * perSecond;
      long total = warmup + (long) seconds * perSecond;
      long start = System.nanoTime();
      boolean announced = false;
      for (long i = 0; i < total; i++) {
        // Paced: record i is due at i / perSecond seconds; a late loop catches up at once.
        long dueNanos = start + i * 1_000_000_000L / perSecond;
        long wait = dueNanos - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        long sequence = i - warmup;
        if (sequence == 0 && !announced) {
          System.out.println("PRODUCING");
          announced = true;
        }
        byte[] value = new byte[VALUE_BYTES];
        ByteBuffer.wrap(value).putLong(sequence);
        for (Map.Entry<String, String> topic : acksByTopic.entrySet()) {
          producers
              .get(topic.getValue())
              .send(
                  new ProducerRecord<>(topic.getKey(), value),
                  (metadata, e) -> {
                    if (e != null && failed.getAndIncrement() == 0) {
                      System.out.println("send failed: " + e);
                    }
                  });
        }
      }
    } finally {
      for (KafkaProducer<byte[], byte[]> producer : producers.values()) {
        producer.close();
      }
    }
    System.out.println("PRODUCED failed=" + failed.get());
  }

  private static Properties producerSettings(String bootstrap, String acks) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", acks);
    p.put("client.id", "tail-producer-acks-" + acks);
    // About 100 requests a second to the leader. With acks=all, the leader reads a connection's
    // next
    // request only once it answered the one before: during a follower pause, the request appended
    // first waits for the high watermark (commit) and those sent after it wait unread on the
    // connection (publish, held behind replication). A max.in.flight above the 30 or so requests
    // of a 300 ms pause keeps them there, not in the accumulator waiting for a request slot.
    p.put("linger.ms", "10");
    p.put("enable.idempotence", "false");
    p.put("max.in.flight.requests.per.connection", "100");
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    return p;
  }

  private static void consume(
      String bootstrap,
      String topic,
      long records,
      int perSecond,
      long stallMs,
      int stallPhaseSeconds,
      int stallEverySeconds,
      int timeoutSeconds,
      CountDownLatch assigned,
      List<String> truth)
      throws InterruptedException {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", topic + "-group");
    p.put("client.id", "tail-" + topic + "-consumer");
    p.put("auto.offset.reset", "earliest");
    p.put("group.protocol", "consumer");
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    long seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      while (consumer.assignment().isEmpty()) {
        consumer.poll(Duration.ofMillis(100));
      }
      assigned.countDown();
      while (seen < records && System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
        long pollMicros = epochMicros();
        long stallOn = Long.MIN_VALUE;
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          long sequence = ByteBuffer.wrap(r.value()).getLong();
          if (sequence < 0) {
            continue;
          }
          seen++;
          truth.add(
              String.join(
                  " ",
                  "R",
                  r.topic(),
                  Integer.toString(r.partition()),
                  Long.toString(r.offset()),
                  Long.toString(sequence),
                  Long.toString(r.timestamp()),
                  Long.toString(pollMicros)));
          long sinceStart = sequence - (long) stallPhaseSeconds * perSecond;
          if (sinceStart >= 0 && sinceStart % ((long) stallEverySeconds * perSecond) == 0) {
            stallOn = sequence;
          }
        }
        if (stallOn != Long.MIN_VALUE) {
          long stallStart = epochMicros();
          Thread.sleep(stallMs);
          truth.add(
              String.join(
                  " ",
                  "STALL",
                  topic,
                  Long.toString(stallOn),
                  Long.toString(stallStart),
                  Long.toString(epochMicros())));
        }
      }
    }
    if (seen < records) {
      throw new IllegalStateException(topic + ": consumed " + seen + " of " + records);
    }
  }

  static long epochMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  private TailApp() {}
}

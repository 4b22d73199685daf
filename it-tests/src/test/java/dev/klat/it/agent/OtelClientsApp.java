package dev.klat.it.agent;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A plain kafka-clients application for OtelJavaClientsIT, run with the OpenTelemetry Java agent
 * and without klat's: one producer and one consumer (its own group) a stream, all in this JVM so
 * that each record's end to end is measured on one clock ({@code System.nanoTime()} just before
 * {@code send()}, in the value, against the moment the consumer's loop got the record). Arguments:
 * {@code bootstrap bursts burstSize intervalMs stream...}, each stream {@code
 * topic:lingerMs:sleepMsPerRecord}. Every {@code intervalMs} each stream sends a burst of {@code
 * burstSize} records; its delays, each a real wait of the client:
 *
 * <ul>
 *   <li>{@code linger.ms}: the producer holds the burst's batch after {@code send()} (where the
 *       instrumentation starts its span, S), before the leader's append (L): produce+publish;
 *   <li>the consumer's work a record, a sleep after each: the later records of a poll wait for it
 *       before the iterator hands them over (where the instrumentation starts its span, P), after
 *       the high watermark (H): catch-up+fetch.
 * </ul>
 *
 * At the end one line a stream, {@code klat-truth {json}}, as the Node clients print it; and one
 * java.util.logging line, which the OpenTelemetry agent exports to {@code /v1/logs}.
 */
public final class OtelClientsApp {
  private static final Logger LOG = Logger.getLogger(OtelClientsApp.class.getName());

  private record Stream(String topic, int lingerMs, int sleepMs, List<Long> e2eNanos) {}

  private static final long STARTED = System.nanoTime();

  private static void phase(String what) {
    System.out.println(
        "klat-phase +"
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - STARTED)
            + " ms: "
            + what);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int bursts = Integer.parseInt(args[1]);
    int burstSize = Integer.parseInt(args[2]);
    long intervalMs = Long.parseLong(args[3]);
    int expected = bursts * burstSize;
    List<Stream> streams = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      String[] parts = args[i].split(":");
      streams.add(
          new Stream(
              parts[0],
              Integer.parseInt(parts[1]),
              Integer.parseInt(parts[2]),
              Collections.synchronizedList(new ArrayList<>())));
    }

    CountDownLatch assigned = new CountDownLatch(streams.size());
    List<Thread> consumers = new ArrayList<>();
    for (Stream s : streams) {
      Thread t =
          new Thread(() -> consume(bootstrap, s, expected, assigned), s.topic() + "-consumer");
      t.start();
      consumers.add(t);
    }
    if (!assigned.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the consumers were not assigned their partitions in 60 s");
    }
    phase("consumers assigned");

    List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
    for (Stream s : streams) {
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("linger.ms", Integer.toString(s.lingerMs()));
      p.put("key.serializer", ByteArraySerializer.class.getName());
      p.put("value.serializer", ByteArraySerializer.class.getName());
      producers.add(new KafkaProducer<>(p));
    }
    long start = System.nanoTime();
    for (int burst = 0; burst < bursts; burst++) {
      long waitNanos =
          start + TimeUnit.MILLISECONDS.toNanos(burst * intervalMs) - System.nanoTime();
      if (waitNanos > 0) {
        TimeUnit.NANOSECONDS.sleep(waitNanos);
      }
      for (int i = 0; i < streams.size(); i++) {
        for (int r = 0; r < burstSize; r++) {
          byte[] sent = ByteBuffer.allocate(Long.BYTES).putLong(System.nanoTime()).array();
          producers.get(i).send(new ProducerRecord<>(streams.get(i).topic(), sent));
        }
      }
    }
    producers.forEach(KafkaProducer::close);
    phase("every record sent");
    for (Thread t : consumers) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    phase("every record consumed");
    boolean complete = true;
    for (Stream s : streams) {
      complete &= s.e2eNanos().size() >= expected;
      System.out.println("klat-truth " + truth(s));
    }
    LOG.info("OtelClientsApp done: " + streams.size() + " streams");
    if (!complete) {
      System.out.println("not every record consumed in 30 s");
      System.exit(1);
    }
  }

  private static void consume(String bootstrap, Stream s, int expected, CountDownLatch assigned) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", s.topic() + "-group");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(s.topic()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      boolean counted = false;
      while (s.e2eNanos().size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          long got = System.nanoTime();
          s.e2eNanos().add(got - ByteBuffer.wrap(record.value()).getLong());
          if (s.sleepMs() > 0) {
            Thread.sleep(s.sleepMs());
          }
        }
        if (!counted && !consumer.assignment().isEmpty()) {
          counted = true;
          assigned.countDown();
        }
      }
      consumer.commitSync();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String truth(Stream s) {
    List<Long> sorted = new ArrayList<>(s.e2eNanos());
    Collections.sort(sorted);
    double p50Ms = sorted.isEmpty() ? 0 : sorted.get((sorted.size() + 1) / 2 - 1) / 1e6;
    double meanMs = sorted.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
    return String.format(
        Locale.ROOT,
        "{\"topic\":\"%s\",\"count\":%d,\"p50Ms\":%.3f,\"meanMs\":%.3f}",
        s.topic(),
        sorted.size(),
        p50Ms,
        meanMs);
  }
}

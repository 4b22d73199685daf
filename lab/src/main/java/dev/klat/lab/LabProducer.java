package dev.klat.lab;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The lab's producer application, run with the klat agent in a JVM of its own. Usage: {@code
 * LabProducer <bootstrap> <topic> <recordsPerSecond> <recordBytes> <keyed> <warmupMs> <measureMs>
 * [key=value producer settings ...]}.
 *
 * <p>It talks to the lab over its standard streams, one line each way: it prints {@code ready} once
 * it has the topic's metadata, starts on {@code go}, sends at the fixed rate through the warm-up
 * and the measured window and prints {@code measured acked=N failed=N seconds=S}; then {@code burst
 * <ms>} sends as fast as the producer accepts (bounded by {@code buffer.memory}) and prints {@code
 * burst acked=N seconds=S}. The end of its standard input stops it.
 */
public final class LabProducer {

  private static final long TICK_NANOS = 5_000_000L;
  // An unbounded run stops after this much, whatever its duration: the lab's topics stay small.
  private static final long BURST_MAX_BYTES = 256L << 20;

  private LabProducer() {}

  public static void main(String[] args) throws Exception {
    String topic = args[1];
    double recordsPerSecond = Double.parseDouble(args[2]);
    int recordBytes = Integer.parseInt(args[3]);
    boolean keyed = Boolean.parseBoolean(args[4]);
    long warmupNanos = Long.parseLong(args[5]) * 1_000_000L;
    long measureNanos = Long.parseLong(args[6]) * 1_000_000L;
    Properties properties = new Properties();
    properties.put("bootstrap.servers", args[0]);
    properties.put("key.serializer", ByteArraySerializer.class.getName());
    properties.put("value.serializer", ByteArraySerializer.class.getName());
    ClientSettings.apply(properties, Arrays.asList(args).subList(7, args.length));
    BufferedReader commands =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    byte[] value = new byte[recordBytes];
    ThreadLocalRandom.current().nextBytes(value);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties)) {
      producer.partitionsFor(topic);
      System.out.println("ready");
      if (!"go".equals(commands.readLine())) {
        return;
      }
      Counts warmup = new Counts();
      paced(producer, topic, value, keyed, recordsPerSecond, warmupNanos, warmup);
      Counts measured = new Counts();
      long startNanos = System.nanoTime();
      paced(producer, topic, value, keyed, recordsPerSecond, measureNanos, measured);
      producer.flush();
      report("measured", measured, System.nanoTime() - startNanos);
      for (String line; (line = commands.readLine()) != null; ) {
        if (line.startsWith("burst ")) {
          long burstNanos = Long.parseLong(line.substring(6).trim()) * 1_000_000L;
          Counts burst = new Counts();
          long burstStart = System.nanoTime();
          unbounded(producer, topic, value, keyed, burstNanos, burst);
          producer.flush();
          report("burst", burst, System.nanoTime() - burstStart);
        }
      }
    }
  }

  /** Acknowledged and failed sends, counted by the producer's I/O thread. */
  private static final class Counts {
    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
  }

  private static void report(String what, Counts counts, long elapsedNanos) {
    System.out.println(
        String.format(
            Locale.ROOT,
            "%s acked=%d failed=%d seconds=%.3f",
            what,
            counts.acked.get(),
            counts.failed.get(),
            elapsedNanos / 1e9));
  }

  // Sends in 5 ms ticks what the rate owes, so that a rate of a few hundred records a second is
  // spread evenly rather than sent in once-a-second bursts that would fill batches by themselves.
  private static void paced(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      byte[] value,
      boolean keyed,
      double recordsPerSecond,
      long durationNanos,
      Counts counts)
      throws InterruptedException {
    long start = System.nanoTime();
    long nextTick = start;
    double owed = 0;
    long sequence = 0;
    while (System.nanoTime() - start < durationNanos) {
      owed += recordsPerSecond * (TICK_NANOS / 1e9);
      for (; owed >= 1; owed--) {
        send(producer, topic, value, keyed, sequence++, counts);
      }
      nextTick += TICK_NANOS;
      long sleepNanos = nextTick - System.nanoTime();
      if (sleepNanos > 0) {
        Thread.sleep(sleepNanos / 1_000_000L, (int) (sleepNanos % 1_000_000L));
      }
    }
  }

  private static void unbounded(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      byte[] value,
      boolean keyed,
      long durationNanos,
      Counts counts) {
    long start = System.nanoTime();
    long maxRecords = Math.max(1, BURST_MAX_BYTES / Math.max(1, value.length));
    for (long sequence = 0;
        sequence < maxRecords && System.nanoTime() - start < durationNanos;
        sequence++) {
      send(producer, topic, value, keyed, sequence, counts);
    }
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      byte[] value,
      boolean keyed,
      long sequence,
      Counts counts) {
    // Keys spread over 1000 values, so that a keyed run writes to every partition.
    byte[] key =
        keyed ? ("key-" + (sequence * 7919 % 1000)).getBytes(StandardCharsets.UTF_8) : null;
    producer.send(
        new ProducerRecord<>(topic, key, value),
        (metadata, exception) -> {
          if (exception == null) {
            counts.acked.incrementAndGet();
          } else if (counts.failed.getAndIncrement() == 0) {
            System.err.println("lab producer: send failed: " + exception);
          }
        });
  }
}

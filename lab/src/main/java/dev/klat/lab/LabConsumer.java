package dev.klat.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The lab's consumer application, a group member run with the klat agent in a JVM of its own.
 * Usage: {@code LabConsumer <bootstrap> <topic> <group> [key=value consumer settings ...]}. It
 * prints {@code assigned N} once it owns partitions (the lab starts producing only then, so that no
 * record waits for the group to form), polls until its standard input ends, then leaves the group.
 * Commands on standard input: {@code pause} stops fetching (answer {@code paused}); {@code drain
 * <records> <timeoutMs>} fetches again and reads as fast as it can until it has read that many
 * records or the time is up (answer {@code drained records=N seconds=S}).
 */
public final class LabConsumer {

  private LabConsumer() {}

  public static void main(String[] args) throws java.io.IOException {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", args[0]);
    properties.put("group.id", args[2]);
    properties.put("auto.offset.reset", "earliest");
    properties.put("key.deserializer", ByteArrayDeserializer.class.getName());
    properties.put("value.deserializer", ByteArrayDeserializer.class.getName());
    ClientSettings.apply(properties, Arrays.asList(args).subList(3, args.length));
    ConcurrentLinkedQueue<String> commands = new ConcurrentLinkedQueue<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
      Thread stdinWatch =
          new Thread(
              () -> {
                try {
                  BufferedReader in =
                      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                  for (String line; (line = in.readLine()) != null; ) {
                    commands.add(line.trim());
                  }
                } catch (IOException e) {
                  // Same as the end.
                }
                consumer.wakeup();
              },
              "lab-consumer-stdin");
      stdinWatch.setDaemon(true);
      stdinWatch.start();
      consumer.subscribe(
          Collections.singletonList(args[1]),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              if (!partitions.isEmpty()) {
                System.out.println("assigned " + partitions.size());
              }
            }
          });
      while (true) {
        consumer.poll(Duration.ofMillis(100));
        // The consumer is confined to this thread: commands wait here for the next poll.
        for (String command; (command = commands.poll()) != null; ) {
          if (command.equals("pause")) {
            consumer.pause(consumer.assignment());
            System.out.println("paused");
          } else if (command.startsWith("drain ")) {
            String[] words = command.split(" ");
            drain(consumer, Long.parseLong(words[1]), Long.parseLong(words[2]));
          }
        }
      }
    } catch (WakeupException stop) {
      // Standard input ended: the lab is done with this setting.
    }
  }

  // From the resume to the last record read: the consumer's own rate on a backlog, the fetch
  // settings included (a full fetch is answered at once, whatever fetch.max.wait.ms says).
  private static void drain(KafkaConsumer<byte[], byte[]> consumer, long records, long timeoutMs) {
    long startNanos = System.nanoTime();
    long deadlineNanos = startNanos + timeoutMs * 1_000_000L;
    long lastNanos = startNanos;
    long read = 0;
    consumer.resume(consumer.paused());
    while (read < records && System.nanoTime() < deadlineNanos) {
      int count = consumer.poll(Duration.ofMillis(100)).count();
      if (count > 0) {
        read += count;
        lastNanos = System.nanoTime();
      }
    }
    System.out.println(
        String.format(
            Locale.ROOT,
            "drained records=%d seconds=%.3f",
            read,
            Math.max(1, lastNanos - startNanos) / 1e9));
  }
}

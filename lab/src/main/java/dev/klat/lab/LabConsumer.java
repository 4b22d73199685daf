package dev.klat.lab;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Properties;
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
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
      Thread stdinWatch =
          new Thread(
              () -> {
                try {
                  while (System.in.read() >= 0) {
                    // Only the end matters.
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
      }
    } catch (WakeupException stop) {
      // Standard input ended: the lab is done with this setting.
    }
  }
}

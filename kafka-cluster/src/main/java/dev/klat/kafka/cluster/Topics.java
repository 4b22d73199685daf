package dev.klat.kafka.cluster;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/** Topic creation that returns only when producers and consumers can use the topic. */
public final class Topics {

  private Topics() {}

  // The preferred leader first, then the following node ids, wrapping around.
  private static java.util.Map<Integer, java.util.List<Integer>> assignment(
      TopicSpec spec, int brokerCount) {
    if (spec.preferredLeader() > brokerCount) {
      throw new IllegalArgumentException(
          spec + ": preferred leader " + spec.preferredLeader() + " is not a broker");
    }
    java.util.List<Integer> replicas = new java.util.ArrayList<>();
    for (int i = 0; i < spec.replicationFactor(); i++) {
      replicas.add((spec.preferredLeader() - 1 + i) % brokerCount + 1);
    }
    java.util.Map<Integer, java.util.List<Integer>> assignment = new java.util.HashMap<>();
    for (int partition = 0; partition < spec.partitions(); partition++) {
      assignment.put(partition, replicas);
    }
    return assignment;
  }

  static void create(Admin admin, TopicSpec spec, int brokerCount, Duration timeout) {
    if (spec.replicationFactor() > brokerCount) {
      throw new IllegalArgumentException(
          spec + ": replication factor exceeds the " + brokerCount + " brokers of the cluster");
    }
    NewTopic topic =
        spec.preferredLeader() > 0
            ? new NewTopic(spec.name(), assignment(spec, brokerCount)).configs(spec.configs())
            : new NewTopic(spec.name(), spec.partitions(), spec.replicationFactor())
                .configs(spec.configs());
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    try {
      admin.createTopics(Collections.singleton(topic)).all().get(timeout.toMillis(), MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + spec, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not create topic " + spec, e);
    }
    awaitReady(
        admin,
        spec.name(),
        spec.partitions(),
        spec.replicationFactor(),
        Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
  }

  /**
   * Waits until every partition of a just-created topic has a leader with a full ISR and a log that
   * answers. Creation returns once the controller has the topic; clients need leaders with full
   * ISRs, otherwise the first acks=all records would see NOT_ENOUGH_REPLICAS, and a broker asked
   * before the metadata reached it answers UNKNOWN_TOPIC_OR_PARTITION.
   */
  public static void awaitReady(
      Admin admin, String name, int partitions, int replicationFactor, Duration timeout) {
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    try {
      while (!isReady(admin, name, partitions, replicationFactor, deadlineNanos)) {
        if (System.nanoTime() > deadlineNanos) {
          throw new IllegalStateException(
              "topic " + name + " has no leader or incomplete ISR after " + timeout);
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for topic " + name, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer while waiting for topic " + name, e);
    }
  }

  // A topic of thousands of partitions takes its brokers more than seconds to answer for: each
  // question may take what is left of the wait.
  private static boolean isReady(
      Admin admin, String name, int partitions, int replicationFactor, long deadlineNanos)
      throws InterruptedException, TimeoutException {
    long answerMillis =
        Math.max(
            TimeUnit.SECONDS.toMillis(10),
            TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    TopicDescription description;
    try {
      description =
          admin
              .describeTopics(Collections.singleton(name))
              .allTopicNames()
              .get(answerMillis, MILLIS)
              .get(name);
    } catch (ExecutionException notYetVisible) {
      return false;
    }
    if (description == null || description.partitions().size() != partitions) {
      return false;
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicPartitionInfo partition : description.partitions()) {
      if (partition.leader() == null || partition.isr().size() < replicationFactor) {
        return false;
      }
      latest.put(new TopicPartition(name, partition.partition()), OffsetSpec.latest());
    }
    // The metadata can name a leader before that broker has created the partition's log; a
    // producer racing it gets NOT_LEADER_OR_FOLLOWER, and an idempotent producer's retry of its
    // first batch can then fail with OutOfOrderSequenceException (seen on Kafka 4.4). The leader
    // answers ListOffsets only once the log exists.
    try {
      admin.listOffsets(latest).all().get(answerMillis, MILLIS);
      return true;
    } catch (ExecutionException notYetWritable) {
      return false;
    }
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;
}

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
final class Topics {

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
      // Creation returns once the controller has the topic; clients need leaders with full ISRs,
      // otherwise the first acks=all records of a test would see NOT_ENOUGH_REPLICAS.
      while (!isReady(admin, spec)) {
        if (System.nanoTime() > deadlineNanos) {
          throw new IllegalStateException(
              "topic " + spec + " has no leader or incomplete ISR after " + timeout);
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + spec, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not create topic " + spec, e);
    }
  }

  private static boolean isReady(Admin admin, TopicSpec spec)
      throws InterruptedException, TimeoutException {
    TopicDescription description;
    try {
      description =
          admin
              .describeTopics(Collections.singleton(spec.name()))
              .allTopicNames()
              .get(10, TimeUnit.SECONDS)
              .get(spec.name());
    } catch (ExecutionException notYetVisible) {
      return false;
    }
    if (description == null || description.partitions().size() != spec.partitions()) {
      return false;
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicPartitionInfo partition : description.partitions()) {
      if (partition.leader() == null || partition.isr().size() < spec.replicationFactor()) {
        return false;
      }
      latest.put(new TopicPartition(spec.name(), partition.partition()), OffsetSpec.latest());
    }
    // The metadata can name a leader before that broker has created the partition's log; a
    // producer racing it gets NOT_LEADER_OR_FOLLOWER, and an idempotent producer's retry of its
    // first batch can then fail with OutOfOrderSequenceException (seen on Kafka 4.4). The leader
    // answers ListOffsets only once the log exists.
    try {
      admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException notYetWritable) {
      return false;
    }
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;
}

package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.Replicas;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link Replicas} the correlator reads, filled by discovery: the replica count of each
 * partition of the topics the correlator asked about (an immutable map replaced whole, so a lookup
 * takes no lock), and the number of live brokers. With one live broker no partition has a follower
 * in sync, so its high watermark moves with the append whatever its replication factor: a
 * single-broker cluster needs no topic metadata at all.
 */
final class ReplicaStore implements Replicas {
  static final int MAX_TOPICS = 10_000;

  private final Set<String> wanted = ConcurrentHashMap.newKeySet();
  private volatile Map<String, int[]> counts = Map.of();
  private volatile int liveBrokers = -1;

  @Override
  public int replicationFactor(String topic, int partition) {
    int[] partitions = counts.get(topic);
    if (partitions == null && wanted.size() < MAX_TOPICS) {
      wanted.add(topic); // described at the next discovery
    }
    if (partitions != null && partition >= 0 && partition < partitions.length) {
      return partitions[partition];
    }
    return liveBrokers == 1 ? 1 : -1;
  }

  /** The topics whose replica counts lookups asked for, to describe at the next discovery. */
  Set<String> wanted() {
    return Set.copyOf(wanted);
  }

  void liveBrokers(int count) {
    liveBrokers = count;
  }

  /** Replaces the replica counts: per topic, indexed by partition (0 where unknown). */
  void counts(Map<String, int[]> byTopic) {
    counts = Map.copyOf(byTopic);
  }
}

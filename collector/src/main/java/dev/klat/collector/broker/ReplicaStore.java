package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.Replicas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link Replicas} the correlator reads, filled by discovery: the replica count of each
 * partition of the topics the correlator asked about (an immutable map replaced whole, so a lookup
 * takes no lock), and the number of live brokers. With one live broker no partition has a follower
 * in sync, so its high watermark moves with the append whatever its replication factor: a
 * single-broker cluster needs no topic metadata at all.
 *
 * <p>The topics asked about come from spans, so they are bounded: at most {@value #MAX_TOPICS}
 * (each a name {@code WireNames} let in, at most 249 characters: under 4 MB together), the least
 * recently asked leaving first, a tenth at a time, counted ({@link #evicted}). A topic that left is
 * described again at the next discovery after it is asked again.
 */
final class ReplicaStore implements Replicas {
  static final int MAX_TOPICS = 10_000;

  // Per topic, when it was last asked (a tick of {@code asked}).
  private final Map<String, Long> wanted = new ConcurrentHashMap<>();
  private final AtomicLong asked = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();
  private volatile Map<String, int[]> counts = Map.of();
  private volatile int liveBrokers = -1;

  @Override
  public int replicationFactor(String topic, int partition) {
    int[] partitions = counts.get(topic);
    // Described at the next discovery; asked again, it is the most recent.
    if (wanted.put(topic, asked.incrementAndGet()) == null && wanted.size() > MAX_TOPICS) {
      evictLeastRecentlyAsked();
    }
    if (partitions != null && partition >= 0 && partition < partitions.length) {
      return partitions[partition];
    }
    return liveBrokers == 1 ? 1 : -1;
  }

  // A tenth of the cap at once, so that a stream of new topics costs one scan per tenth.
  private synchronized void evictLeastRecentlyAsked() {
    int excess = wanted.size() - MAX_TOPICS;
    if (excess <= 0) {
      return;
    }
    int leaving = Math.max(excess, MAX_TOPICS / 10);
    List<Map.Entry<String, Long>> byAge = new ArrayList<>(wanted.entrySet());
    byAge.sort(Map.Entry.comparingByValue());
    for (int i = 0; i < leaving && i < byAge.size(); i++) {
      if (wanted.remove(byAge.get(i).getKey(), byAge.get(i).getValue())) {
        evicted.incrementAndGet();
      }
    }
  }

  /** The topics whose replica counts lookups asked for, to describe at the next discovery. */
  Set<String> wanted() {
    return Set.copyOf(wanted.keySet());
  }

  /** Topics that left the asked-about set since start, the least recently asked first. */
  long evicted() {
    return evicted.get();
  }

  void liveBrokers(int count) {
    liveBrokers = count;
  }

  /** Replaces the replica counts: per topic, indexed by partition (0 where unknown). */
  void counts(Map<String, int[]> byTopic) {
    counts = Map.copyOf(byTopic);
  }
}

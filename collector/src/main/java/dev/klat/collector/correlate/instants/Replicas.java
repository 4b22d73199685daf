package dev.klat.collector.correlate.instants;

/**
 * What the collector knows of a partition's replicas from the cluster's metadata: enough to tell a
 * partition with no follower, whose high watermark moves with the leader's append ({@code H = L}).
 */
public interface Replicas {

  /** Nothing known: every partition may have followers. */
  Replicas UNKNOWN = (topic, partition) -> -1;

  /**
   * Returns how many replicas the partition has, or -1 when unknown. Called under the correlator's
   * lock: must answer from memory, never block nor do I/O.
   *
   * @param topic the topic
   * @param partition the partition
   * @return the replica count (at least 1), or -1
   */
  int replicationFactor(String topic, int partition);
}

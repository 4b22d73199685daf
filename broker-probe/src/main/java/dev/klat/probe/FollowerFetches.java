package dev.klat.probe;

import dev.klat.model.BrokerProbeWire;

/**
 * Which follower's fetch the current thread is handling, so that a high-watermark advance can name
 * the follower that moved it. The leader calls {@code maybeIncrementLeaderHW} from inside {@code
 * Partition.updateFollowerFetchState}, on the same thread: the entry hook of that method notes the
 * partition and the follower, its exit hook forgets them, and an advance in between is the
 * follower's. An advance on any other path (an append with the leader alone in the ISR, an ISR
 * shrink) finds no note for its partition and names no follower.
 *
 * <p>One slot per thread, allocated at a thread's first follower fetch (the broker's request
 * handler threads are a fixed pool); after that a note is a thread-local lookup and two stores.
 */
final class FollowerFetches {

  private static final ThreadLocal<Slot> CURRENT = ThreadLocal.withInitial(Slot::new);

  private FollowerFetches() {}

  /** The thread starts handling {@code followerId}'s fetch of {@code topicPartition}. */
  static void started(Object topicPartition, int followerId) {
    Slot slot = CURRENT.get();
    slot.topicPartition = topicPartition;
    slot.followerId = followerId;
  }

  /** The thread is done with the follower's fetch. */
  static void ended() {
    Slot slot = CURRENT.get();
    slot.topicPartition = null;
    slot.followerId = BrokerProbeWire.NO_FOLLOWER;
  }

  /**
   * The follower whose fetch of {@code topicPartition} the thread is handling, or {@link
   * BrokerProbeWire#NO_FOLLOWER}.
   */
  static int followerOf(Object topicPartition) {
    Slot slot = CURRENT.get();
    // Identity: the partition's own TopicPartition field, the same object in both hooks.
    return slot.topicPartition == topicPartition ? slot.followerId : BrokerProbeWire.NO_FOLLOWER;
  }

  private static final class Slot {
    Object topicPartition;
    int followerId = BrokerProbeWire.NO_FOLLOWER;
  }
}

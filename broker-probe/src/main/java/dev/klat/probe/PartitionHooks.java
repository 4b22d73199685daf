package dev.klat.probe;

import dev.klat.agentcore.clock.WallClock;
import dev.klat.agentcore.log.AgentLog;

/**
 * The calls woven into {@code kafka.cluster.Partition} (see {@link PartitionInstrumentation}). They
 * run on the broker's request handler and replica threads, so each reads what it needs, offers one
 * event to the {@link EventRing} and returns: no lock, no allocation, no I/O, and no exception ever
 * leaves them.
 */
public final class PartitionHooks {

  private static final LongReader FIRST_OFFSET = new LongReader("firstOffset");
  private static final LongReader LAST_OFFSET = new LongReader("lastOffset");
  private static final LongReader HIGH_WATERMARK = new LongReader("highWatermark");
  private static final LongReader LAST_STABLE_OFFSET = new LongReader("lastStableOffset");
  private static final LongReader REPLICA_BROKER_ID = new LongReader("brokerId");

  private static volatile EventRing ring;
  private static volatile int brokerId = -1;

  private PartitionHooks() {}

  /** Starts delivering events to {@code events}; until then every hook returns at once. */
  static void install(EventRing events) {
    ring = events;
  }

  /** The broker's node id as its partitions report it, or -1 before the first event. */
  static int brokerId() {
    return brokerId;
  }

  /**
   * At the exit of {@code Partition.appendRecordsToLeader}: the batch is in the leader's log.
   *
   * @param appendInfo the returned {@code LogAppendInfo}
   * @param topicPartition the partition's {@code TopicPartition} field
   * @param leaderEpoch the partition's leader epoch field
   * @param localBrokerId the partition's broker id field
   */
  public static void appended(
      Object appendInfo, Object topicPartition, int leaderEpoch, int localBrokerId) {
    EventRing events = ring;
    if (events == null || appendInfo == null || topicPartition == null) {
      return;
    }
    try {
      long monotonicNow = System.nanoTime();
      long first = FIRST_OFFSET.read(appendInfo);
      long last = LAST_OFFSET.read(appendInfo);
      if (first < 0 || last < first) {
        // An append that wrote nothing (every batch invalid, or a duplicate batch).
        return;
      }
      noteBrokerId(localBrokerId);
      long request = ProduceRequests.timesAt(monotonicNow, appendInfo.getClass());
      events.offer(
          EventRing.APPEND,
          topicPartition,
          leaderEpoch,
          first,
          last,
          WallClock.epochNanos(monotonicNow),
          request);
    } catch (Throwable t) {
      hookFailed("appendRecordsToLeader", t);
    }
  }

  /**
   * At the exit of {@code Partition.maybeIncrementLeaderHW}: when it returns true the leader's high
   * watermark has just moved, and with it, perhaps, the last stable offset (a transaction's records
   * become readable for {@code read_committed} consumers when the high watermark passes its commit
   * marker: the log updates its first unstable offset inside the same high-watermark update). The
   * last stable offset is read after the high watermark and capped at it: another thread may have
   * moved both in between, and its own event carries its values.
   *
   * @param advanced the returned value
   * @param topicPartition the partition's {@code TopicPartition} field
   * @param leaderEpoch the partition's leader epoch field
   * @param localBrokerId the partition's broker id field
   * @param leaderLog the leader's {@code UnifiedLog} argument
   */
  public static void highWatermarkChecked(
      boolean advanced,
      Object topicPartition,
      int leaderEpoch,
      int localBrokerId,
      Object leaderLog) {
    EventRing events = ring;
    if (!advanced || events == null || topicPartition == null || leaderLog == null) {
      return;
    }
    try {
      long now = ProbeClock.epochNanos();
      long highWatermark = HIGH_WATERMARK.read(leaderLog);
      if (highWatermark < 0) {
        return;
      }
      // One more field read through a handle (no lock, no allocation in either log class).
      long stable = LAST_STABLE_OFFSET.read(leaderLog);
      noteBrokerId(localBrokerId);
      int follower = FollowerFetches.followerOf(topicPartition);
      events.offer(
          EventRing.HIGH_WATERMARK,
          topicPartition,
          leaderEpoch,
          follower,
          highWatermark,
          now,
          stable < 0 ? EventRing.NO_STABLE_OFFSET : Math.min(stable, highWatermark));
    } catch (Throwable t) {
      hookFailed("maybeIncrementLeaderHW", t);
    }
  }

  /**
   * At the entry of {@code Partition.updateFollowerFetchState}: the leader takes a follower's
   * fetch, and may advance its high watermark before the method returns.
   *
   * @param replica the follower's {@code Replica} argument
   * @param topicPartition the partition's {@code TopicPartition} field
   */
  public static void followerFetchStarted(Object replica, Object topicPartition) {
    if (ring == null || replica == null) {
      return;
    }
    try {
      long followerId = REPLICA_BROKER_ID.read(replica);
      if (followerId >= 0 && followerId <= Integer.MAX_VALUE) {
        FollowerFetches.started(topicPartition, (int) followerId);
      }
    } catch (Throwable t) {
      hookFailed("updateFollowerFetchState", t);
    }
  }

  /** At the exit of {@code Partition.updateFollowerFetchState}. */
  public static void followerFetchEnded() {
    if (ring == null) {
      return;
    }
    try {
      FollowerFetches.ended();
    } catch (Throwable t) {
      hookFailed("updateFollowerFetchState-exit", t);
    }
  }

  /**
   * Exit of the {@code Partition} constructor (a partition this broker leads or follows).
   *
   * @param localBrokerId the partition's broker id field
   */
  public static void created(int localBrokerId) {
    if (ring != null) {
      noteBrokerId(localBrokerId);
    }
  }

  // A volatile write per event would be for nothing: the id never changes in a broker's life.
  private static void noteBrokerId(int localBrokerId) {
    if (brokerId != localBrokerId) {
      brokerId = localBrokerId;
    }
  }

  // Once per hook: a hook that fails keeps failing the same way, and the broker must not pay for a
  // log line per batch.
  private static void hookFailed(String hook, Throwable t) {
    AgentLog.global()
        .warnOnce("probe-hook-" + hook, "broker probe: " + hook + " hook failed, no events: " + t);
  }
}

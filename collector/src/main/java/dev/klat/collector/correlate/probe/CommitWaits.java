package dev.klat.collector.correlate.probe;

/**
 * How long a leader's high watermark waited for its followers, from its broker probe: the evidence
 * that names a slow follower. A Produce request with {@code acks=all} waits for the high watermark,
 * and the requests behind it on the same connection wait too, before the leader reads them: their
 * publish holds replication waits that are not their own commit.
 */
public interface CommitWaits {

  /** No probe: every lookup answers null. */
  CommitWaits NONE = (leaderId, fromEpochNanos, toEpochNanos) -> null;

  /**
   * Returns how much of the interval from {@code fromEpochNanos} to {@code toEpochNanos} (the
   * leader's clock) leader {@code leaderId}'s high watermark spent waiting: the union of its waits
   * (from the append of a commit range's first offset to the advance over it) that ended within the
   * interval, cut to it. A request read by the leader at the interval's end was held that long at
   * most by requests ahead of it waiting for their followers.
   *
   * @return the time waited and the follower whose fetches ended most of it, {@link
   *     CommitWait#NONE} when no wait ended in the interval, or null when the leader has no probe
   *     reports
   */
  CommitWait heldDuring(int leaderId, long fromEpochNanos, long toEpochNanos);

  /**
   * Time a leader's high watermark waited within an interval.
   *
   * @param heldNanos the union of the waits, cut to the interval
   * @param followerId the follower whose fetch ended most of that time, or -1 (the leader alone in
   *     the ISR, or unknown)
   */
  record CommitWait(long heldNanos, int followerId) {
    public static final CommitWait NONE = new CommitWait(0, -1);
  }
}

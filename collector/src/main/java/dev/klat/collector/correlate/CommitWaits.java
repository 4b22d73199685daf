package dev.klat.collector.correlate;

/**
 * How long a leader's high watermark stood still, from its broker probe: the evidence that names a
 * slow follower. A Produce request with {@code acks=all} waits for the high watermark, and the
 * requests behind it on the same connection wait too, before the leader reads them: their publish
 * holds a replication wait that is not their own commit.
 */
public interface CommitWaits {

  /** No probe: every lookup answers null. */
  CommitWaits NONE = (leaderId, fromEpochNanos, toEpochNanos) -> null;

  /**
   * Returns the commit range of leader {@code leaderId} that the high watermark passed between
   * {@code fromEpochNanos} and {@code toEpochNanos} (the leader's clock) after the longest wait,
   * counted from when its first offset was appended.
   *
   * @return the longest wait, {@link CommitWait#NONE} when the probe saw no wait in the interval,
   *     or null when the leader has no probe reports
   */
  CommitWait longest(int leaderId, long fromEpochNanos, long toEpochNanos);

  /**
   * One wait of the high watermark.
   *
   * @param waitNanos from the append of the range's first offset to the advance over it
   * @param committedEpochNanos when the high watermark passed the range, the leader's clock
   * @param followerId the follower whose fetch moved it, or -1 (the leader alone, or unknown)
   */
  record CommitWait(long waitNanos, long committedEpochNanos, int followerId) {
    public static final CommitWait NONE = new CommitWait(0, Long.MIN_VALUE, -1);
  }
}

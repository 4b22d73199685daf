package dev.klat.agent.consumer;

/**
 * What one consumer's previous fetch response for a partition said: when it arrived and the high
 * watermark it reported. A record at or above that high watermark was not committed when the leader
 * built that response, which bounds the record's {@code H} from below by the consumer's own
 * observation, with no broker metric involved.
 *
 * <p>Written and read only by the thread running {@code poll()} on the consumer.
 */
final class PartitionFetchHistory {

  /** The response whose records were noted last; several lists of one response share it. */
  private FetchStamp lastStamp;

  private long lastHighWatermark = -1L;

  /** {@code R} of the response before {@link #lastStamp}, 0 when unknown or read late. */
  private long priorResponseNanos;

  private long priorHighWatermark = -1L;

  /**
   * Notes the response a list of records came from. A list from the response already noted (a
   * response split across several {@code poll()} calls by {@code max.poll.records}) changes
   * nothing.
   */
  void note(FetchStamp stamp, long highWatermark) {
    if (stamp == lastStamp) {
      return;
    }
    FetchStamp previous = lastStamp;
    // A response read late says nothing about when its high watermark held: the leader built it
    // an unknown time before R.
    boolean usable = previous != null && previous.readPromptly && lastHighWatermark >= 0L;
    priorResponseNanos = usable ? previous.responseNanos : 0L;
    priorHighWatermark = usable ? lastHighWatermark : -1L;
    lastStamp = stamp;
    lastHighWatermark = stamp != null ? highWatermark : -1L;
  }

  /**
   * {@code R} of the previous response when it found the record at {@code offset} not yet
   * committed, else 0. Call after {@link #note} for the record's own response.
   */
  long uncommittedAtNanos(long offset) {
    return priorResponseNanos != 0L && offset >= priorHighWatermark ? priorResponseNanos : 0L;
  }
}

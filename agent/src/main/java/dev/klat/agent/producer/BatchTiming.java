package dev.klat.agent.producer;

/**
 * What the agent knows about one producer batch: the send time S of each of its records, in append
 * order, when it was drained into a produce request (first and last attempt), the error it was last
 * retried for, and which broker the request went to, with how many batches it carried and how many
 * requests were already in flight to that broker.
 *
 * <p>Appends happen on application threads under the accumulator's lock for the batch's partition;
 * drains take the same lock, so the network thread sees every append made before the drain. Drain
 * and completion fields are written by the network thread only, except when a batch is aborted
 * (producer close, fatal transaction error); then a stale value is possible and harmless.
 */
final class BatchTiming {

  /** Null when the batch's topic is not instrumented: nothing is recorded for it. */
  TopicInstruments instruments;

  long[] sendNanos;
  int appended;
  long firstDrainNanos;
  long lastDrainNanos;
  int drains;
  int leaderNodeId = -1;

  /**
   * The name of Kafka's {@code Errors} of the last failed attempt the producer retried the batch
   * for; null while it was never retried (or the retry hook did not bind).
   */
  String retryError;

  /**
   * Of the request that carried the batch last: its batches, and the requests already in flight.
   */
  int requestBatches = -1;

  int requestInFlightBefore = -1;

  /** The sampled records of the batch, in append order; null while it has none. */
  RecordTracker[] sampledRecords;

  int sampledCount;

  /** Of the batch's completion, for its sampled records' spans: A, the log append time, records. */
  long ackNanos;

  long logAppendTime = -1;
  int completedRecordCount = -1;

  void append(TopicInstruments topicInstruments, long recordSendNanos) {
    if (instruments != topicInstruments) {
      instruments = topicInstruments;
    }
    long[] times = sendNanos;
    if (times == null) {
      times = SendTimesPool.SHARED.take();
      sendNanos = times;
    } else if (appended == times.length) {
      long[] grown = new long[times.length * 2];
      System.arraycopy(times, 0, grown, 0, appended);
      times = grown;
      sendNanos = times;
    }
    times[appended++] = recordSendNanos;
  }

  /** A sampled record appended to this batch, at the position of the last send time appended. */
  void addSampled(RecordTracker tracker) {
    tracker.indexInBatch = appended - 1;
    RecordTracker[] trackers = sampledRecords;
    if (trackers == null) {
      trackers = new RecordTracker[2];
      sampledRecords = trackers;
    } else if (sampledCount == trackers.length) {
      RecordTracker[] grown = new RecordTracker[trackers.length * 2];
      System.arraycopy(trackers, 0, grown, 0, sampledCount);
      trackers = grown;
      sampledRecords = trackers;
    }
    trackers[sampledCount++] = tracker;
  }

  /** The sampled record at {@code index} of the batch, or null when that record is not sampled. */
  RecordTracker sampledAt(int index) {
    for (int i = 0; i < sampledCount; i++) {
      if (sampledRecords[i].indexInBatch == index) {
        return sampledRecords[i];
      }
    }
    return null;
  }

  /** After their spans are exported: the batch holds no sampled record any more. */
  void clearSampled() {
    sampledRecords = null;
    sampledCount = 0;
  }

  /**
   * After the batch's latencies are recorded: the send times go back to the pool for a later batch.
   * A second call, or an append after it, finds no array and is harmless.
   */
  void releaseSendTimes() {
    long[] times = sendNanos;
    if (times != null) {
      sendNanos = null;
      appended = 0;
      SendTimesPool.SHARED.give(times);
    }
  }

  void drained(long nowNanos) {
    if (drains == 0) {
      firstDrainNanos = nowNanos;
    }
    lastDrainNanos = nowNanos;
    drains++;
  }
}

package dev.klat.agent.producer;

import java.util.Arrays;

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

  /** S of the batch's first record: the instant its records' {@link #sendOffsets} count from. */
  long firstSendNanos;

  /**
   * Each record's S as nanoseconds since {@link #firstSendNanos}, in append order: ints, 4 bytes a
   * record in flight where longs took 8 (no CPU difference measured: {@code agent/DESIGN.md}). Null
   * before the first append, after the send times are released, and once they are {@link
   * #wideSendNanos}.
   */
  int[] sendOffsets;

  /**
   * Each record's S, when one of them is more than an int's 2.1 s from the first: a batch that
   * stayed open that long (a producer sending a few records a second to an unavailable leader), or
   * a record that waited that long in {@code send()} for buffer memory or metadata.
   */
  long[] wideSendNanos;

  int appended;

  /**
   * The earliest S of the batch's records: its largest {@code A - S}, so that one comparison per
   * batch tells whether any record of it can be above its tail threshold. Not {@link
   * #firstSendNanos}: a record whose {@code send()} began earlier may be appended later (it waited
   * for metadata or buffer memory).
   */
  long earliestSendNanos;

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

  /**
   * The offset of the batch's first record, from its completion; -1 when unknown ({@code acks=0}).
   */
  long baseOffset = -1;

  /**
   * The batch's records flagged as tail records and kept by the producer's fair cap, by index in
   * the batch, with their S (the send times are released before their spans are built); null while
   * it has none.
   */
  int[] tailIndices;

  long[] tailSendNanos;
  int tailCount;

  /** The threshold the tail records were above. */
  long tailThresholdNanos;

  void append(TopicInstruments topicInstruments, long recordSendNanos) {
    if (instruments != topicInstruments) {
      instruments = topicInstruments;
    }
    if (appended == 0 || recordSendNanos < earliestSendNanos) {
      earliestSendNanos = recordSendNanos;
    }
    int[] offsets = sendOffsets;
    if (offsets == null) {
      if (wideSendNanos != null) {
        appendWide(recordSendNanos);
        return;
      }
      offsets = SendTimesPool.SHARED.take();
      sendOffsets = offsets;
      firstSendNanos = recordSendNanos;
    } else if (appended == offsets.length) {
      offsets = Arrays.copyOf(offsets, offsets.length * 2);
      sendOffsets = offsets;
    }
    long offset = recordSendNanos - firstSendNanos;
    if ((int) offset != offset) {
      widen();
      appendWide(recordSendNanos);
      return;
    }
    offsets[appended++] = (int) offset;
  }

  /** The S of the record at {@code index}, which must be below {@link #appended}. */
  long sendNanosAt(int index) {
    long[] wide = wideSendNanos;
    return wide != null ? wide[index] : firstSendNanos + sendOffsets[index];
  }

  private void widen() {
    int[] offsets = sendOffsets;
    long[] wide = new long[Math.max(offsets.length, appended + 1)];
    for (int i = 0; i < appended; i++) {
      wide[i] = firstSendNanos + offsets[i];
    }
    wideSendNanos = wide;
    sendOffsets = null;
    SendTimesPool.SHARED.give(offsets);
  }

  private void appendWide(long recordSendNanos) {
    long[] wide = wideSendNanos;
    if (appended == wide.length) {
      wide = Arrays.copyOf(wide, wide.length * 2);
      wideSendNanos = wide;
    }
    wide[appended++] = recordSendNanos;
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

  /** A record kept as a tail record: its index in the batch and its S. */
  void addTail(int index, long sendNanos) {
    if (tailIndices == null) {
      tailIndices = new int[4];
      tailSendNanos = new long[4];
    } else if (tailCount == tailIndices.length) {
      tailIndices = Arrays.copyOf(tailIndices, tailCount * 2);
      tailSendNanos = Arrays.copyOf(tailSendNanos, tailCount * 2);
    }
    tailIndices[tailCount] = index;
    tailSendNanos[tailCount] = sendNanos;
    tailCount++;
  }

  /** After their spans are exported: the batch holds no tail record any more. */
  void clearTail() {
    tailIndices = null;
    tailSendNanos = null;
    tailCount = 0;
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
    int[] offsets = sendOffsets;
    if (offsets != null) {
      sendOffsets = null;
      SendTimesPool.SHARED.give(offsets);
    }
    wideSendNanos = null;
    appended = 0;
  }

  void drained(long nowNanos) {
    if (drains == 0) {
      firstDrainNanos = nowNanos;
    }
    lastDrainNanos = nowNanos;
    drains++;
  }
}

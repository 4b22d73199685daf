package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.model.Segment;

/**
 * One breakdown of a window's p99 tail, with the evidence its spans carried: what the diagnosis
 * reads. Durations in nanoseconds, -1 where unknown.
 *
 * @param drainEpochNanos {@code D} on the producer's clock, epoch nanoseconds: when to look up the
 *     leader's request timings
 * @param e2eNanos end-to-end latency, {@code P - S}
 * @param segmentNanos per {@link Segment} ordinal
 * @param lagNanos the part of catch-up before the consumer asked, {@code max(0, F - H)}
 * @param bufferedNanos the part of catch-up in the client's buffer, {@code P - R}
 * @param leaderNodeId the partition leader the record was produced to, or -1
 * @param commitFollowerId the follower whose fetch committed the record, or -1
 * @param requestQueueNanos the record's own produce request's time in the leader's request queue,
 *     from the leader's broker probe, or -1
 * @param requestLocalNanos that request's time from the queue to the append, or -1
 * @param producer the producer's settings and the record's batch
 * @param consumer the consumer's settings
 */
public record TailRecord(
    long drainEpochNanos,
    long e2eNanos,
    long[] segmentNanos,
    long lagNanos,
    long bufferedNanos,
    int leaderNodeId,
    int commitFollowerId,
    long requestQueueNanos,
    long requestLocalNanos,
    ProducerEvidence producer,
    ConsumerEvidence consumer) {

  /** Whether the leader's probe timed the record's own produce request (both times known). */
  public boolean hasRequestTimes() {
    return requestQueueNanos >= 0 && requestLocalNanos >= 0;
  }

  /** The segment's nanoseconds, or -1 when unknown. */
  public long nanos(Segment segment) {
    return segmentNanos[segment.ordinal()];
  }
}

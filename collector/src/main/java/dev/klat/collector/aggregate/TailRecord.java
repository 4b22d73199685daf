package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Capture;
import dev.klat.model.Segment;

/**
 * One breakdown of a window's tail (a tail record, or a sampled one of the sampled p99 tail), with
 * the evidence its spans carried: what the diagnosis reads. Durations in nanoseconds, -1 where
 * unknown: a tail record may be partial (section 8 of the latency model).
 *
 * @param drainEpochNanos {@code D} on the producer's clock, epoch nanoseconds: when to look up the
 *     leader's request timings; -1 when unknown (a record flagged by its consumer alone)
 * @param e2eNanos end-to-end latency, {@code P - S}, or -1 when unknown (a record flagged by its
 *     producer alone, or by its consumer on a {@code LogAppendTime} topic)
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
 * @param capture how the record was captured
 * @param publishAndCommitNanos {@code H - D}, or -1
 * @param produceAndPublishNanos {@code L - S}, or -1
 * @param transactionWaitNanos the transaction part of commit, {@code V - H} (section 9 of the
 *     latency model), 0 without a transaction or for a {@code read_uncommitted} group
 * @param catchUpAndFetchNanos {@code P - H} ({@code P - V}) where {@code F} and {@code R} are
 *     unknown: a consumer seen through an OpenTelemetry instrumentation (section 10 of the latency
 *     model); -1 otherwise
 * @param appendEpochNanos {@code L} on the producer's timeline, epoch nanoseconds, or -1: when to
 *     look up the leader's request timings for a record without {@code D}
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
    ConsumerEvidence consumer,
    Capture capture,
    long publishAndCommitNanos,
    long produceAndPublishNanos,
    long transactionWaitNanos,
    long catchUpAndFetchNanos,
    long appendEpochNanos,
    ShareRecord share) {

  /** A consumer group's record (no share group's deliveries). */
  public TailRecord(
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
      ConsumerEvidence consumer,
      Capture capture,
      long publishAndCommitNanos,
      long produceAndPublishNanos,
      long transactionWaitNanos,
      long catchUpAndFetchNanos,
      long appendEpochNanos) {
    this(
        drainEpochNanos,
        e2eNanos,
        segmentNanos,
        lagNanos,
        bufferedNanos,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producer,
        consumer,
        capture,
        publishAndCommitNanos,
        produceAndPublishNanos,
        transactionWaitNanos,
        catchUpAndFetchNanos,
        appendEpochNanos,
        null);
  }

  /**
   * The time a share group's redelivered record spent in failed deliveries (section 11 of the
   * latency model): its redelivery part when known, else at most its wait before the counted fetch
   * ({@code F(n) - H}, which holds it); 0 for any other record.
   */
  public long redeliveryWaitNanos() {
    if (share == null || share.deliveryCount() <= 1) {
      return 0;
    }
    return share.redeliveryKnown()
        ? share.redeliveryNanos()
        : Math.max(0, segmentNanos[Segment.CATCH_UP.ordinal()] - Math.max(0, bufferedNanos));
  }

  /** Whether the record knows every segment it is asked for. */
  public boolean knows(Segment... segments) {
    for (Segment s : segments) {
      if (segmentNanos[s.ordinal()] < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The record's latency as the diagnosis weighs it: end to end, or for a partial record that lacks
   * it, the part it covers (its known segments, and a combined one where its parts are unknown).
   */
  public long latencyNanos() {
    if (e2eNanos >= 0) {
      return e2eNanos;
    }
    long sum = 0;
    for (long v : segmentNanos) {
      sum += Math.max(0, v);
    }
    boolean produce = knows(Segment.PRODUCE);
    boolean publish = knows(Segment.PUBLISH);
    if (!produce && !publish) {
      sum += Math.max(0, produceAndPublishNanos);
    } else if (!publish && !knows(Segment.COMMIT)) {
      sum += Math.max(0, publishAndCommitNanos);
    }
    if (!knows(Segment.CATCH_UP) && !knows(Segment.FETCH)) {
      sum += Math.max(0, catchUpAndFetchNanos);
    }
    return sum;
  }

  /**
   * Whether the record knows produce and publish only together ({@code L - S}): its producer was
   * seen through an OpenTelemetry instrumentation (section 10 of the latency model), or not at all.
   */
  public boolean knowsProduceAndPublishOnly() {
    return produceAndPublishNanos >= 0 && !knows(Segment.PRODUCE) && !knows(Segment.PUBLISH);
  }

  /**
   * Whether the record knows catch-up and fetch only together ({@code P - H}): its consumer was
   * seen through an OpenTelemetry instrumentation (section 10 of the latency model).
   */
  public boolean knowsCatchUpAndFetchOnly() {
    return catchUpAndFetchNanos >= 0 && !knows(Segment.CATCH_UP) && !knows(Segment.FETCH);
  }

  /** Whether the end-to-end latency is known. */
  public boolean isEndToEndKnown() {
    return e2eNanos >= 0;
  }

  /** Whether the leader's probe timed the record's own produce request (both times known). */
  public boolean hasRequestTimes() {
    return requestQueueNanos >= 0 && requestLocalNanos >= 0;
  }

  /** The segment's nanoseconds, or -1 when unknown. */
  public long nanos(Segment segment) {
    return segmentNanos[segment.ordinal()];
  }
}

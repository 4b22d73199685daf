package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.Segment;
import java.util.Set;

/**
 * One computed breakdown with the context it was computed in: the record, the group, the trace and
 * the clock offsets that placed the consumer's and the broker's instants on the producer's
 * timeline. Instants of {@link #breakdown()} are on the producer's clock.
 *
 * <p>A tail record seen by one side only (section 8 of the latency model) has a one-sided
 * breakdown, {@link Capture#TAIL}: producer-only ({@code group} null, {@code consumerSpanId} 0,
 * consumer evidence {@link ConsumerEvidence#UNKNOWN}, no consumer instants, {@code e2eFlagged}
 * false) or consumer-only ({@code producerSpanId} 0, producer evidence {@link
 * ProducerEvidence#UNKNOWN}, instants on the consumer's clock, {@code S} from a {@code CreateTime}
 * timestamp when there is one). Either has {@code consumerOffset} an exact zero from its own clock
 * to itself, and {@code brokerOffset} against that clock.
 *
 * @param key the record
 * @param group the consumer group; null for a producer-only tail record
 * @param traceIdHigh the high 64 bits of the trace id
 * @param traceIdLow the low 64 bits of the trace id
 * @param producerSpanId the producer span id
 * @param consumerSpanId the consumer span id
 * @param breakdown the segments, computed by the model
 * @param consumerOffset {@code clock(consumer) - clock(producer)}, as applied
 * @param brokerOffset {@code clock(broker) - clock(producer)}, as applied; null when no broker
 *     instant was used
 * @param flagged the segments whose clock uncertainty is larger than the segment (section 5: a
 *     flagged segment is shown, not hidden)
 * @param e2eFlagged whether the clock uncertainty is larger than the end-to-end latency itself
 * @param leaderNodeId the node id of the partition leader the record was produced to, or -1 when
 *     the producer did not report it (for a consumer-only tail record: the leader whose probe had
 *     the record, or -1)
 * @param commitFollowerId the follower whose fetch moved the leader's high watermark over the
 *     record, from the leader's broker probe, or -1 when unknown or none
 * @param requestQueueNanos the time the produce request that appended the record waited in the
 *     leader's request queue, from the leader's broker probe (with its {@code L} only), or -1 when
 *     unknown
 * @param requestLocalNanos that request's time from the request queue to the append (parsing,
 *     validation, recompression, the append), from the same probe, or -1 when unknown
 * @param producerEvidence the producer's settings and the record's batch, for the diagnosis
 * @param consumerEvidence the consumer's settings, for the diagnosis
 * @param capture how the record was captured (section 8 of the latency model): {@link
 *     Capture#SAMPLED} records alone make the percentiles; {@link Capture#TAIL} ones are counted
 *     and split apart
 * @param chain the pair's place in a pipeline (section 9 of the latency model), or null for a
 *     one-sided breakdown
 * @param share for a share group (section 11 of the latency model), the record's deliveries to it
 *     and the redelivery part of catch-up; null for a consumer group
 */
public record JoinedBreakdown(
    RecordKey key,
    String group,
    long traceIdHigh,
    long traceIdLow,
    long producerSpanId,
    long consumerSpanId,
    Breakdown breakdown,
    ClockOffset consumerOffset,
    ClockOffset brokerOffset,
    Set<Segment> flagged,
    boolean e2eFlagged,
    int leaderNodeId,
    int commitFollowerId,
    long requestQueueNanos,
    long requestLocalNanos,
    ProducerEvidence producerEvidence,
    ConsumerEvidence consumerEvidence,
    Capture capture,
    ChainContext chain,
    ShareRecord share) {

  /** A consumer group's breakdown, with its place in a pipeline. */
  public JoinedBreakdown(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long producerSpanId,
      long consumerSpanId,
      Breakdown breakdown,
      ClockOffset consumerOffset,
      ClockOffset brokerOffset,
      Set<Segment> flagged,
      boolean e2eFlagged,
      int leaderNodeId,
      int commitFollowerId,
      long requestQueueNanos,
      long requestLocalNanos,
      ProducerEvidence producerEvidence,
      ConsumerEvidence consumerEvidence,
      Capture capture,
      ChainContext chain) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        producerSpanId,
        consumerSpanId,
        breakdown,
        consumerOffset,
        brokerOffset,
        flagged,
        e2eFlagged,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producerEvidence,
        consumerEvidence,
        capture,
        chain,
        null);
  }

  /**
   * The same record with a share group's deliveries of it (section 11) and the breakdown they give
   * (recomputed with the first delivery's acquisition for a redelivered record).
   */
  public JoinedBreakdown withShare(ShareRecord record, Breakdown redelivered) {
    return new JoinedBreakdown(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        producerSpanId,
        consumerSpanId,
        redelivered,
        consumerOffset,
        brokerOffset,
        flagged,
        e2eFlagged,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producerEvidence,
        consumerEvidence,
        capture,
        chain,
        record);
  }

  /** A breakdown without its place in a pipeline (a one-sided tail record's). */
  public JoinedBreakdown(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long producerSpanId,
      long consumerSpanId,
      Breakdown breakdown,
      ClockOffset consumerOffset,
      ClockOffset brokerOffset,
      Set<Segment> flagged,
      boolean e2eFlagged,
      int leaderNodeId,
      int commitFollowerId,
      long requestQueueNanos,
      long requestLocalNanos,
      ProducerEvidence producerEvidence,
      ConsumerEvidence consumerEvidence,
      Capture capture) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        producerSpanId,
        consumerSpanId,
        breakdown,
        consumerOffset,
        brokerOffset,
        flagged,
        e2eFlagged,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producerEvidence,
        consumerEvidence,
        capture,
        null);
  }

  /** A breakdown of a sampled record. */
  public JoinedBreakdown(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long producerSpanId,
      long consumerSpanId,
      Breakdown breakdown,
      ClockOffset consumerOffset,
      ClockOffset brokerOffset,
      Set<Segment> flagged,
      boolean e2eFlagged,
      int leaderNodeId,
      int commitFollowerId,
      long requestQueueNanos,
      long requestLocalNanos,
      ProducerEvidence producerEvidence,
      ConsumerEvidence consumerEvidence) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        producerSpanId,
        consumerSpanId,
        breakdown,
        consumerOffset,
        brokerOffset,
        flagged,
        e2eFlagged,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producerEvidence,
        consumerEvidence,
        Capture.SAMPLED);
  }

  /** The trace id as 32 lowercase hex digits, as W3C Trace Context and exemplars write it. */
  public String traceIdHex() {
    return traceIdHex(traceIdHigh, traceIdLow);
  }

  /** A trace id's two halves as 32 lowercase hex digits. */
  public static String traceIdHex(long high, long low) {
    char[] out = new char[32];
    hex(high, out, 0);
    hex(low, out, 16);
    return new String(out);
  }

  // String.format parses its pattern with a regex on every call; this runs once per breakdown.
  static void hex(long value, char[] out, int at) {
    for (int i = 15; i >= 0; i--) {
      out[at + i] = Character.forDigit((int) (value & 0xf), 16);
      value >>>= 4;
    }
  }

  /**
   * The transaction part of commit, {@code V - H} (section 9 of the latency model): 0 for a record
   * without a transaction or a {@code read_uncommitted} group.
   */
  public long transactionWaitNanos() {
    return breakdown.transactionWaitNanos();
  }

  /** How {@code V} was obtained; {@code UNKNOWN} when the breakdown has none. */
  public dev.klat.model.EstimationMethod visibleMethod() {
    return breakdown.visibleMethod();
  }

  /** Whether the trace id is valid (not all zero). */
  public boolean hasTraceId() {
    return traceIdHigh != 0 || traceIdLow != 0;
  }
}

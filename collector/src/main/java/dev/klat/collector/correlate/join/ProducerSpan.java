package dev.klat.collector.correlate.join;

import dev.klat.model.Capture;

/**
 * What the join needs from one producer span: the record, its trace context and the producer's
 * instants, on the producer host's clock (epoch nanoseconds).
 *
 * @param key the record
 * @param traceIdHigh the high 64 bits of the trace id, 0 with {@code traceIdLow} when absent
 * @param traceIdLow the low 64 bits of the trace id
 * @param spanId the producer span id
 * @param instanceId the producer agent's instance id, naming its clock domain; 0 when unknown
 * @param sendNanos {@code S}
 * @param drainNanos {@code D}
 * @param ackNanos {@code A}, or {@link Long#MIN_VALUE} when unknown
 * @param logAppendTimeMs the record timestamp when the topic uses {@code LogAppendTime} (that is
 *     {@code L} on the leader's clock, in milliseconds), or -1
 * @param leaderNodeId the node id of the partition leader, or -1 when unknown
 * @param clientId the producer's client id, or ""
 * @param evidence the producer's settings ({@code acks} among them) and the record's batch
 * @param capture how the span's record was captured: {@link Capture#TAIL} for a tail span (section
 *     8 of the latency model), whose trace id is derived from the record when it was not sampled
 * @param tailThresholdNanos on a tail span, the {@code A - S} threshold the record was above, or -1
 * @param transaction the record's transaction (section 9), {@link ProducerTransaction#NONE} outside
 *     one
 * @param parentSpanId the parent span id (a linked output's input consumer span, or the upstream
 *     producer span a header-forwarding application copied), or 0
 * @param links the consumed records this record was produced from (section 9 of the latency model),
 *     or null when the span names none
 */
public record ProducerSpan(
    RecordKey key,
    long traceIdHigh,
    long traceIdLow,
    long spanId,
    long instanceId,
    long sendNanos,
    long drainNanos,
    long ackNanos,
    long logAppendTimeMs,
    int leaderNodeId,
    String clientId,
    ProducerEvidence evidence,
    Capture capture,
    long tailThresholdNanos,
    ProducerTransaction transaction,
    long parentSpanId,
    RecordLinks links)
    implements JoinInput {

  public ProducerSpan {
    transaction = transaction == null ? ProducerTransaction.NONE : transaction;
  }

  /** A span outside a transaction (or of an agent that does not say), with its parent and links. */
  public ProducerSpan(
      RecordKey key,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long instanceId,
      long sendNanos,
      long drainNanos,
      long ackNanos,
      long logAppendTimeMs,
      int leaderNodeId,
      String clientId,
      ProducerEvidence evidence,
      Capture capture,
      long tailThresholdNanos,
      long parentSpanId,
      RecordLinks links) {
    this(
        key,
        traceIdHigh,
        traceIdLow,
        spanId,
        instanceId,
        sendNanos,
        drainNanos,
        ackNanos,
        logAppendTimeMs,
        leaderNodeId,
        clientId,
        evidence,
        capture,
        tailThresholdNanos,
        ProducerTransaction.NONE,
        parentSpanId,
        links);
  }

  /** A span with its transaction, without a parent or links. */
  public ProducerSpan(
      RecordKey key,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long instanceId,
      long sendNanos,
      long drainNanos,
      long ackNanos,
      long logAppendTimeMs,
      int leaderNodeId,
      String clientId,
      ProducerEvidence evidence,
      Capture capture,
      long tailThresholdNanos,
      ProducerTransaction transaction) {
    this(
        key,
        traceIdHigh,
        traceIdLow,
        spanId,
        instanceId,
        sendNanos,
        drainNanos,
        ackNanos,
        logAppendTimeMs,
        leaderNodeId,
        clientId,
        evidence,
        capture,
        tailThresholdNanos,
        transaction,
        0,
        null);
  }

  /** A span outside a transaction, without a parent or links. */
  public ProducerSpan(
      RecordKey key,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long instanceId,
      long sendNanos,
      long drainNanos,
      long ackNanos,
      long logAppendTimeMs,
      int leaderNodeId,
      String clientId,
      ProducerEvidence evidence,
      Capture capture,
      long tailThresholdNanos) {
    this(
        key,
        traceIdHigh,
        traceIdLow,
        spanId,
        instanceId,
        sendNanos,
        drainNanos,
        ackNanos,
        logAppendTimeMs,
        leaderNodeId,
        clientId,
        evidence,
        capture,
        tailThresholdNanos,
        ProducerTransaction.NONE,
        0,
        null);
  }

  /** The same span with its transaction (section 9). */
  public ProducerSpan withTransaction(ProducerTransaction txn) {
    return new ProducerSpan(
        key,
        traceIdHigh,
        traceIdLow,
        spanId,
        instanceId,
        sendNanos,
        drainNanos,
        ackNanos,
        logAppendTimeMs,
        leaderNodeId,
        clientId,
        evidence,
        capture,
        tailThresholdNanos,
        txn,
        parentSpanId,
        links);
  }

  /** A sampled record's span. */
  public ProducerSpan(
      RecordKey key,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long instanceId,
      long sendNanos,
      long drainNanos,
      long ackNanos,
      long logAppendTimeMs,
      int leaderNodeId,
      String clientId,
      ProducerEvidence evidence) {
    this(
        key,
        traceIdHigh,
        traceIdLow,
        spanId,
        instanceId,
        sendNanos,
        drainNanos,
        ackNanos,
        logAppendTimeMs,
        leaderNodeId,
        clientId,
        evidence,
        Capture.SAMPLED,
        -1);
  }

  /** Whether this is a tail span. */
  public boolean tail() {
    return capture == Capture.TAIL;
  }

  /**
   * Whether this span was read from an OpenTelemetry instrumentation's span (section 10 of the
   * latency model), not from klat's agent: its instance id is then the client host's id.
   */
  public boolean instrumented() {
    return capture == Capture.OPENTELEMETRY;
  }

  /**
   * Whether the span, left without a partner at its window's end, still gives a one-sided
   * breakdown: a tail span (section 8) or an instrumentation's (section 10); a sampled one does
   * not.
   */
  boolean reportedAlone() {
    return capture != Capture.SAMPLED;
  }

  /**
   * Whether the producer used {@code acks=all}: then its acknowledgement follows the record's
   * commit, which bounds {@code H} without broker data.
   */
  public boolean acksAll() {
    return evidence.acksAll();
  }

  public boolean hasAck() {
    return ackNanos != Long.MIN_VALUE;
  }
}

package dev.klat.collector.correlate.join;

import dev.klat.model.Capture;

/**
 * What the join needs from one consumer span: the record, the consumer group, the trace context and
 * the consumer's instants, on the consumer host's clock (epoch nanoseconds).
 *
 * @param key the record
 * @param group the consumer group
 * @param traceIdHigh the high 64 bits of the trace id, 0 with {@code traceIdLow} when absent
 * @param traceIdLow the low 64 bits of the trace id
 * @param spanId the consumer span id
 * @param parentSpanId the parent span id (the producer span, from the {@code traceparent} header),
 *     or 0
 * @param instanceId the consumer agent's instance id, naming its clock domain; 0 when unknown
 * @param fetchRequestNanos {@code F}
 * @param fetchResponseNanos {@code R}
 * @param pollNanos {@code P}
 * @param logAppendTimeMs the record timestamp when the topic uses {@code LogAppendTime}, or -1
 * @param clientId the consumer's client id, or ""
 * @param evidence the consumer's fetch and poll settings and the application's pace
 * @param responseReadPromptly whether {@code R} is when the response arrived (the client was
 *     waiting for it), false when unknown
 * @param uncommittedNanos when the consumer received its previous response for the partition, which
 *     found the record not yet committed (so {@code H} is after the leader built it); 0 when
 *     unknown
 * @param createTimeMs the record timestamp when the topic uses {@code CreateTime} ({@code S} on the
 *     producer's clock, in milliseconds, unless the application set it), or -1
 * @param capture how the span's record was captured: {@link Capture#TAIL} for a tail span (section
 *     8 of the latency model)
 * @param tailThresholdNanos on a tail span, the {@code P - timestamp} threshold the record was
 *     above, or -1
 * @param readCommitted whether the consumer's {@code isolation.level} is {@code read_committed}
 *     ({@code klat.consumer.isolation_level}; false for {@code read_uncommitted} and for an agent
 *     that does not say): it reads a transactional record at {@code V}, not {@code H} (section 9)
 * @param share on a share consumer's span (section 11 of the latency model), this delivery of the
 *     record to its share group; null for a consumer group's span
 */
public record ConsumerSpan(
    RecordKey key,
    String group,
    long traceIdHigh,
    long traceIdLow,
    long spanId,
    long parentSpanId,
    long instanceId,
    long fetchRequestNanos,
    long fetchResponseNanos,
    long pollNanos,
    long logAppendTimeMs,
    String clientId,
    ConsumerEvidence evidence,
    boolean responseReadPromptly,
    long uncommittedNanos,
    long createTimeMs,
    Capture capture,
    long tailThresholdNanos,
    boolean readCommitted,
    ShareDelivery share)
    implements JoinInput {

  /** A consumer group's span (not a share group's). */
  public ConsumerSpan(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId,
      long instanceId,
      long fetchRequestNanos,
      long fetchResponseNanos,
      long pollNanos,
      long logAppendTimeMs,
      String clientId,
      ConsumerEvidence evidence,
      boolean responseReadPromptly,
      long uncommittedNanos,
      long createTimeMs,
      Capture capture,
      long tailThresholdNanos,
      boolean readCommitted) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        instanceId,
        fetchRequestNanos,
        fetchResponseNanos,
        pollNanos,
        logAppendTimeMs,
        clientId,
        evidence,
        responseReadPromptly,
        uncommittedNanos,
        createTimeMs,
        capture,
        tailThresholdNanos,
        readCommitted,
        null);
  }

  /** A span of a consumer that reads uncommitted (or does not say). */
  public ConsumerSpan(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId,
      long instanceId,
      long fetchRequestNanos,
      long fetchResponseNanos,
      long pollNanos,
      long logAppendTimeMs,
      String clientId,
      ConsumerEvidence evidence,
      boolean responseReadPromptly,
      long uncommittedNanos,
      long createTimeMs,
      Capture capture,
      long tailThresholdNanos) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        instanceId,
        fetchRequestNanos,
        fetchResponseNanos,
        pollNanos,
        logAppendTimeMs,
        clientId,
        evidence,
        responseReadPromptly,
        uncommittedNanos,
        createTimeMs,
        capture,
        tailThresholdNanos,
        false);
  }

  /** The same span with its consumer's isolation level (section 9). */
  public ConsumerSpan withReadCommitted(boolean committed) {
    return new ConsumerSpan(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        instanceId,
        fetchRequestNanos,
        fetchResponseNanos,
        pollNanos,
        logAppendTimeMs,
        clientId,
        evidence,
        responseReadPromptly,
        uncommittedNanos,
        createTimeMs,
        capture,
        tailThresholdNanos,
        committed,
        share);
  }

  /** The same span as one delivery of its record to a share group (section 11). */
  public ConsumerSpan withShare(ShareDelivery delivery) {
    return new ConsumerSpan(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        instanceId,
        fetchRequestNanos,
        fetchResponseNanos,
        pollNanos,
        logAppendTimeMs,
        clientId,
        evidence,
        responseReadPromptly,
        uncommittedNanos,
        createTimeMs,
        capture,
        tailThresholdNanos,
        readCommitted,
        delivery);
  }

  /** Whether this span is one delivery of its record to a share group (section 11). */
  public boolean shared() {
    return share != null;
  }

  /** A sampled record's span, whose record timestamp the join does not need. */
  public ConsumerSpan(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId,
      long instanceId,
      long fetchRequestNanos,
      long fetchResponseNanos,
      long pollNanos,
      long logAppendTimeMs,
      String clientId,
      ConsumerEvidence evidence,
      boolean responseReadPromptly,
      long uncommittedNanos) {
    this(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        instanceId,
        fetchRequestNanos,
        fetchResponseNanos,
        pollNanos,
        logAppendTimeMs,
        clientId,
        evidence,
        responseReadPromptly,
        uncommittedNanos,
        -1,
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
}

package dev.klat.collector.correlate.join;

/**
 * A record span of an OpenTelemetry Kafka instrumentation (section 10 of the latency model), as the
 * receiver read it: the neutral input of the join for clients without klat's agent. Every field was
 * validated where it entered.
 *
 * @param role whether the span is the producer's or the consumer's
 * @param key the record; null for a producer span without partition or offset (then {@code topic}
 *     names the topic and the join places it through a consumer span that names it)
 * @param topic the topic, always set
 * @param group the consumer group ({@code service:<service.name>} for an instrumentation that
 *     writes none); null for a producer span
 * @param clientId the client id, or ""
 * @param traceIdHigh the high 64 bits of the span's trace id
 * @param traceIdLow the low 64 bits of the span's trace id
 * @param spanId the span id
 * @param parentSpanId the parent span id, or 0
 * @param startNanos {@code S} (producer) or {@code P} (consumer): the span's start, epoch
 *     nanoseconds on the client's clock
 * @param ackNanos {@code A}: the span's end where the instrumentation ends it at the
 *     acknowledgement, else {@link Long#MIN_VALUE}
 * @param producers for a consumer span, the producer contexts it names (its parent and its links);
 *     {@link ProducerRefs#NONE} otherwise
 * @param hostId a non-zero hash of the client host's identity, naming its clock domain
 * @param hostName the client host as the page shows it
 * @param instrumentation the instrumentation's scope name
 */
public record OtelRecordSpan(
    Role role,
    RecordKey key,
    String topic,
    String group,
    String clientId,
    long traceIdHigh,
    long traceIdLow,
    long spanId,
    long parentSpanId,
    long startNanos,
    long ackNanos,
    ProducerRefs producers,
    long hostId,
    String hostName,
    String instrumentation)
    implements JoinInput {

  /** Which side of the record the span is. */
  public enum Role {
    PRODUCER,
    CONSUMER
  }

  public OtelRecordSpan {
    producers = producers == null ? ProducerRefs.NONE : producers;
  }

  /** Whether the span's end is {@code A}. */
  public boolean hasAck() {
    return ackNanos != Long.MIN_VALUE;
  }
}

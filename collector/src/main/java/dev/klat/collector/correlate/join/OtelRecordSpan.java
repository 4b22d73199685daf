package dev.klat.collector.correlate.join;

import dev.klat.collector.receive.WireNames;

/**
 * One record's span from an OpenTelemetry Kafka instrumentation, on a client that runs no klat
 * agent (section 10 of the latency model): the join's neutral input, whatever instrumentation and
 * semantic-conventions version wrote it. The receiver ({@code receive.OtelSpanReader}) makes it;
 * the constructor checks what the join relies on, so that no value from the wire reaches it
 * unchecked.
 *
 * @param role a producer's send or a consumer's hand-over of one record
 * @param key topic, partition and offset; null for a producer span that names no partition or
 *     offset (the join places it through the consumer spans that name it); never null for a
 *     consumer span
 * @param topic the topic, always set, a name Kafka allows ({@link WireNames#topicProblem}); the
 *     key's topic when there is a key
 * @param group a consumer span's group: its consumer-group attribute, else {@code "service:" +
 *     service.name} (else {@code "service:unknown_service"}); null for a producer span
 * @param clientId the client id, {@code ""} when absent
 * @param traceIdHigh the span's trace id, high 64 bits
 * @param traceIdLow the span's trace id, low 64 bits
 * @param spanId the span's id, not 0
 * @param parentSpanId the span's parent, 0 for a root
 * @param startNanos {@code S} (producer) or {@code P} (consumer), epoch nanoseconds on the client's
 *     clock, positive
 * @param ackNanos {@code A}: the span's end where the instrumentation ends it at the
 *     acknowledgement, not before {@code startNanos}; else {@link Long#MIN_VALUE}; always {@link
 *     Long#MIN_VALUE} for a consumer span
 * @param producers a consumer span's producer contexts (its parent and its span links, at most
 *     {@link ProducerRefs#MAX}); {@link ProducerRefs#EMPTY} for a producer span
 * @param hostId the client host's identity (section 10), hashed; never 0
 * @param hostName the client host as a page shows it, at most {@link WireNames#MAX_NAME_CHARS}
 * @param instrumentation the instrumentation scope's name ({@code
 *     "io.opentelemetry.kafka-clients-0.11"}, {@code "@opentelemetry/instrumentation-kafkajs"}),
 *     {@code ""} when the span had none, at most {@link WireNames#MAX_NAME_CHARS}
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

  /** Which side of a record the span reports. */
  public enum Role {
    /** The application's send of the record: {@code S}, and {@code A} where the span ends there. */
    PRODUCER,
    /** The record handed to the application: {@code P}. */
    CONSUMER
  }

  /**
   * Checks the fields.
   *
   * @throws IllegalArgumentException naming the first field that is out of bounds
   */
  public OtelRecordSpan {
    if (role == null) {
      throw new IllegalArgumentException("role is null");
    }
    if (topic == null || WireNames.topicProblem(topic) != null) {
      throw new IllegalArgumentException(
          "topic: " + (topic == null ? "null" : WireNames.topicProblem(topic)));
    }
    if (key != null && (!key.topic().equals(topic) || key.partition() < 0 || key.offset() < 0)) {
      throw new IllegalArgumentException("key " + key + " does not name a record of " + topic);
    }
    if (role == Role.CONSUMER && key == null) {
      throw new IllegalArgumentException("a consumer span without its record");
    }
    if (role == Role.CONSUMER ? group == null || group.isEmpty() : group != null) {
      throw new IllegalArgumentException(
          role == Role.CONSUMER ? "a consumer span without a group" : "a producer span's group");
    }
    requireName("group", group == null ? "" : group);
    requireName("client id", clientId);
    requireName("host name", hostName);
    requireName("instrumentation", instrumentation);
    if (spanId == 0) {
      throw new IllegalArgumentException("span id 0");
    }
    if (startNanos <= 0) {
      throw new IllegalArgumentException("start " + startNanos + " is not an epoch time");
    }
    if (ackNanos != Long.MIN_VALUE && (role == Role.CONSUMER || ackNanos < startNanos)) {
      throw new IllegalArgumentException(
          role == Role.CONSUMER
              ? "a consumer span's acknowledgement"
              : "acknowledgement " + ackNanos + " before the send " + startNanos);
    }
    if (producers == null || (role == Role.PRODUCER && !producers.isEmpty())) {
      throw new IllegalArgumentException(
          producers == null ? "producer contexts are null" : "a producer span's producers");
    }
    if (hostId == 0) {
      throw new IllegalArgumentException("host id 0");
    }
  }

  /** Whether the span's end is the acknowledgement {@code A}. */
  public boolean hasAck() {
    return ackNanos != Long.MIN_VALUE;
  }

  private static void requireName(String what, String value) {
    if (value == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    String problem = WireNames.nameProblem(what, value);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }
}

package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.ms;

/**
 * Hand-built record spans of OpenTelemetry instrumentations (section 10 of the latency model),
 * shaped as the receiver reads them; times in milliseconds after {@link Spans#T0}.
 */
final class OtelSpans {
  static final long PRODUCER_HOST = 0x3333L;
  static final long CONSUMER_HOST = 0x4444L;
  static final String JAVA_AGENT = "io.opentelemetry.kafka-clients-2.6";
  static final String KAFKAJS = "@opentelemetry/instrumentation-kafkajs";

  private OtelSpans() {}

  /**
   * A producer span: {@code key} null for one without an offset (kafkajs's), {@code ackMs} NaN for
   * one whose end is not the ack.
   */
  static OtelRecordSpan producer(
      RecordKey key, long traceIdHigh, long traceIdLow, long spanId, double sendMs, double ackMs) {
    return new OtelRecordSpan(
        OtelRecordSpan.Role.PRODUCER,
        key,
        "orders",
        null,
        "",
        traceIdHigh,
        traceIdLow,
        spanId,
        0,
        ms(sendMs),
        Double.isNaN(ackMs) ? Long.MIN_VALUE : ms(ackMs),
        ProducerRefs.EMPTY,
        PRODUCER_HOST,
        "producer-host",
        key == null ? KAFKAJS : JAVA_AGENT);
  }

  /** A consumer span of {@code key} and {@code group}, naming {@code producers}. */
  static OtelRecordSpan consumer(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId,
      double pollMs,
      ProducerRefs producers) {
    return consumer(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        pollMs,
        producers,
        CONSUMER_HOST);
  }

  static OtelRecordSpan consumer(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId,
      double pollMs,
      ProducerRefs producers,
      long host) {
    return new OtelRecordSpan(
        OtelRecordSpan.Role.CONSUMER,
        key,
        key.topic(),
        group,
        "",
        traceIdHigh,
        traceIdLow,
        spanId,
        parentSpanId,
        ms(pollMs),
        Long.MIN_VALUE,
        producers,
        host,
        "consumer-host",
        KAFKAJS);
  }
}

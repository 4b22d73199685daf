package dev.klat.agent.producer;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Follows one sampled record from {@code send()} to its acknowledgement, to export its span: the
 * agent's callback, wrapped around the application's. Unsampled records have none.
 *
 * <p>The application's callback runs exactly as it would without the agent: after ours, on the same
 * thread, with the same arguments, and an exception it throws propagates the same way.
 */
final class RecordTracker implements Callback {

  final ProducerState producer;

  /** The record's topic, for the span, even when its histograms are a shared overflow series. */
  final String topic;

  final Callback delegate;
  final long sendNanos;

  /** Non-null only for sampled records. */
  SampledRecord sampled;

  /** When a sampled record was appended to its batch (agent clock), or MIN_VALUE before. */
  long appendedNanos = Long.MIN_VALUE;

  /** The record to send; handed back to the advice once and then dropped. */
  private ProducerRecord<?, ?> record;

  RecordTracker(
      ProducerState producer, Callback delegate, long sendNanos, ProducerRecord<?, ?> record) {
    this.producer = producer;
    this.topic = record.topic();
    this.delegate = delegate;
    this.sendNanos = sendNanos;
    this.record = record;
  }

  /** Returns the record to send (possibly a stamped copy) and forgets it, so acks do not pin it. */
  @SuppressWarnings("rawtypes")
  ProducerRecord takeRecord() {
    ProducerRecord<?, ?> taken = record;
    record = null;
    return taken;
  }

  void replaceRecord(ProducerRecord<?, ?> stamped) {
    record = stamped;
  }

  @Override
  public void onCompletion(RecordMetadata metadata, Exception exception) {
    ProducerHooks.onAcknowledged(this, metadata, exception);
    if (delegate != null) {
      delegate.onCompletion(metadata, exception);
    }
  }

  /** Trace identity of a sampled record, chosen at send time. */
  static final class SampledRecord {
    final long traceIdHigh;
    final long traceIdLow;
    final long spanId;
    final long parentSpanId;
    final boolean headersStamped;

    SampledRecord(
        long traceIdHigh, long traceIdLow, long spanId, long parentSpanId, boolean headersStamped) {
      this.traceIdHigh = traceIdHigh;
      this.traceIdLow = traceIdLow;
      this.spanId = spanId;
      this.parentSpanId = parentSpanId;
      this.headersStamped = headersStamped;
    }
  }
}

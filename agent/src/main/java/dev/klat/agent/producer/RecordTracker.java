package dev.klat.agent.producer;

import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.ThreadLinks;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Follows one sampled record from {@code send()} to its acknowledgement, to export its span.
 * Unsampled records have none.
 *
 * <p>Not a callback around the application's: the batch's completion exports the span (see {@link
 * ProducerHooks#onCompletionEnd}). A wrapper would show the JIT a second receiver type where Kafka
 * calls the application's callback, and the {@code RecordMetadata} that each acknowledgement builds
 * would then escape and be allocated for every record, sampled or not.
 */
final class RecordTracker {

  final ProducerState producer;

  /** The record's topic, for the span, even when its histograms are a shared overflow series. */
  final String topic;

  final long sendNanos;

  // The record's trace context: its own span id, and its trace and parent from upstream when the
  // record carried a sampled traceparent. Here rather than in an object of their own: one
  // allocation less per sampled record.
  final long traceIdHigh;
  final long traceIdLow;
  final long spanId;
  final long parentSpanId;

  /**
   * The consumed records this record is linked to (section 9 of the latency model), the first its
   * parent; null when none. {@link #linkCount} may exceed the array: inputs past {@link
   * ThreadLinks#MAX_LINKS} are counted, not kept.
   */
  InputLink[] links;

  int linkCount;

  /** Whether klat's headers were written onto the record sent. */
  boolean headersStamped;

  /** When a sampled record was appended to its batch (agent clock), or MIN_VALUE before. */
  long appendedNanos = Long.MIN_VALUE;

  /** The part of the append wait Kafka spent waiting for metadata, whole milliseconds. */
  long metadataWaitMs;

  /** The future {@code send()} returns for the record, once appended; done when its batch is. */
  Future<?> future;

  /** The record's position in its batch, as far as the batch's send times count; -1 before. */
  int indexInBatch = -1;

  /** The record to send; handed back to the advice once and then dropped. */
  private ProducerRecord<?, ?> record;

  RecordTracker(
      ProducerState producer,
      long sendNanos,
      ProducerRecord<?, ?> record,
      long traceIdHigh,
      long traceIdLow,
      long spanId,
      long parentSpanId) {
    this.producer = producer;
    this.topic = record.topic();
    this.sendNanos = sendNanos;
    this.record = record;
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.spanId = spanId;
    this.parentSpanId = parentSpanId;
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

  /** Trace identity of a sampled record, chosen at send time. */
}

package dev.klat.agent.producer;

import dev.klat.model.HeaderNames;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes the trace context and the klat timing header onto a sampled record.
 *
 * <p>Each header is removed before it is added, so a record the application sends again carries
 * each header once. Kafka makes a record's headers read-only once it has been sent; such a record
 * is copied, and the copy stamped, leaving the application's object untouched.
 */
final class HeaderStamper {

  private HeaderStamper() {}

  /** Returns the record to send: {@code record} itself, or a stamped copy of it. */
  static ProducerRecord<?, ?> stamp(
      ProducerRecord<?, ?> record, String traceparent, byte[] timingHeader) {
    byte[] traceparentBytes = traceparent.getBytes(StandardCharsets.US_ASCII);
    try {
      write(record.headers(), traceparentBytes, timingHeader);
      return record;
    } catch (IllegalStateException readOnly) {
      ProducerRecord<?, ?> copy = copyWithWritableHeaders(record);
      write(copy.headers(), traceparentBytes, timingHeader);
      return copy;
    }
  }

  private static void write(Headers headers, byte[] traceparent, byte[] timing) {
    headers.remove(HeaderNames.TRACEPARENT).add(HeaderNames.TRACEPARENT, traceparent);
    headers.remove(HeaderNames.TIMING).add(HeaderNames.TIMING, timing);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static ProducerRecord<?, ?> copyWithWritableHeaders(ProducerRecord<?, ?> record) {
    return new ProducerRecord(
        record.topic(),
        record.partition(),
        record.timestamp(),
        record.key(),
        record.value(),
        new RecordHeaders(record.headers().toArray()));
  }
}

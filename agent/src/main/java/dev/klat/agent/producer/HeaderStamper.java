package dev.klat.agent.producer;

import dev.klat.model.HeaderNames;
import java.lang.reflect.Field;
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

  // RecordHeaders' flag, read before writing: Kafka answers a write to read-only headers with an
  // exception whose stack trace cost most of a sampled record's send() (JMH, every record sampled).
  // Public (isReadOnly()) only from 4.x, a private field in 2.8 to 4.4.
  private static final Field READ_ONLY = readOnlyField();

  private HeaderStamper() {}

  /** Returns the record to send: {@code record} itself, or a stamped copy of it. */
  static ProducerRecord<?, ?> stamp(
      ProducerRecord<?, ?> record, byte[] traceparentBytes, byte[] timingHeader) {
    try {
      if (readOnly(record.headers())) {
        return stampedCopy(record, traceparentBytes, timingHeader);
      }
      write(record.headers(), traceparentBytes, timingHeader);
      return record;
    } catch (IllegalStateException readOnly) {
      return stampedCopy(record, traceparentBytes, timingHeader);
    }
  }

  /**
   * Returns the record to send without a klat timing header: {@code record} itself when it has none
   * (one lookup) or its headers are writable, else a copy. For an output record that is not sampled
   * but carries a timing header its application copied from the input (Kafka Streams forwards the
   * input's headers): a stale header would make the consumer take the input's {@code S} for this
   * record's (section 9 of the latency model). The application's {@code traceparent} stays.
   */
  static ProducerRecord<?, ?> withoutTiming(ProducerRecord<?, ?> record) {
    if (record.headers().lastHeader(HeaderNames.TIMING) == null) {
      return record;
    }
    try {
      if (!readOnly(record.headers())) {
        record.headers().remove(HeaderNames.TIMING);
        return record;
      }
    } catch (IllegalStateException readOnly) {
      // Read-only after all: copied below.
    }
    ProducerRecord<?, ?> copy = copyWithWritableHeaders(record);
    copy.headers().remove(HeaderNames.TIMING);
    return copy;
  }

  private static ProducerRecord<?, ?> stampedCopy(
      ProducerRecord<?, ?> record, byte[] traceparent, byte[] timingHeader) {
    ProducerRecord<?, ?> copy = copyWithWritableHeaders(record);
    write(copy.headers(), traceparent, timingHeader);
    return copy;
  }

  static boolean readOnly(Headers headers) {
    if (READ_ONLY == null || !(headers instanceof RecordHeaders)) {
      return false;
    }
    try {
      return READ_ONLY.getBoolean(headers);
    } catch (IllegalAccessException | RuntimeException e) {
      return false;
    }
  }

  private static Field readOnlyField() {
    try {
      Field field = RecordHeaders.class.getDeclaredField("isReadOnly");
      field.setAccessible(true);
      return field.getType() == boolean.class ? field : null;
    } catch (NoSuchFieldException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  private static void write(Headers headers, byte[] traceparent, byte[] timing) {
    // remove() makes an iterator even when there is nothing to remove, the usual case: lastHeader()
    // looks without one. A read-only record throws from add() as it did from remove().
    if (headers.lastHeader(HeaderNames.TRACEPARENT) != null) {
      headers.remove(HeaderNames.TRACEPARENT);
    }
    headers.add(HeaderNames.TRACEPARENT, traceparent);
    if (headers.lastHeader(HeaderNames.TIMING) != null) {
      headers.remove(HeaderNames.TIMING);
    }
    headers.add(HeaderNames.TIMING, timing);
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

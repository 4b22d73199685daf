package dev.klat.agent.tail;

import dev.klat.agent.export.SpanRecord;
import dev.klat.model.Capture;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TailTraceIds;

/**
 * What makes a side's span a tail span (docs/latency-model.md, section 8): the trace id derived
 * from the record's {@code (topic, partition, offset)}, {@code klat.capture=tail} and the threshold
 * it was above. Everything else is the side's sampled span's shape, which the side builds.
 */
public final class TailSpans {

  private TailSpans() {}

  /**
   * Marks {@code span} as the tail span of an unsampled record.
   *
   * @param span the side's span, with its other attributes
   * @param topicHash {@link TailTraceIds#topicHash} of the record's topic, kept per topic
   * @param partition the record's partition
   * @param offset the record's offset
   * @param thresholdNanos the threshold its latency was above
   * @return {@code span}
   */
  public static SpanRecord mark(
      SpanRecord span, long topicHash, int partition, long offset, long thresholdNanos) {
    span.setTraceId(
        TailTraceIds.high(topicHash, partition, offset),
        TailTraceIds.low(topicHash, partition, offset));
    span.put(SpanAttributes.CAPTURE, Capture.TAIL.id());
    span.put(SpanAttributes.TAIL_THRESHOLD_NANOS, thresholdNanos);
    return span;
  }
}

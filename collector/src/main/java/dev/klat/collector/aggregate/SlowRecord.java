package dev.klat.collector.aggregate;

import dev.klat.model.Quality;
import dev.klat.model.Segment;
import java.util.List;

/**
 * One of the slowest recent sampled records, as the collector's page lists them.
 *
 * @param topic the topic
 * @param group the consumer group
 * @param partition the partition
 * @param offset the record's offset
 * @param e2eNanos end-to-end latency, {@code P - S}
 * @param segments the five segments in {@link Segment} order
 * @param e2eClockFlagged whether the clock uncertainty is larger than the end-to-end latency
 * @param traceIdHex the record's trace id, 32 lowercase hex digits
 */
public record SlowRecord(
    String topic,
    String group,
    int partition,
    long offset,
    long e2eNanos,
    List<Part> segments,
    boolean e2eClockFlagged,
    String traceIdHex) {

  /**
   * One segment of the record.
   *
   * @param segment the segment's id
   * @param nanos its duration, or -1 when unknown
   * @param quality how it was measured
   * @param clockFlagged whether the clock uncertainty is larger than the segment
   */
  public record Part(String segment, long nanos, Quality quality, boolean clockFlagged) {}
}

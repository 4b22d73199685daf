package dev.klat.collector.aggregate;

import dev.klat.model.Capture;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import java.util.List;

/**
 * One of the slowest recent records, sampled or tail, as the collector's page lists them.
 *
 * @param topic the topic
 * @param group the consumer group, or null for a tail record flagged by its producer alone
 * @param partition the partition
 * @param offset the record's offset
 * @param e2eNanos end-to-end latency, {@code P - S}, or -1 when unknown (a partial tail record)
 * @param segments the five segments in {@link Segment} order
 * @param combined {@code publish+commit} ({@code H - D}) and {@code produce+publish} ({@code L -
 *     S}): what a record that lacks {@code L} or {@code D} knows of the segments around it
 * @param e2eClockFlagged whether the clock uncertainty is larger than the end-to-end latency
 * @param traceIdHex the record's trace id, 32 lowercase hex digits: its own, or for an unsampled
 *     tail record the one derived from its topic, partition and offset
 * @param capture how the record was captured
 */
public record SlowRecord(
    String topic,
    String group,
    int partition,
    long offset,
    long e2eNanos,
    List<Part> segments,
    List<Part> combined,
    boolean e2eClockFlagged,
    String traceIdHex,
    Capture capture) {

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

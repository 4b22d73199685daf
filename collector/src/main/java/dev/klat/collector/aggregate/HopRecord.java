package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ChainContext;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Quality;
import java.util.List;

/**
 * One sampled breakdown of the recent ring as a pipeline's hop sees it (section 9 of the latency
 * model): the record and group, the spans and agents on both sides, what the producer span links
 * the record to, and the record's segments. Read from {@link RecentBreakdowns#hopRecords}.
 *
 * @param key the record
 * @param group the consumer group that read it
 * @param traceIdHigh the high 64 bits of the trace id
 * @param traceIdLow the low 64 bits of the trace id
 * @param producerSpanId the producer span id
 * @param consumerSpanId the consumer span id
 * @param chain the producer's links and parent, the agents, {@code S} and {@code P} on their own
 *     clocks
 * @param e2eNanos {@code P - S}
 * @param segmentNanos per {@link #SEGMENT_IDS} entry, the value, or -1 when unknown
 * @param qualities per {@link #SEGMENT_IDS} entry, the quality
 * @param joinedAtNanos when it was joined (the collector's monotonic clock)
 */
public record HopRecord(
    RecordKey key,
    String group,
    long traceIdHigh,
    long traceIdLow,
    long producerSpanId,
    long consumerSpanId,
    ChainContext chain,
    long e2eNanos,
    long[] segmentNanos,
    Quality[] qualities,
    long joinedAtNanos) {

  /**
   * The segment ids of {@link #segmentNanos}, as {@code /api/breakdown}'s {@code segments}: the
   * five segments, then {@code publish+commit} and {@code fetch-round-trip}.
   */
  public static final List<String> SEGMENT_IDS = RecentBreakdowns.sampledColumnIds();

  /** The index of {@code publish+commit} in {@link #segmentNanos}. */
  public static final int PUBLISH_AND_COMMIT = 5;

  /** The value of segment {@code index} of {@link #SEGMENT_IDS}, or -1 when unknown. */
  public long segment(int index) {
    return segmentNanos[index];
  }
}

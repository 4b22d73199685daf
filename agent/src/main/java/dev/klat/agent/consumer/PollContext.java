package dev.klat.agent.consumer;

import dev.klat.agent.export.SpanRecord;
import dev.klat.model.TimingHeader;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The record lists {@code CompletedFetch.fetchRecords} handed out during the {@code poll()} running
 * on this thread, each with the fetch it came from. {@code poll()} collects records on the calling
 * thread in every client version and protocol, so the {@code poll()} exit hook finds here exactly
 * the records it returns, without touching {@code ConsumerRecords}.
 *
 * <p>Grows once to the largest number of lists one poll returned, then allocates nothing.
 */
final class PollContext {

  private static final ThreadLocal<PollContext> CURRENT =
      new ThreadLocal<PollContext>() {
        @Override
        protected PollContext initialValue() {
          return new PollContext();
        }
      };

  private static final int INITIAL_CAPACITY = 16;

  int size;
  List<?>[] lists = new List<?>[INITIAL_CAPACITY];
  int[] counts = new int[INITIAL_CAPACITY];
  FetchStamp[] stamps = new FetchStamp[INITIAL_CAPACITY];
  TopicPartition[] partitions = new TopicPartition[INITIAL_CAPACITY];
  long[] highWatermarks = new long[INITIAL_CAPACITY];
  ConsumerTopicInstruments[] instruments = new ConsumerTopicInstruments[INITIAL_CAPACITY];

  /**
   * Where the end-to-end latency of each record starts, in list order, records without a start (no
   * valid header and no {@code CreateTime} timestamp) left out; list {@code i}'s starts end at
   * {@code e2eStartsEnd[i]}, and begin where list {@code i - 1}'s end.
   */
  long[] e2eStartEpochNanos = new long[512];

  int[] e2eStartsEnd = new int[INITIAL_CAPACITY];

  /** Spans of sampled records, waiting for P. */
  int spanCount;

  SpanRecord[] spans = new SpanRecord[INITIAL_CAPACITY];

  /** Reused for every sampled record's header on this thread. */
  final TimingHeader.Decoded decoded = new TimingHeader.Decoded();

  private PollContext() {}

  static PollContext get() {
    return CURRENT.get();
  }

  void add(List<?> records, FetchStamp stamp, TopicPartition partition, long highWatermark) {
    if (size == lists.length) {
      grow();
    }
    lists[size] = records;
    counts[size] = records.size();
    stamps[size] = stamp;
    partitions[size] = partition;
    highWatermarks[size] = highWatermark;
    size++;
  }

  void ensureRecordCapacity(int records) {
    if (records > e2eStartEpochNanos.length) {
      e2eStartEpochNanos =
          java.util.Arrays.copyOf(
              e2eStartEpochNanos, Math.max(records, 2 * e2eStartEpochNanos.length));
    }
  }

  void addSpan(SpanRecord span) {
    if (spanCount == spans.length) {
      spans = java.util.Arrays.copyOf(spans, 2 * spans.length);
    }
    spans[spanCount++] = span;
  }

  /** Forgets every list, so that records of a poll that threw are never reported later. */
  void clear() {
    for (int i = 0; i < size; i++) {
      lists[i] = null;
      stamps[i] = null;
      partitions[i] = null;
      instruments[i] = null;
    }
    size = 0;
    for (int i = 0; i < spanCount; i++) {
      spans[i] = null;
    }
    spanCount = 0;
  }

  private void grow() {
    int capacity = lists.length * 2;
    lists = java.util.Arrays.copyOf(lists, capacity);
    counts = java.util.Arrays.copyOf(counts, capacity);
    stamps = java.util.Arrays.copyOf(stamps, capacity);
    partitions = java.util.Arrays.copyOf(partitions, capacity);
    highWatermarks = java.util.Arrays.copyOf(highWatermarks, capacity);
    instruments = java.util.Arrays.copyOf(instruments, capacity);
    e2eStartsEnd = java.util.Arrays.copyOf(e2eStartsEnd, capacity);
  }
}

package dev.klat.agent.consumer;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.Gauge;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.micrometer.MicrometerTimer;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;

/** The poll exit's second pass, after {@code P} was taken: the histograms and the lag gauge. */
final class PollReport {
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final double NANOS_PER_SECOND = 1e9;

  private PollReport() {}

  /**
   * Second pass over one list, after P was taken: histograms and the lag gauge. {@code R - F} and
   * {@code P - R} are the same for every record of the list (one response, one poll): one recording
   * with a count each. The end-to-end latencies go in at once, one atomic addition per run of
   * records in the same bucket; those of records with a klat header one by one.
   */
  static void reportList(
      ConsumerState state, PollContext context, int index, long pollNanos, long pollEpochNanos) {
    ConsumerTopicInstruments instruments = context.instruments[index];
    if (instruments == null) {
      return;
    }
    int count = context.counts[index];
    FetchStamp stamp = context.stamps[index];
    // Null unless klat.micrometer.enabled; then the three timers are all set.
    MicrometerTimer e2eTimer = instruments.e2eLatencyTimer;
    if (stamp != null) {
      if (stamp.requestNanos != 0L) {
        long fetchNanos = stamp.responseNanos - stamp.requestNanos;
        record(state.clampedAtResponse, instruments.fetchLatency, fetchNanos, count);
        if (e2eTimer != null) {
          instruments.fetchLatencyTimer.recordNanos(fetchNanos, count);
        }
      }
      long bufferNanos = pollNanos - stamp.responseNanos;
      record(state.clampedAtPoll, instruments.bufferLatency, bufferNanos, count);
      if (e2eTimer != null) {
        instruments.bufferLatencyTimer.recordNanos(bufferNanos, count);
      }
    }
    int from = context.e2eStartsFrom[index];
    int to = context.e2eStartsTo[index];
    if (to > from) {
      // Negative ones (a future timestamp, a skewed producer clock) are never recorded.
      int negatives =
          instruments.e2eLatency.recordAll(pollEpochNanos, context.e2eStartEpochNanos, from, to);
      if (negatives > 0) {
        state.clampedAtPoll.add(negatives);
      }
      if (e2eTimer != null) {
        e2eTimer.recordAll(pollEpochNanos, context.e2eStartEpochNanos, from, to);
      }
    }
    for (int k = context.headersFrom[index]; k < context.headersTo[index]; k++) {
      long start = context.headerStartEpochNanos[k];
      if (start != ConsumerHooks.NO_START) {
        record(state.clampedAtPoll, instruments.e2eLatency, pollEpochNanos - start, 1);
        if (e2eTimer != null) {
          e2eTimer.recordNanos(pollEpochNanos - start);
        }
      }
    }
    List<?> records = context.lists[index];
    updateLag(
        instruments,
        context.partitions[index],
        (ConsumerRecord<?, ?>) records.get(count - 1),
        context.highWatermarks[index],
        pollEpochNanos);
  }

  /**
   * Consumer lag in time, after this poll: 0 when the poll returned everything the fetch response
   * said was committed; otherwise the age of the last record returned, which bounds from above the
   * age of the oldest committed record still waiting (it was appended later).
   */
  private static void updateLag(
      ConsumerTopicInstruments instruments,
      TopicPartition partition,
      ConsumerRecord<?, ?> last,
      long highWatermark,
      long pollEpochNanos) {
    Gauge lag = instruments.lag(partition.partition());
    if (lag == null) {
      return;
    }
    if (highWatermark >= 0L && last.offset() + 1 >= highWatermark) {
      lag.set(0.0);
    } else if (last.timestampType() == TimestampType.CREATE_TIME && last.timestamp() >= 0L) {
      long ageNanos = pollEpochNanos - last.timestamp() * NANOS_PER_MILLI;
      lag.set(Math.max(0L, ageNanos) / NANOS_PER_SECOND);
    }
  }

  static void record(Counter clamped, LatencyHistogram histogram, long nanos, int count) {
    if (nanos < 0L) {
      // Never a latency: a clock step, a forged header or a future timestamp.
      clamped.add(count);
      return;
    }
    histogram.recordNanos(nanos, count);
  }
}

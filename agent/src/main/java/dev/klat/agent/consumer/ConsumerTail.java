package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.tail.TailSpans;
import dev.klat.agent.tail.TailThreshold;
import dev.klat.model.HeaderNames;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;

/**
 * Tail capture on the consumer's side (section 8 of the latency model): in the poll exit's second
 * pass, once {@code P} is known, a record without a klat timing header whose {@code P - timestamp}
 * is above its (topic, group) threshold is flagged, and, when the client's fair limiter admits it,
 * becomes a tail span of the sampled span's shape.
 *
 * <p>The unflagged path is one comparison per record: each start of the list is compared with
 * {@code P - threshold}, computed once per list. Only a flagged record costs more, and only a
 * flagged and admitted one allocates: its record is found in its list (the starts are kept without
 * their record, to keep the per-record path to one store), and its span is built.
 */
final class ConsumerTail {

  private static final long NANOS_PER_MILLI = 1_000_000L;

  /** What a tail span adds to a consumer span: the capture and the threshold. */
  static final int TAIL_ATTRIBUTES = 2;

  private ConsumerTail() {}

  /**
   * The tail pass over list {@code index}, after {@link PollReport#reportList}: its {@code
   * CreateTime} records against the end-to-end threshold, its {@code LogAppendTime} records (their
   * {@code P - L} first fed to that threshold's window when it is {@code auto}) against theirs.
   */
  static void flagList(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      int index,
      long pollNanos,
      long pollEpochNanos) {
    ConsumerTopicInstruments instruments = context.instruments[index];
    if (instruments == null) {
      return;
    }
    int flagged = 0;
    long threshold = instruments.e2eTailThreshold.thresholdNanos();
    if (threshold != Long.MAX_VALUE) {
      flagged +=
          flag(
              runtime,
              state,
              context,
              index,
              context.e2eStartEpochNanos,
              context.e2eStartsFrom[index],
              context.e2eStartsTo[index],
              TimestampType.CREATE_TIME,
              threshold,
              pollNanos,
              pollEpochNanos);
    }
    int appendFrom = context.appendTimesFrom[index];
    int appendTo = context.appendTimesTo[index];
    if (appendTo > appendFrom) {
      TailThreshold appendThreshold = instruments.appendTailThreshold();
      if (appendThreshold.isAuto()) {
        // Negative ones (a broker clock ahead of this host's) are not recorded.
        appendThreshold
            .window()
            .histogram()
            .recordAll(pollEpochNanos, context.appendEpochNanos, appendFrom, appendTo);
      }
      threshold = appendThreshold.thresholdNanos();
      if (threshold != Long.MAX_VALUE) {
        flagged +=
            flag(
                runtime,
                state,
                context,
                index,
                context.appendEpochNanos,
                appendFrom,
                appendTo,
                TimestampType.LOG_APPEND_TIME,
                threshold,
                pollNanos,
                pollEpochNanos);
      }
    }
    if (flagged > 0 && instruments.tailFlagged != null) {
      instruments.tailFlagged.add(flagged);
    }
  }

  /**
   * Flags the records of list {@code index} whose start in {@code starts[from, to)} lies before
   * {@code pollEpochNanos - thresholdNanos}: the records of the list without a klat timing header,
   * with a timestamp of {@code type} of at least 0, in list order. Returns how many.
   */
  static int flag(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      int index,
      long[] starts,
      int from,
      int to,
      TimestampType type,
      long thresholdNanos,
      long pollNanos,
      long pollEpochNanos) {
    // Strictly above the threshold: P - start > threshold, so start < P - threshold.
    long cutoff = pollEpochNanos - thresholdNanos;
    int flagged = 0;
    for (int k = from; k < to; k++) {
      if (starts[k] < cutoff) {
        flagged++;
        if (state.tailAdmission.admit(pollNanos)) {
          capture(
              runtime, state, context, index, k - from, to - from, starts[k], type, thresholdNanos);
        }
      }
    }
    return flagged;
  }

  /**
   * Builds the tail span of an admitted record, its {@code P} and poll evidence left to the exit.
   */
  private static void capture(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      int index,
      int slot,
      int slots,
      long startEpochNanos,
      TimestampType type,
      long thresholdNanos) {
    int position = recordIndex(context, index, slot, slots, type);
    List<?> records = context.lists[index];
    if (position < 0 || position >= context.counts[index]) {
      return;
    }
    ConsumerRecord<?, ?> record = (ConsumerRecord<?, ?>) records.get(position);
    // The record found must be the one whose start was flagged; anything else is a bug, and no span
    // is better than a span naming the wrong record.
    if (record.timestamp() * NANOS_PER_MILLI != startEpochNanos) {
      return;
    }
    ConsumerTopicInstruments instruments = context.instruments[index];
    PartitionFetchHistory history = instruments.history(record.partition());
    // The trace id is TailSpans.mark's, derived from the record; no parent.
    SpanRecord span =
        ConsumerSpans.of(
            runtime,
            state,
            record,
            0L,
            0L,
            0L,
            context.stamps[index],
            context.highWatermarks[index],
            history != null ? history.uncommittedAtNanos(record.offset()) : 0L,
            TAIL_ATTRIBUTES,
            1);
    TailSpans.mark(
        span,
        instruments.topicHash(record.topic()),
        record.partition(),
        record.offset(),
        thresholdNanos);
    context.addSpan(span, record.topic(), true);
  }

  /**
   * The index in list {@code index} of the record whose start is its {@code slot}-th of {@code
   * slots}, or -1: the {@code slot}-th record without a klat timing header and with a timestamp of
   * {@code type} of at least 0. Without arithmetic when every record has a start, or when the only
   * records without one are those with a klat header, whose indexes are noted; otherwise the list
   * is walked, which only a flagged and admitted record pays.
   */
  static int recordIndex(PollContext context, int index, int slot, int slots, TimestampType type) {
    int count = context.counts[index];
    if (slots == count) {
      return slot;
    }
    int headersFrom = context.headersFrom[index];
    int headersTo = context.headersTo[index];
    if (slots + (headersTo - headersFrom) == count) {
      int position = slot;
      for (int h = headersFrom; h < headersTo; h++) {
        if (context.headerIndexes[h] > position) {
          break;
        }
        position++;
      }
      return position;
    }
    List<?> records = context.lists[index];
    int seen = 0;
    for (int i = 0; i < count; i++) {
      ConsumerRecord<?, ?> record = (ConsumerRecord<?, ?>) records.get(i);
      if (record.headers().lastHeader(HeaderNames.TIMING) == null
          && record.timestampType() == type
          && record.timestamp() >= 0L) {
        if (seen == slot) {
          return i;
        }
        seen++;
      }
    }
    return -1;
  }
}

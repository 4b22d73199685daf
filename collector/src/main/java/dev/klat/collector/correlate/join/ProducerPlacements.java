package dev.klat.collector.correlate.join;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Places the producer spans of OpenTelemetry instrumentations that carry no offset (kafkajs's;
 * section 10 of the latency model): such a span waits here, keyed by its trace id and span id,
 * until a consumer record span names it as its parent or in a span link, which gives it that
 * consumer's record. What a consumer span names is remembered for the same window while its record
 * has no producer span yet, so a producer span that arrives after its consumer's is placed at once,
 * and again if it arrives twice.
 *
 * <p>Every entry waits one join window from its arrival (or its placing), in arrival order, so
 * expiry looks at the head only; a producer span still waiting at its window's end is counted as
 * unplaced. Bounded in entries and in estimated bytes like the join table: over either, the oldest
 * entry leaves early, a waiting producer span counted as evicted. Not thread-safe: confined to the
 * {@link Correlator}'s lock.
 */
final class ProducerPlacements {

  /** A waiting producer span without its strings: the span, its key and the map's node. */
  static final int HELD_BYTES = 280;

  /** A remembered context and its record: the key, the slot and the map's node. */
  static final int PLACED_BYTES = 120;

  /** A producer span waiting for a consumer span to name it, with where it was read. */
  record Held(OtelRecordSpan span, long source) {}

  private record Ref(long traceIdHigh, long traceIdLow, long spanId) {}

  // Either a producer span waiting (held) or the record a consumer span named the context for.
  private static final class Slot {
    final long deadlineNanos;
    final Held held;
    final RecordKey key;
    final long bytes;

    Slot(long deadlineNanos, Held held, RecordKey key, long bytes) {
      this.deadlineNanos = deadlineNanos;
      this.held = held;
      this.key = key;
      this.bytes = bytes;
    }
  }

  private final long windowNanos;
  private final int maxEntries;
  private final long maxBytes;
  private final LinkedHashMap<Ref, Slot> slots = new LinkedHashMap<>();
  private long bytes;
  private int held;
  private long placed;
  private long unplaced;
  private long evicted;
  private long refsEvicted;
  private long topicMismatches;

  /**
   * @param windowNanos how long an entry waits
   * @param maxEntries how many entries (waiting spans and remembered contexts) at most
   * @param maxBytes their estimated bytes at most
   */
  ProducerPlacements(long windowNanos, int maxEntries, long maxBytes) {
    this.windowNanos = windowNanos;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /**
   * The record a consumer span named this producer span for, or null: then {@link #hold} it.
   *
   * @param span a producer span without a record
   */
  RecordKey placed(OtelRecordSpan span) {
    Slot slot = slots.get(ref(span.traceIdHigh(), span.traceIdLow(), span.spanId()));
    return slot != null && slot.key != null && slot.key.topic().equals(span.topic())
        ? slot.key
        : null;
  }

  /**
   * Holds a producer span without a record until a consumer span names it.
   *
   * @return false when the same span waits already (a duplicate)
   */
  boolean hold(OtelRecordSpan span, long source, long nowNanos) {
    Ref ref = ref(span.traceIdHigh(), span.traceIdLow(), span.spanId());
    if (slots.containsKey(ref)) {
      return false;
    }
    long size =
        HELD_BYTES
            + JoinTable.chars(span.topic())
            + JoinTable.chars(span.clientId())
            + JoinTable.chars(span.hostName())
            + JoinTable.chars(span.instrumentation());
    put(ref, new Slot(nowNanos + windowNanos, new Held(span, source), null, size));
    held++;
    return true;
  }

  /**
   * A consumer span of {@code key} names the producer context {@code (traceIdHigh, traceIdLow,
   * spanId)}: the producer span waiting under it, if any, leaves to join as {@code key}'s, and the
   * context is remembered for a window with its record, so that the span arriving again is placed
   * at once. A waiting span of another topic than the consumer's is not placed (counted), and keeps
   * waiting.
   *
   * @return the producer span placed, or null
   */
  Held take(long traceIdHigh, long traceIdLow, long spanId, RecordKey key, long nowNanos) {
    Ref ref = ref(traceIdHigh, traceIdLow, spanId);
    Slot slot = slots.get(ref);
    if (slot == null || slot.held == null) {
      return null;
    }
    if (!slot.held.span().topic().equals(key.topic())) {
      topicMismatches++;
      return null;
    }
    remove(ref, slot);
    placed++;
    put(ref, new Slot(nowNanos + windowNanos, null, key, PLACED_BYTES));
    return slot.held;
  }

  /**
   * Remembers for a window that a consumer span of {@code key} named the producer context, whose
   * span has not arrived: it is placed at once when it does. The first record named stays.
   */
  void remember(long traceIdHigh, long traceIdLow, long spanId, RecordKey key, long nowNanos) {
    Ref ref = ref(traceIdHigh, traceIdLow, spanId);
    if (!slots.containsKey(ref)) {
      put(ref, new Slot(nowNanos + windowNanos, null, key, PLACED_BYTES));
    }
  }

  /** Ends the window of every entry whose window is over; a waiting span is counted unplaced. */
  void expire(long nowNanos) {
    for (Iterator<Slot> it = slots.values().iterator(); it.hasNext(); ) {
      Slot head = it.next();
      if (nowNanos - head.deadlineNanos < 0) {
        break;
      }
      it.remove();
      forget(head);
      if (head.held != null) {
        unplaced++;
      }
    }
  }

  private void put(Ref ref, Slot slot) {
    slots.put(ref, slot);
    bytes += slot.bytes;
    Iterator<Slot> it = slots.values().iterator();
    while ((slots.size() > maxEntries || bytes > maxBytes) && it.hasNext()) {
      Slot oldest = it.next();
      if (oldest == slot) {
        continue;
      }
      it.remove();
      forget(oldest);
      if (oldest.held != null) {
        evicted++;
      } else {
        refsEvicted++;
      }
    }
  }

  private void remove(Ref ref, Slot slot) {
    slots.remove(ref);
    forget(slot);
  }

  private void forget(Slot slot) {
    bytes -= slot.bytes;
    if (slot.held != null) {
      held--;
    }
  }

  private static Ref ref(long traceIdHigh, long traceIdLow, long spanId) {
    return new Ref(traceIdHigh, traceIdLow, spanId);
  }

  /** Producer spans waiting now. */
  int held() {
    return held;
  }

  /** The estimated bytes of the entries now. */
  long estimatedBytes() {
    return bytes;
  }

  /** Producer spans a consumer span placed after they had waited. */
  long placedAfterWaiting() {
    return placed;
  }

  /** Producer spans no consumer span named within the window. */
  long unplaced() {
    return unplaced;
  }

  /** Waiting producer spans that left early because the entries or bytes were over the limit. */
  long evicted() {
    return evicted;
  }

  /** Remembered contexts that left early for the same reason. */
  long refsEvicted() {
    return refsEvicted;
  }

  /** Producer spans a consumer span of another topic named, not placed. */
  long topicMismatches() {
    return topicMismatches;
  }
}

package dev.klat.collector.correlate.join;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The records waiting for their partner spans (section 7 of the latency model): each for the join
 * window from the arrival of its first span, at most {@code maxRecords} at once. When the window
 * ends, the spans of a record that found no partner are counted as unjoined; when the table is
 * full, the oldest record leaves early and its spans that had not joined are counted as dropped, so
 * memory is bounded whatever the senders do.
 *
 * <p>Bounded in bytes too: each record's size is estimated as it grows ({@link #ENTRY_BYTES} plus
 * its topic's length, {@link #SPAN_BYTES} plus the lengths of its strings per span, from the
 * objects' fields with compressed references and one byte per character, the compact strings of the
 * ASCII names {@code WireNames} lets in), and while the sum is over {@code maxBytes} the oldest
 * record leaves, counted as evicted. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
final class JoinTable {

  /** One record's spans while it waits. */
  static final class Entry {
    final long deadlineNanos;
    ProducerSpan producer;
    // Both lists stay null for the common case of one group, then hold one element each: a
    // record is read by few groups.
    List<ConsumerSpan> waiting;
    List<String> joinedGroups;
    // H on the producer's clock as a group whose fetch waited for the record placed it, or
    // MIN_VALUE.
    long waitedCommitNanos = Long.MIN_VALUE;
    // The estimate of what this record holds, as JoinTable.added grew it.
    long bytes;

    Entry(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }

    /** Whether the group has joined, or waits, for this record. */
    boolean hasGroup(String group) {
      if (joinedGroups != null && joinedGroups.contains(group)) {
        return true;
      }
      if (waiting != null) {
        for (ConsumerSpan c : waiting) {
          if (c.group().equals(group)) {
            return true;
          }
        }
      }
      return false;
    }

    /** The groups that joined or wait for this record. */
    int groups() {
      return (joinedGroups == null ? 0 : joinedGroups.size())
          + (waiting == null ? 0 : waiting.size());
    }

    // Spans of this record that found no partner: the producer's if no group joined it, and
    // every consumer span still waiting for the producer's.
    long unjoinedSpans() {
      return (producer != null && joinedGroups == null ? 1 : 0)
          + (waiting == null ? 0 : waiting.size());
    }
  }

  /**
   * A waiting record without its spans: the entry, its key and the map's node (the topic's
   * characters are added).
   */
  static final int ENTRY_BYTES = 120;

  /**
   * A producer or consumer span with its evidence and its own key, without its strings (their
   * characters are added, each string with {@link #STRING_BYTES}).
   */
  static final int SPAN_BYTES = 240;

  /** A string's header and its array's. */
  static final int STRING_BYTES = 40;

  private final long windowNanos;
  private final int maxRecords;
  private final long maxBytes;
  private long bytes;
  private long evictedForBytes;
  // Insertion order is arrival order, and every entry waits the same window, so the head is
  // always the first to expire.
  private final LinkedHashMap<RecordKey, Entry> pending = new LinkedHashMap<>();
  private long unjoinedProducerSpans;
  private long unjoinedConsumerSpans;
  private long evicted;
  private long droppedSpans;

  JoinTable(long windowNanos, int maxRecords) {
    this(windowNanos, maxRecords, Long.MAX_VALUE);
  }

  JoinTable(long windowNanos, int maxRecords, long maxBytes) {
    this.windowNanos = windowNanos;
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
  }

  /** The estimated bytes a producer span adds to its record. */
  static long producerBytes(ProducerSpan span) {
    return SPAN_BYTES + chars(span.clientId()) + chars(span.evidence().retryError());
  }

  /** The estimated bytes a consumer span adds to its record (its group stays once joined). */
  static long consumerBytes(ConsumerSpan span) {
    return SPAN_BYTES + chars(span.group()) + chars(span.clientId());
  }

  private static long chars(String s) {
    return s == null || s.isEmpty() ? 0 : STRING_BYTES + s.length();
  }

  /**
   * Adds {@code spanBytes} to the estimate of {@code entry}'s record; while the table is over its
   * byte budget, the oldest other records leave.
   */
  void added(Entry entry, long spanBytes) {
    entry.bytes += spanBytes;
    bytes += spanBytes;
    Iterator<Entry> it = pending.values().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Entry oldest = it.next();
      if (oldest == entry) {
        continue;
      }
      it.remove();
      evicted++;
      evictedForBytes++;
      droppedSpans += oldest.unjoinedSpans();
      bytes -= oldest.bytes;
    }
  }

  /**
   * The record's entry, made when its first span arrives; the oldest leaves if the table is full.
   */
  Entry entryFor(RecordKey key, long nowNanos) {
    Entry entry = pending.get(key);
    if (entry != null) {
      return entry;
    }
    if (pending.size() >= maxRecords) {
      Iterator<Entry> it = pending.values().iterator();
      Entry oldest = it.next();
      it.remove();
      evicted++;
      droppedSpans += oldest.unjoinedSpans();
      bytes -= oldest.bytes;
    }
    entry = new Entry(nowNanos + windowNanos);
    pending.put(key, entry);
    added(entry, ENTRY_BYTES + key.topic().length());
    return entry;
  }

  /** Ends the window of every record whose window is over, counting its unjoined spans. */
  void expire(long nowNanos) {
    for (Iterator<Entry> it = pending.values().iterator(); it.hasNext(); ) {
      Entry head = it.next();
      if (nowNanos - head.deadlineNanos < 0) {
        return;
      }
      it.remove();
      bytes -= head.bytes;
      if (head.producer != null && head.joinedGroups == null) {
        unjoinedProducerSpans++;
      }
      if (head.waiting != null) {
        unjoinedConsumerSpans += head.waiting.size();
      }
    }
  }

  /**
   * Whether the table is full of young records: full, with the oldest record waiting for less than
   * half the window. A full table of older records is normal at a steady rate (they are evicted
   * early, which mostly costs other groups' late joins); young ones being evicted means the rate
   * exceeds what the table holds, and senders should slow down.
   */
  boolean saturated(long nowNanos) {
    if (pending.size() < maxRecords) {
      return false;
    }
    Entry oldest = pending.values().iterator().next();
    long ageNanos = nowNanos - (oldest.deadlineNanos - windowNanos);
    return ageNanos < windowNanos / 2;
  }

  int size() {
    return pending.size();
  }

  long unjoinedProducerSpans() {
    return unjoinedProducerSpans;
  }

  long unjoinedConsumerSpans() {
    return unjoinedConsumerSpans;
  }

  long evicted() {
    return evicted;
  }

  long droppedSpans() {
    return droppedSpans;
  }

  /** Of the evicted records, those that left because of the byte budget. */
  long evictedForBytes() {
    return evictedForBytes;
  }

  /** The estimated bytes the waiting records hold. */
  long estimatedBytes() {
    return bytes;
  }
}

package dev.klat.collector.correlate.join;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The records waiting for their partner spans (section 7 of the latency model): each for the join
 * window from the arrival of its first span, at most {@code maxRecords} at once. When the window
 * ends, the spans of a record that found no partner are counted as unjoined; when the table is
 * full, the oldest record leaves early and its spans that had not joined are counted as dropped, so
 * memory is bounded whatever the senders do. Not thread-safe: confined to the {@link Correlator}'s
 * lock.
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

    // Spans of this record that found no partner: the producer's if no group joined it, and
    // every consumer span still waiting for the producer's.
    long unjoinedSpans() {
      return (producer != null && joinedGroups == null ? 1 : 0)
          + (waiting == null ? 0 : waiting.size());
    }
  }

  private final long windowNanos;
  private final int maxRecords;
  // Insertion order is arrival order, and every entry waits the same window, so the head is
  // always the first to expire.
  private final LinkedHashMap<RecordKey, Entry> pending = new LinkedHashMap<>();
  private long unjoinedProducerSpans;
  private long unjoinedConsumerSpans;
  private long evicted;
  private long droppedSpans;

  JoinTable(long windowNanos, int maxRecords) {
    this.windowNanos = windowNanos;
    this.maxRecords = maxRecords;
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
    }
    entry = new Entry(nowNanos + windowNanos);
    pending.put(key, entry);
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
}

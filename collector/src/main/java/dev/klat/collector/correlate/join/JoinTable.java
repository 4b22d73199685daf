package dev.klat.collector.correlate.join;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Consumer;

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
 * record leaves, counted as evicted.
 *
 * <p>Tail spans (section 8 of the latency model) have their own budget: a record whose spans are
 * all tail spans waits in a second table, bounded by {@code maxTailBytes} alone, whose evictions
 * are counted apart; it moves to the first table when a sampled span of it arrives. So a burst of
 * tail spans never evicts a sampled record, and sampled records never evict tail ones. When the
 * window of a record ends, its tail spans that found no partner are handed to the caller (they
 * become one-sided breakdowns) instead of being counted as unjoined. A record moved to the first
 * table keeps its deadline and expires when it reaches the head of that table, at most a window
 * late. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
final class JoinTable {

  /** One record's spans while it waits. */
  static final class Entry {
    final long deadlineNanos;
    // The record, null only for entries built by tests.
    final RecordKey key;
    // In the tail table: every span so far is a tail span.
    boolean tail;
    ProducerSpan producer;
    // Where the producer span was read (Correlator.NO_SOURCE when the caller gave none).
    long producerSource = Correlator.NO_SOURCE;
    // Both lists stay null for the common case of one group, then hold one element each: a
    // record is read by few groups.
    List<ConsumerSpan> waiting;
    // Parallel to waiting, where each waiting span was read; null when every source is NO_SOURCE.
    long[] waitingSources;
    List<String> joinedGroups;
    // Bit i: joinedGroups' i-th group joined with an instrumentation's consumer span (section 10),
    // for the first 64 groups (a record beyond that reads as joined by klat's agent).
    long instrumentedJoins;
    // H on the producer's clock as a group whose fetch waited for the record placed it, or
    // MIN_VALUE.
    long waitedCommitNanos = Long.MIN_VALUE;
    // The estimate of what this record holds, as JoinTable.added grew it.
    long bytes;
    // Section 11: the deliveries to each share group that read the record; null for none.
    List<SharePending> shares;

    Entry(long deadlineNanos) {
      this(null, deadlineNanos, false);
    }

    Entry(RecordKey key, long deadlineNanos, boolean tail) {
      this.key = key;
      this.deadlineNanos = deadlineNanos;
      this.tail = tail;
    }

    /** Adds a consumer span that waits for the producer's, read from {@code source}. */
    void addWaiting(ConsumerSpan span, long source) {
      if (waiting == null) {
        waiting = new ArrayList<>(1);
      }
      waiting.add(span);
      if (source != Correlator.NO_SOURCE || waitingSources != null) {
        if (waitingSources == null) {
          waitingSources = new long[Math.max(4, waiting.size())];
          Arrays.fill(waitingSources, Correlator.NO_SOURCE);
        } else if (waitingSources.length < waiting.size()) {
          int old = waitingSources.length;
          waitingSources = Arrays.copyOf(waitingSources, 2 * old);
          Arrays.fill(waitingSources, old, waitingSources.length, Correlator.NO_SOURCE);
        }
        waitingSources[waiting.size() - 1] = source;
      }
    }

    /** Where the {@code i}th waiting span was read. */
    long waitingSource(int i) {
      return waitingSources == null || i >= waitingSources.length
          ? Correlator.NO_SOURCE
          : waitingSources[i];
    }

    /** Removes the {@code i}th waiting span. */
    void removeWaiting(int i) {
      waiting.remove(i);
      if (waitingSources != null && i < waitingSources.length) {
        System.arraycopy(waitingSources, i + 1, waitingSources, i, waitingSources.length - i - 1);
        waitingSources[waitingSources.length - 1] = Correlator.NO_SOURCE;
      }
    }

    /** Records that {@code group} joined, with an instrumentation's consumer span or klat's. */
    void joined(String group, boolean instrumented) {
      if (joinedGroups == null) {
        joinedGroups = new ArrayList<>(1);
      }
      if (instrumented && joinedGroups.size() < Long.SIZE) {
        instrumentedJoins |= 1L << joinedGroups.size();
      }
      joinedGroups.add(group);
    }

    /** The index of {@code group} among the joined groups, or -1. */
    int joinedIndex(String group) {
      return joinedGroups == null ? -1 : joinedGroups.indexOf(group);
    }

    /** Whether the {@code i}th joined group joined with an instrumentation's consumer span. */
    boolean joinedInstrumented(int i) {
      return i < Long.SIZE && (instrumentedJoins & (1L << i)) != 0;
    }

    /** The index of {@code group}'s waiting span, or -1. */
    int waitingIndex(String group) {
      if (waiting != null) {
        for (int i = 0; i < waiting.size(); i++) {
          if (waiting.get(i).group().equals(group)) {
            return i;
          }
        }
      }
      return -1;
    }

    /** Whether the group has joined, or waits, for this record. */
    boolean hasGroup(String group) {
      return joinedIndex(group) >= 0 || waitingIndex(group) >= 0;
    }

    /** The groups that joined or wait for this record, share groups still gathering included. */
    int groups() {
      return (joinedGroups == null ? 0 : joinedGroups.size())
          + (waiting == null ? 0 : waiting.size())
          + undecidedShares();
    }

    /** The share group's deliveries of this record, or null (section 11). */
    SharePending share(String group) {
      if (shares != null) {
        for (SharePending p : shares) {
          if (p.group.equals(group)) {
            return p;
          }
        }
      }
      return null;
    }

    /** Starts holding the share group's deliveries of this record. */
    SharePending addShare(String group) {
      if (shares == null) {
        shares = new ArrayList<>(1);
      }
      SharePending p = new SharePending(group);
      shares.add(p);
      return p;
    }

    // Share groups whose counted delivery is not chosen yet.
    private int undecidedShares() {
      int n = 0;
      if (shares != null) {
        for (SharePending p : shares) {
          n += p.decided() ? 0 : 1;
        }
      }
      return n;
    }

    /** Whether a share group's counted delivery is still to be chosen. */
    boolean hasUndecidedShares() {
      return undecidedShares() > 0;
    }

    // The deliveries held for share groups whose counted delivery is not chosen yet.
    long undecidedShareDeliveries() {
      long n = 0;
      if (shares != null) {
        for (SharePending p : shares) {
          n += p.decided() ? 0 : p.deliveries.size();
        }
      }
      return n;
    }

    /** Whether the producer span is there and no group joined it. */
    boolean producerUnjoined() {
      return producer != null && joinedGroups == null;
    }

    // Spans of this record that found no partner: the producer's if no group joined it, and
    // every consumer span still waiting for the producer's.
    long unjoinedSpans() {
      return (producer != null && joinedGroups == null ? 1 : 0)
          + (waiting == null ? 0 : waiting.size())
          + undecidedShareDeliveries();
    }

    // Of those, the ones read from an OpenTelemetry instrumentation's spans (section 10).
    long unjoinedInstrumentedSpans() {
      long n = producerUnjoined() && producer.instrumented() ? 1 : 0;
      if (waiting != null) {
        for (ConsumerSpan c : waiting) {
          n += c.instrumented() ? 1 : 0;
        }
      }
      return n;
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
  private final long maxTailBytes;
  private long bytes;
  private long evictedForBytes;
  // Insertion order is arrival order, and every entry waits the same window, so the head is
  // always the first to expire.
  private final LinkedHashMap<RecordKey, Entry> pending = new LinkedHashMap<>();
  // Records whose spans are all tail spans, under their own byte budget.
  private final LinkedHashMap<RecordKey, Entry> tailPending = new LinkedHashMap<>();
  private long tailBytes;
  private long unjoinedProducerSpans;
  private long unjoinedConsumerSpans;
  private long evicted;
  private long droppedSpans;
  private long tailEvicted;
  private long tailDroppedSpans;
  private long instrumentedDroppedSpans;
  private long shareDeliveriesEvicted;

  JoinTable(long windowNanos, int maxRecords) {
    this(windowNanos, maxRecords, Long.MAX_VALUE);
  }

  JoinTable(long windowNanos, int maxRecords, long maxBytes) {
    this(windowNanos, maxRecords, maxBytes, Long.MAX_VALUE);
  }

  JoinTable(long windowNanos, int maxRecords, long maxBytes, long maxTailBytes) {
    this.windowNanos = windowNanos;
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
    this.maxTailBytes = maxTailBytes;
  }

  /** The estimated bytes a producer span adds to its record. */
  static long producerBytes(ProducerSpan span) {
    return SPAN_BYTES + chars(span.clientId()) + chars(span.evidence().retryError());
  }

  /** The estimated bytes a consumer span adds to its record (its group stays once joined). */
  static long consumerBytes(ConsumerSpan span) {
    return SPAN_BYTES + chars(span.group()) + chars(span.clientId());
  }

  static long chars(String s) {
    return s == null || s.isEmpty() ? 0 : STRING_BYTES + s.length();
  }

  /**
   * Adds {@code spanBytes} to the estimate of {@code entry}'s record; while the table is over its
   * byte budget, the oldest other records leave.
   */
  void added(Entry entry, long spanBytes) {
    entry.bytes += spanBytes;
    if (entry.tail) {
      tailBytes += spanBytes;
      evictTailOver(entry);
      return;
    }
    bytes += spanBytes;
    evictOver(entry);
  }

  // While the tail table is over its budget, its oldest records but {@code kept} leave.
  private void evictTailOver(Entry kept) {
    Iterator<Entry> it = tailPending.values().iterator();
    while (tailBytes > maxTailBytes && it.hasNext()) {
      Entry oldest = it.next();
      if (oldest == kept) {
        continue;
      }
      it.remove();
      tailEvicted++;
      shareDeliveriesEvicted += oldest.undecidedShareDeliveries();
      tailDroppedSpans += oldest.unjoinedSpans();
      tailBytes -= oldest.bytes;
    }
  }

  // While the sampled table is over its byte budget, its oldest records but {@code kept} leave.
  private void evictOver(Entry kept) {
    Iterator<Entry> it = pending.values().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Entry oldest = it.next();
      if (oldest == kept) {
        continue;
      }
      it.remove();
      evicted++;
      evictedForBytes++;
      shareDeliveriesEvicted += oldest.undecidedShareDeliveries();
      droppedSpans += oldest.unjoinedSpans();
      instrumentedDroppedSpans += oldest.unjoinedInstrumentedSpans();
      bytes -= oldest.bytes;
    }
  }

  /**
   * The record's entry, made when its first span arrives; the oldest leaves if the table is full.
   */
  Entry entryFor(RecordKey key, long nowNanos) {
    return entryFor(key, nowNanos, false);
  }

  /**
   * The record's entry for a span that is a tail span or not: made in the tail table for a tail
   * span that arrives first, moved to the sampled table when a sampled span of it arrives.
   */
  Entry entryFor(RecordKey key, long nowNanos, boolean tailSpan) {
    Entry entry = pending.get(key);
    if (entry != null) {
      return entry;
    }
    entry = tailPending.get(key);
    if (entry != null) {
      if (!tailSpan) {
        tailPending.remove(key);
        tailBytes -= entry.bytes;
        makeRoom();
        entry.tail = false;
        pending.put(key, entry);
        bytes += entry.bytes;
        evictOver(entry);
      }
      return entry;
    }
    entry = new Entry(key, nowNanos + windowNanos, tailSpan);
    if (tailSpan) {
      tailPending.put(key, entry);
    } else {
      makeRoom();
      pending.put(key, entry);
    }
    added(entry, ENTRY_BYTES + key.topic().length());
    return entry;
  }

  // The oldest sampled record leaves when the sampled table holds maxRecords.
  private void makeRoom() {
    if (pending.size() >= maxRecords) {
      Iterator<Entry> it = pending.values().iterator();
      Entry oldest = it.next();
      it.remove();
      evicted++;
      shareDeliveriesEvicted += oldest.undecidedShareDeliveries();
      droppedSpans += oldest.unjoinedSpans();
      instrumentedDroppedSpans += oldest.unjoinedInstrumentedSpans();
      bytes -= oldest.bytes;
    }
  }

  /** Ends the window of every record whose window is over, counting its unjoined spans. */
  void expire(long nowNanos) {
    expire(nowNanos, entry -> {}, entry -> {});
  }

  /**
   * As {@link #expire(long, Consumer)}, first handing a record whose share groups (section 11)
   * still gather deliveries to {@code endingShares}, which chooses each one's counted delivery and
   * joins it (or leaves it waiting, then counted as unjoined).
   */
  void expire(long nowNanos, Consumer<Entry> endingShares, Consumer<Entry> endedWithTail) {
    this.endingShares = endingShares;
    try {
      expire(nowNanos, endedWithTail);
    } finally {
      this.endingShares = null;
    }
  }

  // Set only during expire(long, Consumer, Consumer).
  private Consumer<Entry> endingShares;

  /**
   * Ends the window of every record whose window is over: its unjoined sampled spans are counted,
   * and a record with an unjoined tail span or instrumentation's span (section 10) is handed to
   * {@code endedWithTail}, which makes it a one-sided breakdown (or counts it).
   */
  void expire(long nowNanos, Consumer<Entry> endedWithTail) {
    expire(pending, nowNanos, endedWithTail);
    expire(tailPending, nowNanos, endedWithTail);
  }

  private void expire(
      LinkedHashMap<RecordKey, Entry> table, long nowNanos, Consumer<Entry> endedWithTail) {
    for (Iterator<Entry> it = table.values().iterator(); it.hasNext(); ) {
      Entry head = it.next();
      if (nowNanos - head.deadlineNanos < 0) {
        break;
      }
      it.remove();
      // Accounted before the callback, which may throw: the record has left either way.
      if (table == tailPending) {
        tailBytes -= head.bytes;
      } else {
        bytes -= head.bytes;
      }
      if (endingShares != null && head.hasUndecidedShares()) {
        endingShares.accept(head);
      }
      boolean tail = false;
      if (head.producerUnjoined()) {
        if (head.producer.reportedAlone()) {
          tail = true;
        } else {
          unjoinedProducerSpans++;
        }
      }
      if (head.waiting != null) {
        for (ConsumerSpan c : head.waiting) {
          if (c.reportedAlone()) {
            tail = true;
          } else {
            unjoinedConsumerSpans++;
          }
        }
      }
      if (tail) {
        endedWithTail.accept(head);
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

  /** The records waiting in both tables. */
  int size() {
    return pending.size() + tailPending.size();
  }

  /** The records whose spans are all tail spans, waiting in their own table. */
  int tailSize() {
    return tailPending.size();
  }

  /** Tail-only records that left before their window ended because of the tail byte budget. */
  long tailEvicted() {
    return tailEvicted;
  }

  /** The unjoined tail spans of those records. */
  long tailDroppedSpans() {
    return tailDroppedSpans;
  }

  /**
   * The unjoined spans read from OpenTelemetry instrumentations (section 10) of the records that
   * left early because the table was full (counted in {@link #droppedSpans()} too).
   */
  long instrumentedDroppedSpans() {
    return instrumentedDroppedSpans;
  }

  /** The estimated bytes the tail-only records hold. */
  long tailEstimatedBytes() {
    return tailBytes;
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

  /**
   * Share deliveries (section 11) held for records that left early, before their counted delivery
   * was chosen (counted in the dropped spans too).
   */
  long shareDeliveriesEvicted() {
    return shareDeliveriesEvicted;
  }

  /** Of the evicted records, those that left because of the byte budget. */
  long evictedForBytes() {
    return evictedForBytes;
  }

  /** The estimated bytes the waiting records of the sampled table hold. */
  long estimatedBytes() {
    return bytes;
  }
}

package dev.klat.collector.correlate.probe;

import java.util.Arrays;

/**
 * One leader term's ranges of one kind, appends or commits, as {@link ProbeTimelines} keeps them: a
 * ring in arrival order that keeps every range whose latest time is within {@code retentionNanos}
 * of the newest range's: when full, it overwrites its oldest range if that one is older, and
 * otherwise doubles, up to {@code capacity} ranges and as far as the bytes its owner allows; a ring
 * that may not grow overwrites its oldest range all the same, and counts it ({@link
 * #droppedYoung}). Times are the leader's, so a ring's history does not depend on when the
 * collector received it (the scale-out join reads the probes' topic back after a restart). Append
 * ranges carry their produce request's times, commit ranges their follower; each ring holds only
 * the arrays of its kind, since the collector holds many terms. Not thread-safe: confined to the
 * {@link ProbeTimelines}' lock.
 */
final class ProbeRanges {
  private final int capacity;
  private final long retentionNanos;
  private long[] firsts = new long[4];
  private long[] lasts = new long[4];
  private long[] earliest = new long[4];
  private long[] latest = new long[4];
  // Commit ranges only (null for appends): the follower whose fetch moved the high watermark.
  private int[] followers;
  // Append ranges only (null for commits): the produce request's queue and local times, -1 unknown.
  private long[] requestQueueNanos;
  private long[] requestLocalNanos;
  private int next;
  private int count;
  private long droppedYoung;

  private ProbeRanges(int capacity, long retentionNanos, boolean appends) {
    this.capacity = capacity;
    this.retentionNanos = retentionNanos;
    if (appends) {
      requestQueueNanos = new long[4];
      requestLocalNanos = new long[4];
    } else {
      followers = new int[4];
    }
  }

  /**
   * A ring of append ranges, each with its produce request's times, keeping {@code retentionNanos}
   * of them in at most {@code capacity} ranges ({@code Long.MAX_VALUE}: the latest {@code
   * capacity}).
   */
  static ProbeRanges appends(int capacity, long retentionNanos) {
    return new ProbeRanges(capacity, retentionNanos, true);
  }

  /** A ring of commit ranges, each with its follower; as {@link #appends}. */
  static ProbeRanges commits(int capacity, long retentionNanos) {
    return new ProbeRanges(capacity, retentionNanos, false);
  }

  /**
   * Adds an append range; the request times are -1 when unknown. The ring grows only by at most
   * {@code bytesToSpare}.
   */
  void addAppend(
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      long queueNanos,
      long localNanos,
      long bytesToSpare) {
    int slot = add(first, last, earliestNanos, latestNanos, bytesToSpare);
    requestQueueNanos[slot] = queueNanos;
    requestLocalNanos[slot] = localNanos;
  }

  /**
   * Adds a commit range moved by {@code followerId}'s fetch, -1 for none or unknown; the ring grows
   * only by at most {@code bytesToSpare}.
   */
  void addCommit(
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      int followerId,
      long bytesToSpare) {
    int slot = add(first, last, earliestNanos, latestNanos, bytesToSpare);
    followers[slot] = followerId;
  }

  private int add(long first, long last, long earliestNanos, long latestNanos, long bytesToSpare) {
    int size = sizeFor(latestNanos);
    if (size > firsts.length) {
      if ((long) (size - count) * bytesPerRange() <= bytesToSpare) {
        grow(size);
      } else {
        droppedYoung++;
      }
    } else if (count == firsts.length && !expiresOldest(latestNanos)) {
      droppedYoung++; // at the capacity
    }
    int slot = next;
    firsts[slot] = first;
    lasts[slot] = last;
    earliest[slot] = earliestNanos;
    latest[slot] = latestNanos;
    next = (next + 1) % firsts.length;
    count = Math.min(count + 1, firsts.length);
    return slot;
  }

  /**
   * The slot of a range holding {@code offset}, or -1. Ranges arrive in offset order but for
   * appends whose hooks raced (a few apart at most): a binary search over the ring in arrival order
   * finds the neighbourhood, and the ranges within {@value #DISORDER} of it are checked.
   */
  int find(long offset) {
    int low = 0;
    int high = count;
    while (low < high) { // the first range, oldest first, whose last offset is at least offset
      int mid = (low + high) >>> 1;
      if (lasts[slotOf(mid)] < offset) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    for (int i = Math.max(0, low - DISORDER); i < Math.min(count, low + DISORDER + 1); i++) {
      int slot = slotOf(i);
      if (firsts[slot] <= offset && offset <= lasts[slot]) {
        return slot;
      }
    }
    return -1;
  }

  private static final int DISORDER = 4;

  /**
   * The bytes the ring grows by to take a range whose latest time is {@code latestNanos}: 0 unless
   * it is full and its oldest range is within the retention of that time.
   */
  long growthBytes(long latestNanos) {
    return (long) (sizeFor(latestNanos) - firsts.length) * bytesPerRange();
  }

  // The ring's length to take a range whose latest time is latestNanos: doubled, up to the
  // capacity, when it is full and its oldest range is to be kept.
  private int sizeFor(long latestNanos) {
    if (count < firsts.length || expiresOldest(latestNanos)) {
      return firsts.length;
    }
    return (int) Math.min(capacity, 2L * count);
  }

  // The oldest range leaves once a range newer than it by more than the retention comes.
  private boolean expiresOldest(long latestNanos) {
    return latestNanos - latest[slotOf(0)] > retentionNanos;
  }

  // Copies the full ring, oldest first (from slot next), into arrays of {@code size}.
  private void grow(int size) {
    firsts = unrolled(firsts, size);
    lasts = unrolled(lasts, size);
    earliest = unrolled(earliest, size);
    latest = unrolled(latest, size);
    if (followers != null) {
      int[] grown = new int[size];
      int tail = followers.length - next;
      System.arraycopy(followers, next, grown, 0, tail);
      System.arraycopy(followers, 0, grown, tail, next);
      followers = grown;
    } else {
      requestQueueNanos = unrolled(requestQueueNanos, size);
      requestLocalNanos = unrolled(requestLocalNanos, size);
    }
    next = count;
  }

  private long[] unrolled(long[] ring, int size) {
    if (next == 0) {
      return Arrays.copyOf(ring, size);
    }
    long[] grown = new long[size];
    int tail = ring.length - next;
    System.arraycopy(ring, next, grown, 0, tail);
    System.arraycopy(ring, 0, grown, tail, next);
    return grown;
  }

  /** Ranges overwritten while younger than the retention: the ring at its capacity or bytes. */
  long droppedYoung() {
    return droppedYoung;
  }

  /** The index, oldest first, of the first range whose latest time is at least {@code nanos}. */
  int firstAtOrAfter(long nanos) {
    int low = 0;
    int high = count;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (latest[slotOf(mid)] < nanos) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  int size() {
    return count;
  }

  /**
   * The bytes its arrays hold, by their lengths: 32 a range, and 16 more for an append's request
   * times or 4 for a commit's follower, plus the arrays' headers.
   */
  long bytes() {
    return (long) firsts.length * bytesPerRange() + ARRAY_HEADERS_BYTES;
  }

  /** 32 bytes a range, and 16 more for an append's request times or 4 for a commit's follower. */
  int bytesPerRange() {
    return 32 + (followers != null ? 4 : 16);
  }

  // Five arrays of 16 bytes of header, and the object's own 40.
  private static final int ARRAY_HEADERS_BYTES = 5 * 16 + 40;

  // The slot of the i-th range, oldest first.
  int slotOf(int i) {
    return count < firsts.length ? i : (next + i) % firsts.length;
  }

  long middle(int slot) {
    return earliest[slot] + (latest[slot] - earliest[slot]) / 2;
  }

  long width(int slot) {
    return latest[slot] - earliest[slot];
  }

  long first(int slot) {
    return firsts[slot];
  }

  long earliest(int slot) {
    return earliest[slot];
  }

  long latest(int slot) {
    return latest[slot];
  }

  /** A commit range's follower, -1 for none or unknown. */
  int follower(int slot) {
    return followers[slot];
  }

  /** An append range's request queue time, -1 when unknown. */
  long requestQueueNanos(int slot) {
    return requestQueueNanos[slot];
  }

  /** An append range's time from the request queue to the append, -1 when unknown. */
  long requestLocalNanos(int slot) {
    return requestLocalNanos[slot];
  }
}

package dev.klat.collector.correlate.probe;

import java.util.Arrays;

/**
 * One leader term's ranges of one kind, appends or commits, as {@link ProbeTimelines} keeps them: a
 * ring in arrival order, the oldest overwritten when full. Append ranges carry their produce
 * request's times, commit ranges their follower; each ring holds only the arrays of its kind, since
 * a term holds up to {@code capacity} ranges of each and the collector holds many terms. Not
 * thread-safe: confined to the {@link ProbeTimelines}' lock.
 */
final class ProbeRanges {
  private final int capacity;
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

  private ProbeRanges(int capacity, boolean appends) {
    this.capacity = capacity;
    if (appends) {
      requestQueueNanos = new long[4];
      requestLocalNanos = new long[4];
    } else {
      followers = new int[4];
    }
  }

  /** A ring of append ranges, each with its produce request's times. */
  static ProbeRanges appends(int capacity) {
    return new ProbeRanges(capacity, true);
  }

  /** A ring of commit ranges, each with its follower. */
  static ProbeRanges commits(int capacity) {
    return new ProbeRanges(capacity, false);
  }

  /** Adds an append range; the request times are -1 when unknown. */
  void addAppend(
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      long queueNanos,
      long localNanos) {
    int slot = add(first, last, earliestNanos, latestNanos);
    requestQueueNanos[slot] = queueNanos;
    requestLocalNanos[slot] = localNanos;
  }

  /** Adds a commit range moved by {@code followerId}'s fetch, -1 for none or unknown. */
  void addCommit(long first, long last, long earliestNanos, long latestNanos, int followerId) {
    int slot = add(first, last, earliestNanos, latestNanos);
    followers[slot] = followerId;
  }

  private int add(long first, long last, long earliestNanos, long latestNanos) {
    if (count == firsts.length && count < capacity) {
      int size = Math.min(capacity, count * 2);
      firsts = Arrays.copyOf(firsts, size);
      lasts = Arrays.copyOf(lasts, size);
      earliest = Arrays.copyOf(earliest, size);
      latest = Arrays.copyOf(latest, size);
      if (followers != null) {
        followers = Arrays.copyOf(followers, size);
      } else {
        requestQueueNanos = Arrays.copyOf(requestQueueNanos, size);
        requestLocalNanos = Arrays.copyOf(requestLocalNanos, size);
      }
      next = count;
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
    int perRange = 32 + (followers != null ? 4 : 16);
    return (long) firsts.length * perRange + ARRAY_HEADERS_BYTES;
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

package dev.klat.probe;

import dev.klat.model.BrokerProbeWire;

/**
 * The offset ranges of one kind (appends or commits) of one partition since the last export, each
 * with its time. Ranges that follow each other without a gap within one resolution tick become one
 * range that keeps its earliest and latest time, so that a busy partition sends at most one range
 * per tick however many batches it appends, and the collector knows how far apart the joined
 * batches were. A commit range also keeps the follower whose fetch advanced the high watermark, and
 * ranges of different followers are never joined. An append range keeps the request times of the
 * produce request that appended it (the longest of each among the batches it joins). Bounded:
 * beyond {@code maxRanges} new ranges are dropped and counted. The exporter thread only.
 */
final class RangeList {

  private final int maxRanges;
  private final long resolutionMicros;
  // Empty until the first range: most partitions a broker holds are idle.
  private long[] firsts = EMPTY;
  private long[] lasts = EMPTY;
  private long[] micros = EMPTY;
  private long[] earliestMicros = EMPTY;
  private int[] followers = EMPTY_INTS;
  // Microseconds as ints (up to 35 minutes; longer reads as the most): half the memory of longs
  // for ranges that are mostly well under a second.
  private int[] queueMicros = EMPTY_INTS;
  private int[] localMicros = EMPTY_INTS;
  private int count;
  // Ranges with a follower since the last export: none on a single-replica partition.
  private int withFollower;
  // Ranges whose request times are known since the last export.
  private int withRequest;

  private static final long[] EMPTY = new long[0];
  private static final int[] EMPTY_INTS = new int[0];

  private final boolean keepsFollowers;

  /** A list of append ranges, each with its request's times and no follower. */
  RangeList(int maxRanges, long resolutionMicros) {
    this(maxRanges, resolutionMicros, false);
  }

  /**
   * @param keepsFollowers whether the ranges are commits, each with its follower (an int more per
   *     range)
   */
  RangeList(int maxRanges, long resolutionMicros, boolean keepsFollowers) {
    this.maxRanges = maxRanges;
    this.resolutionMicros = resolutionMicros;
    this.keepsFollowers = keepsFollowers;
  }

  /** Adds a range; false when the list is full and the range was dropped. */
  boolean add(long first, long last, long timeMicros) {
    return add(first, last, timeMicros, BrokerProbeWire.NO_FOLLOWER);
  }

  /**
   * Adds an append range with the times of the produce request that appended it ({@link
   * BrokerProbeWire#UNKNOWN_MICROS} where unknown); false when dropped.
   */
  boolean addAppend(
      long first, long last, long timeMicros, long requestQueueMicros, long requestLocalMicros) {
    if (!add(first, last, timeMicros, BrokerProbeWire.NO_FOLLOWER)) {
      return false;
    }
    int range = count - 1;
    boolean known = queueMicros[range] >= 0 || localMicros[range] >= 0;
    queueMicros[range] = Math.max(queueMicros[range], asInt(requestQueueMicros));
    localMicros[range] = Math.max(localMicros[range], asInt(requestLocalMicros));
    if (!known && (queueMicros[range] >= 0 || localMicros[range] >= 0)) {
      withRequest++;
    }
    return true;
  }

  /**
   * Adds a commit range that the fetch of follower {@code followerId} ({@link
   * BrokerProbeWire#NO_FOLLOWER} for none) moved the high watermark over; false when dropped.
   */
  boolean add(long first, long last, long timeMicros, int followerId) {
    if (count > 0) {
      int previous = count - 1;
      if (first == lasts[previous] + 1
          && (!keepsFollowers || followers[previous] == followerId)
          && sameTick(micros[previous], timeMicros)) {
        lasts[previous] = last;
        micros[previous] = Math.max(micros[previous], timeMicros);
        earliestMicros[previous] = Math.min(earliestMicros[previous], timeMicros);
        return true;
      }
    }
    if (count == maxRanges) {
      return false;
    }
    if (count == firsts.length) {
      int size = Math.min(maxRanges, Math.max(4, count * 2));
      firsts = java.util.Arrays.copyOf(firsts, size);
      lasts = java.util.Arrays.copyOf(lasts, size);
      micros = java.util.Arrays.copyOf(micros, size);
      earliestMicros = java.util.Arrays.copyOf(earliestMicros, size);
      if (keepsFollowers) {
        followers = java.util.Arrays.copyOf(followers, size);
      } else {
        queueMicros = java.util.Arrays.copyOf(queueMicros, size);
        localMicros = java.util.Arrays.copyOf(localMicros, size);
      }
    }
    if (keepsFollowers) {
      followers[count] = followerId;
      if (followerId != BrokerProbeWire.NO_FOLLOWER) {
        withFollower++;
      }
    } else {
      queueMicros[count] = (int) BrokerProbeWire.UNKNOWN_MICROS;
      localMicros[count] = (int) BrokerProbeWire.UNKNOWN_MICROS;
    }
    firsts[count] = first;
    lasts[count] = last;
    micros[count] = timeMicros;
    earliestMicros[count] = timeMicros;
    count++;
    return true;
  }

  private static int asInt(long micros) {
    return (int) Math.max(BrokerProbeWire.UNKNOWN_MICROS, Math.min(micros, Integer.MAX_VALUE));
  }

  private boolean sameTick(long a, long b) {
    return resolutionMicros > 0 && a / resolutionMicros == b / resolutionMicros;
  }

  boolean isEmpty() {
    return count == 0;
  }

  int size() {
    return count;
  }

  /** Ranges the arrays have room for now. */
  int capacity() {
    return firsts.length;
  }

  /**
   * The followers of the ranges ({@link BrokerProbeWire#encodeFollower}), one per range in order,
   * or null when no range has one; call before {@link #drainPacked}.
   */
  byte[] packedFollowers() {
    if (withFollower == 0) {
      return null;
    }
    byte[] out = new byte[count * BrokerProbeWire.MAX_FOLLOWER_BYTES];
    int position = 0;
    for (int i = 0; i < count; i++) {
      position = BrokerProbeWire.encodeFollower(out, position, followers[i]);
    }
    return java.util.Arrays.copyOf(out, position);
  }

  /**
   * The request times of the append ranges ({@link BrokerProbeWire#encodeRequest}), one pair per
   * range in order, or null when no range's request is known; call before {@link #drainPacked}.
   */
  byte[] packedRequests() {
    if (withRequest == 0) {
      return null;
    }
    byte[] out = new byte[count * BrokerProbeWire.MAX_REQUEST_BYTES];
    int position = 0;
    for (int i = 0; i < count; i++) {
      position = BrokerProbeWire.encodeRequest(out, position, queueMicros[i], localMicros[i]);
    }
    return java.util.Arrays.copyOf(out, position);
  }

  /** Packs the ranges ({@link BrokerProbeWire#encodeRange}) and empties the list. */
  byte[] drainPacked() {
    byte[] out = new byte[count * BrokerProbeWire.MAX_RANGE_BYTES];
    int position = 0;
    long previousLast = 0;
    long previousMicros = 0;
    for (int i = 0; i < count; i++) {
      position =
          BrokerProbeWire.encodeRange(
              out,
              position,
              previousLast,
              previousMicros,
              firsts[i],
              lasts[i],
              earliestMicros[i],
              micros[i]);
      previousLast = lasts[i];
      previousMicros = micros[i];
    }
    count = 0;
    withFollower = 0;
    withRequest = 0;
    if (firsts.length > KEPT_CAPACITY) {
      // A burst's arrays are not kept for the rest of the broker's life: a partition between
      // exports holds at most KEPT_CAPACITY ranges' worth.
      firsts = EMPTY;
      lasts = EMPTY;
      micros = EMPTY;
      earliestMicros = EMPTY;
      followers = EMPTY_INTS;
      queueMicros = EMPTY_INTS;
      localMicros = EMPTY_INTS;
    }
    return java.util.Arrays.copyOf(out, position);
  }

  /** Ranges whose arrays a list keeps between exports, {@value}. */
  static final int KEPT_CAPACITY = 8;
}

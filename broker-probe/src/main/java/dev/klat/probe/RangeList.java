package dev.klat.probe;

import dev.klat.model.BrokerProbeWire;

/**
 * The offset ranges of one kind (appends or commits) of one partition since the last export, each
 * with its time. Ranges that follow each other without a gap within one resolution tick become one
 * range that keeps its earliest and latest time, so that a busy partition sends at most one range
 * per tick however many batches it appends, and the collector knows how far apart the joined
 * batches were. Bounded: beyond {@code maxRanges} new ranges are dropped and counted. The exporter
 * thread only.
 */
final class RangeList {

  private final int maxRanges;
  private final long resolutionMicros;
  // Empty until the first range: most partitions a broker holds are idle.
  private long[] firsts = EMPTY;
  private long[] lasts = EMPTY;
  private long[] micros = EMPTY;
  private long[] earliestMicros = EMPTY;
  private int count;

  private static final long[] EMPTY = new long[0];

  RangeList(int maxRanges, long resolutionMicros) {
    this.maxRanges = maxRanges;
    this.resolutionMicros = resolutionMicros;
  }

  /** Adds a range; false when the list is full and the range was dropped. */
  boolean add(long first, long last, long timeMicros) {
    if (count > 0) {
      int previous = count - 1;
      if (first == lasts[previous] + 1 && sameTick(micros[previous], timeMicros)) {
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
    }
    firsts[count] = first;
    lasts[count] = last;
    micros[count] = timeMicros;
    earliestMicros[count] = timeMicros;
    count++;
    return true;
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
    if (firsts.length > KEPT_CAPACITY) {
      // A burst's arrays are not kept for the rest of the broker's life: a partition between
      // exports holds at most KEPT_CAPACITY ranges' worth.
      firsts = EMPTY;
      lasts = EMPTY;
      micros = EMPTY;
      earliestMicros = EMPTY;
    }
    return java.util.Arrays.copyOf(out, position);
  }

  /** Ranges whose arrays a list keeps between exports, {@value}. */
  static final int KEPT_CAPACITY = 8;
}

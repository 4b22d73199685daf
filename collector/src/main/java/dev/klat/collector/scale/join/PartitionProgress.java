package dev.klat.collector.scale.join;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One span partition a join member owns: where it read, when, and the breakdowns it completed that
 * wait for the commit that marks them counted. Not thread-safe: the member guards it.
 */
final class PartitionProgress {
  // One mark per poll that read this partition, at most one per MARK_SPACING: the first offset
  // read then. Marks older than the join window are dropped, so at most window / spacing stay.
  private static final long MARK_SPACING_NANOS = 100_000_000L;

  private final long replayBelowOffset;
  private final ArrayDeque<long[]> readMarks = new ArrayDeque<>();
  private List<Pending> pending = new ArrayList<>();
  private long nextOffset = -1;

  /**
   * @param replayBelowOffset the previous owner's {@link ReplayMarker}: a join completed by a span
   *     below it was counted already; -1 when there was none
   */
  PartitionProgress(long replayBelowOffset) {
    this.replayBelowOffset = replayBelowOffset;
  }

  long replayBelowOffset() {
    return replayBelowOffset;
  }

  void read(long offset, long nowNanos) {
    long[] last = readMarks.peekLast();
    if (last == null || nowNanos - last[0] >= MARK_SPACING_NANOS) {
      readMarks.addLast(new long[] {nowNanos, offset});
    }
    nextOffset = offset + 1;
  }

  /** The next offset to read, or -1 before the first record. */
  long nextOffset() {
    return nextOffset;
  }

  /**
   * The offset to commit: the first one read within the join window (a span read since may still
   * wait for a partner), else the next to read; never past {@code joinedBelowOffset}.
   */
  long commitOffset(long nowNanos, long windowNanos, long joinedBelowOffset) {
    while (!readMarks.isEmpty() && nowNanos - readMarks.peekFirst()[0] > windowNanos) {
      readMarks.removeFirst();
    }
    long offset = readMarks.isEmpty() ? nextOffset : readMarks.peekFirst()[1];
    return Math.min(offset, joinedBelowOffset);
  }

  void hold(JoinedBreakdown breakdown, long sourceOffset) {
    pending.add(new Pending(breakdown, sourceOffset));
  }

  int held() {
    return pending.size();
  }

  /** Takes out the held breakdowns completed by a span below {@code joinedBelowOffset}. */
  List<JoinedBreakdown> release(long joinedBelowOffset) {
    List<JoinedBreakdown> out = new ArrayList<>();
    List<Pending> kept = new ArrayList<>();
    for (Pending p : pending) {
      if (p.sourceOffset < joinedBelowOffset) {
        out.add(p.breakdown);
      } else {
        kept.add(p);
      }
    }
    pending = kept;
    return out;
  }

  private record Pending(JoinedBreakdown breakdown, long sourceOffset) {}
}

package dev.klat.probe;

import java.util.HashMap;
import java.util.Map;

/**
 * Turns the drained events into per-partition ranges (the exporter thread only). An append event is
 * a range as it is. A high-watermark event says only where the high watermark is now; the range it
 * committed starts where the previous event of the same leader term left it, so the first advance
 * the probe sees in a term (after a start or a leader change) only sets that start, and an advance
 * older than the latest (two threads racing to report) is ignored; the event's {@code first} is the
 * follower whose fetch moved the high watermark. A leader epoch change hands the old term's ranges
 * to the sink first, so that no range is ever reported under another term.
 *
 * <p>The last stable offset travels in each high-watermark event. A partition whose last stable
 * offset never lagged its high watermark (no transaction) keeps one offset and sends nothing more;
 * from the first event where it lagged, the partition keeps a third range list, of the offsets the
 * last stable offset passed, built as the commit ranges are, and every term says from which offset
 * on its stable ranges are complete ({@code stableFrom}): below it, the last stable offset moved
 * with the high watermark.
 */
final class PartitionTimelines implements EventRing.Sink {

  /** Receives a partition's ranges of one leader term. */
  interface Sink {
    /**
     * @param stables the offsets the last stable offset passed, or null for a partition whose last
     *     stable offset never lagged its high watermark
     * @param stableFrom the offset from which this term's stable ranges are complete, or -1 when
     *     not known yet ({@code stables} null, or no event of the term yet)
     */
    void ranges(
        Object topicPartition,
        int leaderEpoch,
        RangeList appends,
        RangeList commits,
        RangeList stables,
        long stableFrom);
  }

  private final int maxPartitions;
  private final int maxRangesPerPartition;
  private final long resolutionMicros;
  private final Map<Object, Timeline> timelines = new HashMap<>();
  private Sink sink;
  private long dropped;

  PartitionTimelines(int maxPartitions, int maxRangesPerPartition, long resolutionMicros) {
    this.maxPartitions = maxPartitions;
    this.maxRangesPerPartition = maxRangesPerPartition;
    this.resolutionMicros = resolutionMicros;
  }

  /** Where a term's ranges go when its epoch ends mid-interval; set before each drain. */
  void sinkForEpochChanges(Sink epochChanges) {
    this.sink = epochChanges;
  }

  @Override
  public void event(
      byte kind,
      Object partition,
      int leaderEpoch,
      long first,
      long last,
      long epochNanos,
      long requestTimes) {
    Timeline timeline = timelines.get(partition);
    if (timeline == null) {
      if (timelines.size() >= maxPartitions) {
        dropped++;
        return;
      }
      timeline = new Timeline(leaderEpoch);
      timelines.put(partition, timeline);
    } else if (timeline.leaderEpoch != leaderEpoch) {
      if (leaderEpoch < timeline.leaderEpoch) {
        // A late event of an earlier term: its range could not be told apart from the new term's.
        dropped++;
        return;
      }
      flush(partition, timeline, sink);
      timeline.newTerm(leaderEpoch);
    }
    long micros = epochNanos / 1000;
    if (kind == EventRing.APPEND) {
      if (!timeline.appends.addAppend(
          first,
          last,
          micros,
          RequestTimes.queueMicros(requestTimes),
          RequestTimes.localMicros(requestTimes))) {
        dropped++;
      }
      return;
    }
    if (timeline.highWatermark < 0) {
      if (timeline.everyAdvanceSeen
          && last > 0
          && !timeline.commits.add(0, last - 1, micros, (int) first)) {
        dropped++;
      }
      timeline.highWatermark = last;
    } else if (last > timeline.highWatermark) {
      if (!timeline.commits.add(timeline.highWatermark, last - 1, micros, (int) first)) {
        dropped++;
      }
      timeline.highWatermark = last;
    } else {
      // An advance older than the latest: its last stable offset is older too.
      return;
    }
    stable(timeline, Math.min(requestTimes, last), micros);
  }

  // The last stable offset of a high-watermark event (EventRing.NO_STABLE_OFFSET when unread).
  private void stable(Timeline timeline, long stableOffset, long micros) {
    if (stableOffset < 0) {
      timeline.stableOffset = -1;
      return;
    }
    if (timeline.stables == null) {
      if (stableOffset >= timeline.highWatermark) {
        timeline.stableOffset = stableOffset;
        return; // no transaction wait so far: nothing to keep but the offset
      }
      timeline.stables = new RangeList(maxRangesPerPartition, resolutionMicros);
    }
    if (timeline.stableFrom < 0) {
      // Below the previous event's last stable offset (equal to its high watermark, or this
      // partition would have lagged earlier) every offset became stable with the high watermark.
      timeline.stableFrom =
          timeline.stableOffset >= 0 ? Math.min(timeline.stableOffset, stableOffset) : stableOffset;
      timeline.stableOffset = timeline.stableFrom;
    }
    if (timeline.stableOffset >= 0 && stableOffset > timeline.stableOffset) {
      if (!timeline.stables.add(timeline.stableOffset, stableOffset - 1, micros)) {
        dropped++;
      }
    }
    if (timeline.stableOffset < 0 || stableOffset > timeline.stableOffset) {
      timeline.stableOffset = stableOffset;
    }
  }

  /**
   * Hands every partition's pending ranges to {@code out}. Partitions stay, quiet or not, so that a
   * partition written once a minute still has the high watermark its next advance starts from;
   * {@code maxPartitions} bounds them.
   */
  void flushAll(Sink out) {
    for (Map.Entry<Object, Timeline> entry : timelines.entrySet()) {
      flush(entry.getKey(), entry.getValue(), out);
    }
  }

  private static void flush(Object partition, Timeline timeline, Sink out) {
    if (!timeline.isEmpty() && out != null) {
      out.ranges(
          partition,
          timeline.leaderEpoch,
          timeline.appends,
          timeline.commits,
          timeline.stables,
          timeline.stableFrom);
    }
  }

  /**
   * Events were lost before reaching the timelines (the ring was full): a high-watermark advance
   * may be among them, so every partition's next advance only sets where its following range
   * starts, rather than claim offsets a lost advance committed earlier.
   */
  void forgetHighWatermarks() {
    for (Timeline timeline : timelines.values()) {
      timeline.highWatermark = -1;
      timeline.everyAdvanceSeen = false;
      timeline.stableOffset = -1;
    }
  }

  /** Events dropped since start: past the partition limit, a full range list, a stale term. */
  long dropped() {
    return dropped;
  }

  int partitions() {
    return timelines.size();
  }

  private final class Timeline {
    int leaderEpoch;
    long highWatermark = -1;
    // Whether every advance of this term went through the hook and reached this timeline.
    boolean everyAdvanceSeen = true;
    final RangeList appends = new RangeList(maxRangesPerPartition, resolutionMicros);
    final RangeList commits = new RangeList(maxRangesPerPartition, resolutionMicros, true);
    // The last stable offset at the latest event, -1 when unknown (a new term, lost events).
    long stableOffset = -1;
    // Null until the last stable offset first lags the high watermark; kept across terms after.
    RangeList stables;
    // The offset of this term from which every advance of the last stable offset is in stables.
    long stableFrom = -1;

    Timeline(int leaderEpoch) {
      this.leaderEpoch = leaderEpoch;
    }

    void newTerm(int epoch) {
      leaderEpoch = epoch;
      highWatermark = -1;
      everyAdvanceSeen = true;
      stableOffset = -1;
      stableFrom = -1;
    }

    boolean isEmpty() {
      return appends.isEmpty() && commits.isEmpty() && (stables == null || stables.isEmpty());
    }
  }
}

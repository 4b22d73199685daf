package dev.klat.collector.aggregate;

import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last hour (by default) of the page's two charts, kept on the server so that the page shows
 * the past when it opens: every interval, the summary of that interval's breakdowns (end-to-end
 * quantiles and the p99 tail's mean per segment) of all topics together and of each busy topic and
 * consumer group pair, in one ring per pair. Memory is fixed per pair (about 90 bytes a point) and
 * the pairs are bounded; the least recently active pair leaves first. Thread-safe: one sampler
 * writes, HTTP threads read.
 */
public final class BreakdownHistory {
  // The keys of Summary.tailMeanNanos, in its order.
  private static final String[] MEAN_IDS = meanIds();
  private static final List<String> ALL = Arrays.asList(null, null);

  /**
   * One interval's summary.
   *
   * @param endEpochMillis the end of the interval, wall clock
   * @param count breakdowns joined in the interval, at least 1
   * @param p50Nanos the end-to-end median
   * @param p99Nanos the end-to-end p99
   * @param p999Nanos the end-to-end p99.9
   * @param tailMeanNanos as {@link RecentBreakdowns.Summary#tailMeanNanos()}: per segment id (and
   *     "publish+commit") the mean over the p99 tail, or null when no record of the tail knows it
   */
  public record Point(
      long endEpochMillis,
      int count,
      long p50Nanos,
      long p99Nanos,
      long p999Nanos,
      Map<String, Double> tailMeanNanos) {}

  private final RecentBreakdowns recent;
  private final long intervalNanos;
  private final int pointsPerPair;
  private final int maxPairs;
  // Insertion order is activity order: a pair is moved to the end when it gets a point, so the
  // first entry is the least recently active. The "all" ring is kept apart and never evicted.
  private final LinkedHashMap<List<String>, Ring> pairs = new LinkedHashMap<>();
  private final Ring all;

  /**
   * @param recent where the breakdowns are read from
   * @param intervalNanos the time between two samples, and the window each point summarises
   * @param retentionNanos how far back points are kept, at least one interval
   * @param maxPairs the most topic and group pairs kept, besides all of them together
   */
  public BreakdownHistory(
      RecentBreakdowns recent, long intervalNanos, long retentionNanos, int maxPairs) {
    if (intervalNanos <= 0 || retentionNanos < intervalNanos || maxPairs <= 0) {
      throw new IllegalArgumentException(
          "needs an interval > 0, a retention of at least one interval and maxPairs > 0");
    }
    this.recent = recent;
    this.intervalNanos = intervalNanos;
    this.pointsPerPair = Math.toIntExact(retentionNanos / intervalNanos);
    this.maxPairs = maxPairs;
    this.all = new Ring(pointsPerPair);
  }

  /** The time between two points, which is also the window each point summarises. */
  public long intervalNanos() {
    return intervalNanos;
  }

  /** How many points each pair keeps. */
  public int pointsPerPair() {
    return pointsPerPair;
  }

  /**
   * Adds a point for every pair with breakdowns joined in the interval that ends now, the busiest
   * {@code maxPairs} only, and one for all of them together. Called once per interval.
   *
   * @param nowNanos the monotonic clock {@link RecentBreakdowns} was fed with
   * @param nowEpochMillis the wall clock, the end of the interval the points carry
   */
  public void sample(long nowNanos, long nowEpochMillis) {
    // Read outside the lock: summarising scans every recent breakdown, and readers need not wait.
    RecentBreakdowns.Summary total = recent.summarise(null, null, intervalNanos, nowNanos);
    Map<List<String>, RecentBreakdowns.Summary> active = new LinkedHashMap<>();
    if (total.count() > 0) {
      for (TopicGroup pair : recent.busiestPairs(intervalNanos, nowNanos, maxPairs)) {
        active.put(
            List.of(pair.topic(), pair.group()),
            recent.summarise(pair.topic(), pair.group(), intervalNanos, nowNanos));
      }
    }
    synchronized (this) {
      all.add(total, nowEpochMillis);
      // Least active first, so the busiest pair ends up most recently active.
      List<List<String>> order = new ArrayList<>(active.keySet());
      for (int i = order.size() - 1; i >= 0; i--) {
        List<String> key = order.get(i);
        ringOf(key).add(active.get(key), nowEpochMillis);
      }
    }
  }

  private Ring ringOf(List<String> key) {
    Ring ring = pairs.remove(key);
    if (ring == null && pairs.size() >= maxPairs) {
      Iterator<Ring> eldest = pairs.values().iterator();
      ring = eldest.next();
      eldest.remove();
      ring.clear();
    }
    if (ring == null) {
      ring = new Ring(pointsPerPair);
    }
    pairs.put(key, ring);
    return ring;
  }

  /**
   * The points of a pair, oldest first, that end after {@code sinceEpochMillis}; empty for a pair
   * not kept.
   *
   * @param topic a topic, or null with a null group for all topics and groups together
   * @param group a consumer group, or null with a null topic
   */
  public synchronized List<Point> points(String topic, String group, long sinceEpochMillis) {
    List<String> key = Arrays.asList(topic, group);
    Ring ring = key.equals(ALL) ? all : pairs.get(key);
    return ring == null ? List.of() : ring.since(sinceEpochMillis);
  }

  /** A fixed ring of points, its arrays allocated once. Guarded by the history's lock. */
  private static final class Ring {
    private final long[] endEpochMillis;
    private final int[] counts;
    // p50, p99, p99.9 per point.
    private final long[] e2eNanos;
    // MEAN_IDS.length per point; NaN where the summary had null.
    private final double[] meanNanos;
    private long written;

    Ring(int capacity) {
      endEpochMillis = new long[capacity];
      counts = new int[capacity];
      e2eNanos = new long[3 * capacity];
      meanNanos = new double[MEAN_IDS.length * capacity];
    }

    void add(RecentBreakdowns.Summary s, long nowEpochMillis) {
      // An interval without breakdowns leaves a gap, which the page draws as one.
      if (s.count() == 0) {
        return;
      }
      int slot = (int) (written++ % counts.length);
      endEpochMillis[slot] = nowEpochMillis;
      counts[slot] = s.count();
      e2eNanos[3 * slot] = s.p50Nanos();
      e2eNanos[3 * slot + 1] = s.p99Nanos();
      e2eNanos[3 * slot + 2] = s.p999Nanos();
      for (int m = 0; m < MEAN_IDS.length; m++) {
        Double mean = s.tailMeanNanos().get(MEAN_IDS[m]);
        meanNanos[slot * MEAN_IDS.length + m] = mean == null ? Double.NaN : mean;
      }
    }

    void clear() {
      written = 0;
    }

    List<Point> since(long sinceEpochMillis) {
      int size = (int) Math.min(written, counts.length);
      List<Point> out = new ArrayList<>(size);
      for (long i = written - size; i < written; i++) {
        int slot = (int) (i % counts.length);
        if (endEpochMillis[slot] <= sinceEpochMillis) {
          continue;
        }
        Map<String, Double> means = new LinkedHashMap<>();
        for (int m = 0; m < MEAN_IDS.length; m++) {
          double v = meanNanos[slot * MEAN_IDS.length + m];
          means.put(MEAN_IDS[m], Double.isNaN(v) ? null : v);
        }
        out.add(
            new Point(
                endEpochMillis[slot],
                counts[slot],
                e2eNanos[3 * slot],
                e2eNanos[3 * slot + 1],
                e2eNanos[3 * slot + 2],
                means));
      }
      return out;
    }
  }

  private static String[] meanIds() {
    String[] ids = new String[Segment.values().length + 1];
    for (Segment s : Segment.values()) {
      ids[s.ordinal()] = s.id();
    }
    ids[ids.length - 1] = "publish+commit";
    return ids;
  }
}

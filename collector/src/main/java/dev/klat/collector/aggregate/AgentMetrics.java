package dev.klat.collector.aggregate;

import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Merges the metrics every agent instance sends (section 6 of the latency model: every-record
 * histograms and counters) into one series per metric and label set, across instances.
 *
 * <p>Only metrics named in {@link MetricDef} are kept, with only the labels it defines. Each
 * instance's stream (instance, metric, labels) keeps its last cumulative point; a merged series is
 * the sum of its streams plus what streams contributed before they were reset or retired. A stream
 * is reset when its start time changes or its count goes down (an agent restarted): its last point
 * moves into the retired part, so a merged counter or histogram never goes backwards. Delta points
 * are added directly. A gauge takes the most recent point of any instance.
 *
 * <p>At most {@code maxStreams} streams are kept; the least recently updated is retired first, and
 * gauges not updated for {@code gaugeStaleNanos} disappear. Labels come from the wire, so they are
 * capped too: at most {@code maxTopicGroups} topic and group (or client id) pairs get series of
 * their own, further pairs are folded into {@value #OTHER} (counted), and a pair that no point has
 * updated for {@code gaugeStaleNanos} (collector clock) leaves, with its series, when a new pair
 * needs its place, so that the pairs of a past deployment do not hold the cap forever. The series
 * of streams that left (retired) are at most {@code maxStreams} as well; beyond it their counts go
 * to a series whose every label is {@value #OTHER}. Thread-safe.
 */
public final class AgentMetrics {

  /** One data point from an agent, in OTLP terms. */
  public record Point(
      String name,
      Exposition.Type type,
      boolean delta,
      Map<String, String> attributes,
      String instance,
      long startNanos,
      long timeNanos,
      double value,
      double[] bounds,
      long[] bucketCounts,
      double sum) {}

  /** The label value of topics, groups and client ids beyond the caps. */
  public static final String OTHER = "_other";

  /** {@code metrics.max-topic-groups}' default, for the constructor without it. */
  public static final int DEFAULT_MAX_TOPIC_GROUPS = 1_000;

  // The labels that name who a series is about; every other label (partition, reason, instant)
  // takes few values per pair.
  private static final List<String> PAIR_LABELS =
      List.of(TagKeys.TOPIC, TagKeys.GROUP, TagKeys.CLIENT_ID);

  private final int maxStreams;
  private final long gaugeStaleNanos;
  private final int maxTopicGroups;
  private final LongSupplier nowNanos;
  // Access order: the eldest pair is the least recently updated; the value its last update.
  private final LinkedHashMap<List<String>, long[]> pairs = new LinkedHashMap<>(16, 0.75f, true);
  private long pointsFolded;
  private long pairsExpired;
  private long seriesFolded;
  private final Map<String, MetricDef> defs = new HashMap<>();
  // Access order: the eldest stream is the least recently updated.
  private final LinkedHashMap<StreamKey, Stream> streams = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<SeriesKey, Accumulated> retired = new HashMap<>();
  private long ignoredPoints;
  private long resets;

  public AgentMetrics(int maxStreams, long gaugeStaleNanos) {
    this(maxStreams, gaugeStaleNanos, DEFAULT_MAX_TOPIC_GROUPS, System::nanoTime);
  }

  /**
   * @param maxStreams instance streams kept ({@code metrics.max-streams}), and retired series
   * @param gaugeStaleNanos how long a gauge, or a pair, lives without a point
   * @param maxTopicGroups topic and group pairs with series of their own ({@code
   *     metrics.max-topic-groups})
   * @param nowNanos the collector's monotonic clock, to age pairs (points carry the agents' clock)
   */
  public AgentMetrics(
      int maxStreams, long gaugeStaleNanos, int maxTopicGroups, LongSupplier nowNanos) {
    this.maxStreams = maxStreams;
    this.gaugeStaleNanos = gaugeStaleNanos;
    this.maxTopicGroups = maxTopicGroups;
    this.nowNanos = nowNanos;
    for (MetricDef def : MetricDef.all()) {
      defs.put(def.name(), def);
    }
  }

  /**
   * What a join member that took an agent's metrics over from another (see {@link #handOver}) knows
   * of what the other counted.
   *
   * @param countedThroughNanos the other counted the agent's cumulative points up to this time (its
   *     points' clock): a point no later is where this member's count starts, not counted
   * @param startedBeforeEpochNanos when the other's count is unknown: a stream first seen here
   *     whose agent started before this counts only what it adds from its first point on
   */
  public record TakeOver(long countedThroughNanos, long startedBeforeEpochNanos) {
    /** Nothing counted elsewhere: every point counts. */
    public static final TakeOver NONE = new TakeOver(Long.MIN_VALUE, Long.MIN_VALUE);
  }

  /** Accepts one point; returns false (and counts it) when it is not a klat metric or unusable. */
  public boolean accept(Point p) {
    return accept(p, TakeOver.NONE);
  }

  /**
   * Accepts one point as {@link #accept(Point)} does, counting a cumulative stream only from where
   * another join member stopped counting it.
   */
  public synchronized boolean accept(Point p, TakeOver takeOver) {
    MetricDef def = defs.get(p.name());
    if (def == null || !matches(def, p.type())) {
      ignoredPoints++;
      return false;
    }
    boolean histogram = p.type() == Exposition.Type.HISTOGRAM;
    long[] folded = histogram ? Buckets.fold(p.bounds(), p.bucketCounts()) : null;
    if (histogram) {
      if (folded == null) {
        ignoredPoints++;
        return false;
      }
    }
    SeriesKey series = new SeriesKey(def.name(), admitted(labels(def, p.attributes())));
    Accumulated value =
        new Accumulated(folded, p.type() == Exposition.Type.HISTOGRAM ? p.sum() : p.value());
    if (p.delta() && p.type() != Exposition.Type.GAUGE) {
      retiredFor(series, histogram).add(value);
      return true;
    }
    StreamKey key = new StreamKey(p.instance(), series);
    Stream stream = streams.get(key);
    boolean cumulative = p.type() != Exposition.Type.GAUGE;
    if (cumulative && p.timeNanos() <= takeOver.countedThroughNanos()) {
      // Counted by the member this stream came from: the count here starts at this point.
      Accumulated base = retiredFor(series, histogram);
      if (stream == null) {
        streams.put(key, new Stream(p.startNanos(), p.timeNanos(), value));
        evictIfFull();
      } else {
        base.add(stream.last);
        stream.replace(p.startNanos(), p.timeNanos(), value);
      }
      base.subtract(value);
      return true;
    }
    if (stream == null) {
      if (cumulative && p.startNanos() < takeOver.startedBeforeEpochNanos()) {
        retiredFor(series, histogram).subtract(value);
      }
      streams.put(key, new Stream(p.startNanos(), p.timeNanos(), value));
      evictIfFull();
      return true;
    }
    if (p.type() == Exposition.Type.GAUGE) {
      if (p.timeNanos() >= stream.timeNanos) {
        stream.replace(p.startNanos(), p.timeNanos(), value);
      }
      return true;
    }
    // A retried request can deliver an older point after a newer one: neither an older point of
    // the same stream nor one from before its last restart may replace what is there.
    if (p.startNanos() < stream.startNanos
        || (p.startNanos() == stream.startNanos && p.timeNanos() < stream.timeNanos)) {
      return true;
    }
    boolean restarted = p.startNanos() != stream.startNanos || value.total() < stream.last.total();
    if (restarted) {
      resets++;
      retiredFor(series, histogram).add(stream.last);
      stream.replace(p.startNanos(), p.timeNanos(), value);
    } else if (p.timeNanos() >= stream.timeNanos) {
      stream.replace(p.startNanos(), p.timeNanos(), value);
    }
    return true;
  }

  /**
   * Hands the streams of the instances {@code handedOver} selects to another join member: their
   * last values stay in this collector's series (counters never go back), their gauges leave, and
   * later points of theirs are counted by the member that takes them over.
   */
  public synchronized void handOver(Predicate<String> handedOver) {
    for (Iterator<Map.Entry<StreamKey, Stream>> it = streams.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<StreamKey, Stream> e = it.next();
      if (!handedOver.test(e.getKey().instance())) {
        continue;
      }
      it.remove();
      Accumulated last = e.getValue().last;
      if (last.counts != null
          || defs.get(e.getKey().series().name()).instrument() == MetricDef.Instrument.COUNTER) {
        retiredFor(e.getKey().series(), last.counts != null).add(last);
      }
    }
  }

  /** Counts of points that were not klat metrics, and of detected stream resets. */
  public synchronized long[] counts() {
    return new long[] {ignoredPoints, resets};
  }

  /**
   * What the label caps did since start: points folded into {@value #OTHER} because {@code
   * maxTopicGroups} pairs were live, pairs that left after {@code gaugeStaleNanos} without a point,
   * and retired series folded because {@code maxStreams} were kept.
   */
  public synchronized long[] labelCounts() {
    return new long[] {pointsFolded, pairsExpired, seriesFolded};
  }

  // The labels as kept: those of an admitted pair, else the pair's labels folded into OTHER.
  private Map<String, String> admitted(Map<String, String> labels) {
    List<String> pair = new ArrayList<>(PAIR_LABELS.size());
    boolean named = false;
    for (String key : PAIR_LABELS) {
      String value = labels.get(key);
      pair.add(value == null ? "" : value);
      named |= value != null;
    }
    if (!named) {
      return labels;
    }
    long now = nowNanos.getAsLong();
    long[] seen = pairs.get(pair);
    if (seen != null) {
      seen[0] = now;
      return labels;
    }
    if (pairs.size() >= maxTopicGroups) {
      Map.Entry<List<String>, long[]> eldest = pairs.entrySet().iterator().next();
      if (now - eldest.getValue()[0] <= gaugeStaleNanos) {
        pointsFolded++;
        Map<String, String> folded = new TreeMap<>(labels);
        for (String key : PAIR_LABELS) {
          folded.computeIfPresent(key, (k, v) -> OTHER);
        }
        folded.remove(TagKeys.PARTITION);
        return folded;
      }
      pairs.remove(eldest.getKey());
      forget(eldest.getKey());
      pairsExpired++;
    }
    pairs.put(pair, new long[] {now});
    return labels;
  }

  // Drops every stream and retired series of a pair that left.
  private void forget(List<String> pair) {
    streams.keySet().removeIf(k -> pairOf(k.series().labels()).equals(pair));
    retired.keySet().removeIf(k -> pairOf(k.labels()).equals(pair));
  }

  private static List<String> pairOf(Map<String, String> labels) {
    List<String> pair = new ArrayList<>(PAIR_LABELS.size());
    for (String key : PAIR_LABELS) {
      pair.add(labels.getOrDefault(key, ""));
    }
    return pair;
  }

  // The retired part of a series; beyond maxStreams of them, new ones share one all-OTHER series.
  private Accumulated retiredFor(SeriesKey series, boolean histogram) {
    Accumulated value = retired.get(series);
    if (value != null) {
      return value;
    }
    SeriesKey key = series;
    if (retired.size() >= maxStreams) {
      seriesFolded++;
      Map<String, String> folded = new TreeMap<>();
      series.labels().forEach((k, v) -> folded.put(k, OTHER));
      key = new SeriesKey(series.name(), folded);
    }
    return retired.computeIfAbsent(key, k -> Accumulated.empty(histogram));
  }

  /**
   * Returns the merged series of one metric.
   *
   * @param def the metric
   * @param nowNanos the time of the points' clock (epoch nanoseconds), to drop stale gauges
   * @return labels to merged value (histograms: counts in {@link Buckets} layout)
   */
  public synchronized Map<Map<String, String>, Accumulated> merged(MetricDef def, long nowNanos) {
    Map<Map<String, String>, Accumulated> out = new LinkedHashMap<>();
    boolean histogram = def.instrument() == MetricDef.Instrument.HISTOGRAM;
    if (def.instrument() == MetricDef.Instrument.GAUGE) {
      Map<Map<String, String>, Long> newest = new HashMap<>();
      for (Iterator<Map.Entry<StreamKey, Stream>> it = streams.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<StreamKey, Stream> e = it.next();
        if (!e.getKey().series().name().equals(def.name())) {
          continue;
        }
        Stream s = e.getValue();
        if (nowNanos - s.timeNanos > gaugeStaleNanos) {
          continue;
        }
        Map<String, String> labels = e.getKey().series().labels();
        Long seen = newest.get(labels);
        if (seen == null || s.timeNanos > seen) {
          newest.put(labels, s.timeNanos);
          out.put(labels, s.last);
        }
      }
      return out;
    }
    for (Map.Entry<SeriesKey, Accumulated> e : retired.entrySet()) {
      if (e.getKey().name().equals(def.name())) {
        out.computeIfAbsent(e.getKey().labels(), k -> Accumulated.empty(histogram))
            .add(e.getValue());
      }
    }
    for (Map.Entry<StreamKey, Stream> e : streams.entrySet()) {
      SeriesKey series = e.getKey().series();
      if (series.name().equals(def.name())) {
        out.computeIfAbsent(series.labels(), k -> Accumulated.empty(histogram))
            .add(e.getValue().last);
      }
    }
    return out;
  }

  /** Returns how many instance streams are kept. */
  public synchronized int streamCount() {
    return streams.size();
  }

  private void evictIfFull() {
    while (streams.size() > maxStreams) {
      Iterator<Map.Entry<StreamKey, Stream>> it = streams.entrySet().iterator();
      Map.Entry<StreamKey, Stream> eldest = it.next();
      it.remove();
      Accumulated last = eldest.getValue().last;
      if (last.counts != null
          || defs.get(eldest.getKey().series().name()).instrument()
              == MetricDef.Instrument.COUNTER) {
        retiredFor(eldest.getKey().series(), last.counts != null).add(last);
      }
    }
  }

  private static boolean matches(MetricDef def, Exposition.Type type) {
    return switch (def.instrument()) {
      case HISTOGRAM -> type == Exposition.Type.HISTOGRAM;
      case COUNTER -> type == Exposition.Type.COUNTER;
      case GAUGE -> type == Exposition.Type.GAUGE;
    };
  }

  private static Map<String, String> labels(MetricDef def, Map<String, String> attributes) {
    // Sorted by the definition's order, so that the same label set always has the same key.
    Map<String, String> out = new TreeMap<>();
    for (String key : def.tagKeys()) {
      String v = attributes.get(key);
      if (v != null) {
        out.put(key, v);
      }
    }
    return out;
  }

  /** A merged value: a histogram's counts and sum in seconds, or a counter's or gauge's value. */
  public static final class Accumulated {
    final long[] counts;
    double value;

    Accumulated(long[] counts, double value) {
      this.counts = counts;
      this.value = value;
    }

    static Accumulated empty(boolean histogram) {
      return new Accumulated(histogram ? new long[Buckets.count()] : null, 0);
    }

    void subtract(Accumulated other) {
      if (counts != null && other.counts != null) {
        for (int i = 0; i < counts.length; i++) {
          counts[i] -= other.counts[i];
        }
      }
      value -= other.value;
    }

    void add(Accumulated other) {
      if (counts != null && other.counts != null) {
        for (int i = 0; i < counts.length; i++) {
          counts[i] += other.counts[i];
        }
      }
      value += other.value;
    }

    double total() {
      if (counts == null) {
        return value;
      }
      long total = 0;
      for (long c : counts) {
        total += c;
      }
      return total;
    }

    /** A histogram's counts per bucket, a copy; null for counters and gauges. */
    public long[] counts() {
      return counts == null ? null : counts.clone();
    }

    /** A histogram's sum in seconds, or a counter's or gauge's value. */
    public double value() {
      return value;
    }
  }

  private record SeriesKey(String name, Map<String, String> labels) {}

  private record StreamKey(String instance, SeriesKey series) {}

  private static final class Stream {
    long startNanos;
    long timeNanos;
    Accumulated last;

    Stream(long startNanos, long timeNanos, Accumulated last) {
      this.startNanos = startNanos;
      this.timeNanos = timeNanos;
      this.last = last;
    }

    void replace(long startNanos, long timeNanos, Accumulated value) {
      this.startNanos = startNanos;
      this.timeNanos = timeNanos;
      this.last = value;
    }
  }
}

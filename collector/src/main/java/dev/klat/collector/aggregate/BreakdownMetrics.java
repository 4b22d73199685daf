package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.JoinedBreakdown;
import dev.klat.model.Breakdown;
import dev.klat.model.Segment;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The collector's own histograms of joined breakdowns: one per topic, group, segment and segment
 * quality, each bucket keeping the most recent breakdown that fell in it as its exemplar; and, per
 * topic and group, exemplars for the end-to-end histogram merged from the agents. At most {@code
 * maxTopicGroups} topic and group pairs get their own series; the rest are folded into {@value
 * #OTHER}. Thread-safe.
 */
public final class BreakdownMetrics {
  /** The topic and group of series beyond the limit. */
  public static final String OTHER = "_other";

  private final int maxTopicGroups;
  private final LongSupplier epochMillis;
  private final Map<List<String>, Histogram> segments = new LinkedHashMap<>();
  private final Map<List<String>, Exemplars> e2eExemplars = new HashMap<>();
  private long overflow;

  public BreakdownMetrics(int maxTopicGroups, LongSupplier epochMillis) {
    this.maxTopicGroups = maxTopicGroups;
    this.epochMillis = epochMillis;
  }

  /** Records one breakdown. */
  public synchronized void record(JoinedBreakdown joined) {
    String topic = joined.key().topic();
    String group = joined.group();
    List<String> topicGroup = List.of(topic, group);
    if (!e2eExemplars.containsKey(topicGroup) && e2eExemplars.size() >= maxTopicGroups) {
      overflow++;
      topic = OTHER;
      group = OTHER;
      topicGroup = List.of(topic, group);
    }
    long now = epochMillis.getAsLong();
    String traceId = joined.hasTraceId() ? joined.traceIdHex() : null;
    Breakdown b = joined.breakdown();
    e2eExemplars
        .computeIfAbsent(topicGroup, k -> new Exemplars())
        .offer(b.e2eNanos(), traceId, now);
    for (Segment segment : Segment.values()) {
      if (!b.isKnown(segment)) {
        continue;
      }
      List<String> key = List.of(topic, group, segment.id(), b.quality(segment).id());
      segments.computeIfAbsent(key, k -> new Histogram()).record(b.nanos(segment), traceId, now);
    }
  }

  /** How many breakdowns were folded into {@value #OTHER}. */
  public synchronized long overflow() {
    return overflow;
  }

  /** The segment histograms, labelled topic, group, segment and quality. */
  public synchronized List<Exposition.Series> segmentSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, Histogram> e : segments.entrySet()) {
      List<String> k = e.getKey();
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.TOPIC, k.get(0));
      labels.put(TagKeys.GROUP, k.get(1));
      labels.put(TagKeys.SEGMENT, k.get(2));
      labels.put(TagKeys.QUALITY, k.get(3));
      Histogram h = e.getValue();
      out.add(
          new Exposition.Series(labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
    }
    return out;
  }

  /** The end-to-end exemplars of a topic and group, or null; indexed by {@link Buckets} bucket. */
  public synchronized Exposition.Exemplar[] e2eExemplars(String topic, String group) {
    Exemplars e = e2eExemplars.get(List.of(topic, group));
    return e == null ? null : e.copy();
  }

  private static final class Histogram {
    final long[] counts = new long[Buckets.count()];
    final Exemplars exemplars = new Exemplars();
    // Nanoseconds: exact, and a long holds 292 years of latency.
    long sumNanos;

    void record(long nanos, String traceId, long epochMillis) {
      int bucket = Buckets.indexOfNanos(nanos);
      counts[bucket]++;
      sumNanos += nanos;
      exemplars.set(bucket, nanos, traceId, epochMillis);
    }
  }

  private static final class Exemplars {
    private Exposition.Exemplar[] byBucket;

    void offer(long nanos, String traceId, long epochMillis) {
      set(Buckets.indexOfNanos(nanos), nanos, traceId, epochMillis);
    }

    void set(int bucket, long nanos, String traceId, long epochMillis) {
      if (traceId == null) {
        return;
      }
      if (byBucket == null) {
        byBucket = new Exposition.Exemplar[Buckets.count()];
      }
      byBucket[bucket] = new Exposition.Exemplar(traceId, nanos / 1e9, epochMillis);
    }

    Exposition.Exemplar[] copy() {
      return byBucket == null ? null : byBucket.clone();
    }
  }
}

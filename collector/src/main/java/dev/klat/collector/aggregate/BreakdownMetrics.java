package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.Breakdown;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The collector's own histograms of joined breakdowns: one per topic, group, leader broker, segment
 * and segment quality, each bucket keeping the most recent breakdown that fell in it as its
 * exemplar; and, per topic and group, exemplars for the end-to-end histogram merged from the
 * agents. At most {@code maxTopicGroups} topic and group pairs get their own series; the rest are
 * folded into {@value #OTHER}. Thread-safe.
 */
public final class BreakdownMetrics {
  /** The topic and group of series beyond the limit. */
  public static final String OTHER = "_other";

  /** The broker label of breakdowns whose producer did not report the partition leader. */
  public static final String UNKNOWN_BROKER = "unknown";

  private static final Segment[] SEGMENTS = Segment.values();
  private static final Quality[] QUALITIES = Quality.values();

  private final int maxTopicGroups;
  private final LongSupplier epochMillis;
  // Per topic and group: the e2e exemplars and the histograms by segment and quality, so that a
  // breakdown costs one map lookup.
  private final Map<List<String>, TopicGroup> byTopicGroup = new LinkedHashMap<>();
  private long overflow;

  public BreakdownMetrics(int maxTopicGroups, LongSupplier epochMillis) {
    this.maxTopicGroups = maxTopicGroups;
    this.epochMillis = epochMillis;
  }

  /** Records one breakdown. */
  public synchronized void record(JoinedBreakdown joined) {
    List<String> topicGroup = List.of(joined.key().topic(), joined.group());
    TopicGroup series = byTopicGroup.get(topicGroup);
    if (series == null) {
      if (byTopicGroup.size() >= maxTopicGroups) {
        overflow++;
        topicGroup = List.of(OTHER, OTHER);
      }
      series = byTopicGroup.computeIfAbsent(topicGroup, k -> new TopicGroup());
    }
    long now = epochMillis.getAsLong();
    String traceId = joined.hasTraceId() ? joined.traceIdHex() : null;
    Breakdown b = joined.breakdown();
    series.e2e.offer(b.e2eNanos(), traceId, now);
    Histogram[] segments = series.segments(joined.leaderNodeId());
    for (Segment segment : SEGMENTS) {
      if (!b.isKnown(segment)) {
        continue;
      }
      int i = segment.ordinal() * QUALITIES.length + b.quality(segment).ordinal();
      if (segments[i] == null) {
        segments[i] = new Histogram();
      }
      segments[i].record(b.nanos(segment), traceId, now);
    }
  }

  /** How many breakdowns were folded into {@value #OTHER}. */
  public synchronized long overflow() {
    return overflow;
  }

  /** The segment histograms, labelled topic, group, segment and quality. */
  public synchronized List<Exposition.Series> segmentSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      for (Map.Entry<String, Histogram[]> byBroker : e.getValue().segmentsByBroker.entrySet()) {
        Histogram[] histograms = byBroker.getValue();
        for (int i = 0; i < histograms.length; i++) {
          Histogram h = histograms[i];
          if (h == null) {
            continue;
          }
          Map<String, String> labels = new LinkedHashMap<>();
          labels.put(TagKeys.TOPIC, e.getKey().get(0));
          labels.put(TagKeys.GROUP, e.getKey().get(1));
          labels.put(TagKeys.BROKER, byBroker.getKey());
          labels.put(TagKeys.SEGMENT, SEGMENTS[i / QUALITIES.length].id());
          labels.put(TagKeys.QUALITY, QUALITIES[i % QUALITIES.length].id());
          out.add(
              new Exposition.Series(
                  labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
        }
      }
    }
    return out;
  }

  /** The end-to-end exemplars of a topic and group, or null; indexed by {@link Buckets} bucket. */
  public synchronized Exposition.Exemplar[] e2eExemplars(String topic, String group) {
    TopicGroup series = byTopicGroup.get(List.of(topic, group));
    return series == null ? null : series.e2e.copy();
  }

  private static final class TopicGroup {
    final Exemplars e2e = new Exemplars();
    // By the leader broker's node id: publish and commit happen on the leader, and a broker's
    // series is never merged with another's. A cluster has few brokers, so this stays small.
    final Map<String, Histogram[]> segmentsByBroker = new LinkedHashMap<>();
    private int lastLeader = Integer.MIN_VALUE;
    private Histogram[] lastSegments;

    Histogram[] segments(int leaderNodeId) {
      if (leaderNodeId != lastLeader || lastSegments == null) {
        String broker = leaderNodeId >= 0 ? Integer.toString(leaderNodeId) : UNKNOWN_BROKER;
        lastSegments =
            segmentsByBroker.computeIfAbsent(
                broker, k -> new Histogram[SEGMENTS.length * QUALITIES.length]);
        lastLeader = leaderNodeId;
      }
      return lastSegments;
    }
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

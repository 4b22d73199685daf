package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareEnd;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * The collector's own histograms of joined breakdowns: one per topic, group, leader broker,
 * segment, segment quality and capture ({@code sampled}, {@code tail} or {@code opentelemetry}:
 * quantiles read the sampled ones; a record seen through an OpenTelemetry instrumentation, section
 * 10 of the latency model, adds its combined segments {@code produce+publish} and {@code
 * catch-up+fetch} and its own end-to-end histogram, {@link #opentelemetryE2eSeries()}), each bucket
 * keeping a recent breakdown that fell in it as its exemplar, a tail record in preference (a tail
 * record's value also stands as the exemplar of the sampled histogram's bucket it falls in, so that
 * a p99 bucket links to a slow record's trace); and, per topic and group, exemplars for the
 * end-to-end histogram merged from the agents, a tail record's in preference. A tail record flagged
 * by its producer alone has no group: its series' group label is empty. At most {@code
 * maxTopicGroups} topic and group pairs get their own series; the rest are folded into {@value
 * #OTHER}. The broker label is the producer's {@code klat.leader.node_id}, from the wire: at most
 * {@code maxBrokers} node ids get series of their own, further ones are folded into {@value #OTHER}
 * and counted, so that forged node ids cannot multiply the series; and the segment histograms
 * together are at most {@code maxHistograms}, as many as {@code /metrics} can show, further ones
 * folded into one all-{@value #OTHER} histogram per segment and quality. Thread-safe.
 */
public final class BreakdownMetrics {
  /** The topic and group of series beyond the limit. */
  public static final String OTHER = "_other";

  /** The broker label of breakdowns whose producer did not report the partition leader. */
  public static final String UNKNOWN_BROKER = "unknown";

  // The node id that labels as OTHER: below -1, which means unknown.
  private static final int FOLDED_BROKER = -2;

  private static final Segment[] SEGMENTS = Segment.values();
  private static final Quality[] QUALITIES = Quality.values();
  private static final Capture[] CAPTURES = Capture.values();
  private static final ShareEnd[] SHARE_ENDS = ShareEnd.values();
  // The combined segments of records seen through an OpenTelemetry instrumentation (section 10):
  // columns after the five segments.
  private static final CombinedSegment[] COMBINED = CombinedSegment.values();
  private static final int COLUMNS = SEGMENTS.length + COMBINED.length;
  // Histograms per topic, group and broker: one per capture, segment (or combined segment) and
  // quality.
  private static final int PER_CAPTURE = COLUMNS * QUALITIES.length;

  /**
   * How long a tail record's exemplar holds its bucket against newer sampled records: long enough
   * for a dashboard refresh to find it, short enough that the bucket's exemplar stays recent.
   */
  static final long TAIL_EXEMPLAR_HOLD_MILLIS = 60_000;

  /** The least text of one histogram series in {@code /metrics}: 137 bucket lines of 60 bytes. */
  static final int HISTOGRAM_TEXT_BYTES = 8 * 1024;

  /** {@code metrics.max-brokers}' default, for the constructor without it. */
  public static final int DEFAULT_MAX_BROKERS = 64;

  private final int maxTopicGroups;
  private final int maxBrokers;
  private final int maxHistograms;
  private final IntPredicate knownBroker;
  private int histograms;
  private long histogramsFolded;
  private final LongSupplier epochMillis;
  // The node ids not vouched for by discovery with series of their own, first come: without
  // discovery a real cluster's brokers lead from the start, and a forged one cannot push them out.
  private final Set<Integer> brokers = new HashSet<>();
  private long brokersFolded;
  // Per topic and group: the e2e exemplars and the histograms by segment and quality, so that a
  // breakdown costs one map lookup.
  private final Map<List<String>, TopicGroup> byTopicGroup = new LinkedHashMap<>();
  private long overflow;

  public BreakdownMetrics(int maxTopicGroups, LongSupplier epochMillis) {
    this(maxTopicGroups, DEFAULT_MAX_BROKERS, maxHistogramsFor(32 << 20), id -> false, epochMillis);
  }

  /**
   * The segment histograms {@code /metrics} can show within {@code maxBytes}: a histogram series is
   * at least {@value #HISTOGRAM_TEXT_BYTES} bytes of text (its 137 bucket lines), so more could
   * only be dropped from the answer.
   */
  public static int maxHistogramsFor(int maxBytes) {
    return Math.max(1, maxBytes / HISTOGRAM_TEXT_BYTES);
  }

  /**
   * @param maxTopicGroups topic and group pairs with series of their own
   * @param maxBrokers leader node ids with series of their own ({@code metrics.max-brokers}),
   *     besides those {@code knownBroker} vouches for
   * @param maxHistograms segment histograms held together (each about 1 KB of counts and up to 14
   *     KB of exemplars); further ones go to one all-{@value #OTHER} histogram per segment and
   *     quality, counted
   * @param knownBroker whether a node id is a broker the collector knows (listed or discovered):
   *     its series are its own whatever the cap; must not block
   * @param epochMillis the wall clock of exemplars
   */
  public BreakdownMetrics(
      int maxTopicGroups,
      int maxBrokers,
      int maxHistograms,
      IntPredicate knownBroker,
      LongSupplier epochMillis) {
    this.maxTopicGroups = maxTopicGroups;
    this.maxBrokers = maxBrokers;
    this.maxHistograms = maxHistograms;
    this.knownBroker = knownBroker;
    this.epochMillis = epochMillis;
  }

  /** Records one breakdown. */
  public synchronized void record(JoinedBreakdown joined) {
    // A producer-only tail record has no group (section 8 of the latency model).
    String group = joined.group() == null ? "" : joined.group();
    List<String> topicGroup = List.of(joined.key().topic(), group);
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
    Capture capture = joined.capture() == null ? Capture.SAMPLED : joined.capture();
    boolean tail = capture == Capture.TAIL;
    boolean otel = capture == Capture.OPENTELEMETRY;
    if (b.isEndToEndKnown() && otel) {
      // Section 10: records an instrumentation's sampler chose; their own series, never the
      // agents' every-record histogram's exemplars.
      if (series.otelE2e == null && histograms < maxHistograms) {
        series.otelE2e = new Histogram();
        histograms++;
      }
      Histogram h = series.otelE2e;
      if (h == null) {
        histogramsFolded++;
        TopicGroup all = byTopicGroup.computeIfAbsent(List.of(OTHER, OTHER), k -> new TopicGroup());
        h = all.otelE2e == null ? (all.otelE2e = new Histogram()) : all.otelE2e;
      }
      h.record(b.e2eNanos(), traceId, now, false);
    } else if (b.isEndToEndKnown()) {
      series.e2e.offer(b.e2eNanos(), traceId, now, tail);
    }
    if (capture == Capture.SAMPLED && b.instants().hasVisible()) {
      // Section 9: read_committed reading a transactional record; one histogram per topic and
      // group, within the same cap.
      if (series.transactionWait == null) {
        series.transactionWait = new Histogram();
      }
      series.transactionWait.record(b.transactionWaitNanos(), traceId, now, false);
    }
    if (joined.share() != null) {
      recordShare(series, joined.share(), traceId, now);
    }
    Histogram[] segments = series.segments(brokerLabel(joined.leaderNodeId()));
    int captureBase = capture.ordinal() * PER_CAPTURE;
    for (Segment segment : SEGMENTS) {
      if (!b.isKnown(segment)) {
        continue;
      }
      int quality = segment.ordinal() * QUALITIES.length + b.quality(segment).ordinal();
      observe(segments, captureBase + quality, b.nanos(segment), traceId, now, tail);
      Histogram sampled = tail ? segments[Capture.SAMPLED.ordinal() * PER_CAPTURE + quality] : null;
      if (sampled != null) {
        // Not counted there: the sampled histogram's counts stay unbiased; its bucket links to
        // the slow record instead.
        sampled.exemplars.offer(b.nanos(segment), traceId, now, true);
      }
    }
    if (!otel) {
      return;
    }
    for (CombinedSegment combined : COMBINED) {
      long nanos = combined.nanos(b);
      if (nanos < 0) {
        continue;
      }
      int column = SEGMENTS.length + combined.ordinal();
      int quality = column * QUALITIES.length + combined.quality(b).ordinal();
      observe(segments, captureBase + quality, nanos, traceId, now, false);
    }
  }

  // Section 11: a share group's record, its earlier deliveries by cause and its redelivery part;
  // the series share the pair's cap, and the causes are ShareEnd's fixed few.
  private static void recordShare(TopicGroup series, ShareRecord share, String traceId, long now) {
    series.shareRecords++;
    if (series.redeliveries == null) {
      series.redeliveries = new long[SHARE_ENDS.length];
    }
    for (Map.Entry<ShareEnd, Integer> e : share.earlierEnds().entrySet()) {
      series.redeliveries[e.getKey().ordinal()] += e.getValue();
    }
    if (share.deliveryCount() > 1 && share.redeliveryKnown()) {
      if (series.redelivery == null) {
        series.redelivery = new Histogram();
      }
      series.redelivery.record(share.redeliveryNanos(), traceId, now, false);
    }
  }

  // Into histogram i of the series, or its folded one once maxHistograms are held.
  private void observe(
      Histogram[] segments, int i, long nanos, String traceId, long now, boolean tail) {
    Histogram h = segments[i];
    if (h == null && histograms < maxHistograms) {
      h = segments[i] = new Histogram();
      histograms++;
    } else if (h == null) {
      histogramsFolded++;
      h = folded(i);
    }
    h.record(nanos, traceId, now, tail);
  }

  // The histogram of all-OTHER labels for segment and quality i: at most one per i, uncounted.
  private Histogram folded(int i) {
    Histogram[] all =
        byTopicGroup
            .computeIfAbsent(List.of(OTHER, OTHER), k -> new TopicGroup())
            .segments(FOLDED_BROKER);
    if (all[i] == null) {
      all[i] = new Histogram();
    }
    return all[i];
  }

  /**
   * How many breakdowns went to an all-{@value #OTHER} segment histogram because {@code
   * maxHistograms} were held.
   */
  public synchronized long histogramsFolded() {
    return histogramsFolded;
  }

  // The node id as labelled: itself while admitted, else FOLDED_BROKER; -1 (unknown) stays.
  private int brokerLabel(int leaderNodeId) {
    if (leaderNodeId < 0 || brokers.contains(leaderNodeId) || knownBroker.test(leaderNodeId)) {
      return leaderNodeId;
    }
    if (brokers.size() < maxBrokers) {
      brokers.add(leaderNodeId);
      return leaderNodeId;
    }
    brokersFolded++;
    return FOLDED_BROKER;
  }

  /** How many breakdowns had their leader's node id folded into {@value #OTHER}. */
  public synchronized long brokersFolded() {
    return brokersFolded;
  }

  /** How many breakdowns were folded into {@value #OTHER}. */
  public synchronized long overflow() {
    return overflow;
  }

  /** The segment histograms, labelled topic, group, broker, segment, quality and capture. */
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
          labels.put(TagKeys.SEGMENT, columnId(i % PER_CAPTURE / QUALITIES.length));
          labels.put(TagKeys.QUALITY, QUALITIES[i % QUALITIES.length].id());
          labels.put(TagKeys.CAPTURE, CAPTURES[i / PER_CAPTURE].id());
          out.add(
              new Exposition.Series(
                  labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
        }
      }
    }
    return out;
  }

  private static String columnId(int column) {
    return column < SEGMENTS.length
        ? SEGMENTS[column].id()
        : COMBINED[column - SEGMENTS.length].id();
  }

  /**
   * The end-to-end histograms of records seen through an OpenTelemetry instrumentation (section 10
   * of the latency model), labelled topic, group and {@code capture="opentelemetry"}: served in
   * {@code klat_e2e_latency_seconds} beside the agents' every-record series, which have no {@code
   * capture} label.
   */
  public synchronized List<Exposition.Series> opentelemetryE2eSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      Histogram h = e.getValue().otelE2e;
      if (h == null) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.TOPIC, e.getKey().get(0));
      labels.put(TagKeys.GROUP, e.getKey().get(1));
      labels.put(TagKeys.CAPTURE, Capture.OPENTELEMETRY.id());
      out.add(
          new Exposition.Series(labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
    }
    return out;
  }

  /**
   * The transaction-wait histograms ({@code V - H}, section 9), labelled topic and group: only
   * pairs that had a sampled record written in a transaction and read {@code read_committed}.
   */
  public synchronized List<Exposition.Series> transactionWaitSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      Histogram h = e.getValue().transactionWait;
      if (h == null) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.TOPIC, e.getKey().get(0));
      labels.put(TagKeys.GROUP, e.getKey().get(1));
      out.add(
          new Exposition.Series(labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
    }
    return out;
  }

  /**
   * {@code klat_share_redeliveries_total}: per topic, share group and cause (section 11), the
   * earlier deliveries of the sampled records whose deliveries joined; only causes seen.
   */
  public synchronized List<Exposition.Series> shareRedeliveriesSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      long[] counts = e.getValue().redeliveries;
      if (counts == null) {
        continue;
      }
      for (ShareEnd end : SHARE_ENDS) {
        if (counts[end.ordinal()] == 0) {
          continue;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(TagKeys.TOPIC, e.getKey().get(0));
        labels.put(TagKeys.GROUP, e.getKey().get(1));
        labels.put(TagKeys.CAUSE, end.id());
        out.add(Exposition.Series.scalar(labels, counts[end.ordinal()]));
      }
    }
    return out;
  }

  /** {@code klat_share_records_total}: per topic and share group, the records joined. */
  public synchronized List<Exposition.Series> shareRecordsSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      if (e.getValue().redeliveries == null) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.TOPIC, e.getKey().get(0));
      labels.put(TagKeys.GROUP, e.getKey().get(1));
      out.add(Exposition.Series.scalar(labels, e.getValue().shareRecords));
    }
    return out;
  }

  /** {@code klat_share_redelivery_seconds}: per topic and share group, the redelivery part. */
  public synchronized List<Exposition.Series> shareRedeliverySeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<List<String>, TopicGroup> e : byTopicGroup.entrySet()) {
      Histogram h = e.getValue().redelivery;
      if (h == null) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.TOPIC, e.getKey().get(0));
      labels.put(TagKeys.GROUP, e.getKey().get(1));
      out.add(
          new Exposition.Series(labels, 0, h.counts.clone(), h.sumNanos / 1e9, h.exemplars.copy()));
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
    // V - H of read_committed groups reading transactional records; null until the first.
    Histogram transactionWait;
    // P - S of records seen through an OpenTelemetry instrumentation; null until the first.
    Histogram otelE2e;
    // Section 11, for a share group: its records, earlier deliveries by ShareEnd ordinal (null
    // until its first record) and the redelivery part (null until the first known).
    long shareRecords;
    long[] redeliveries;
    Histogram redelivery;
    // By the leader broker's node id: publish and commit happen on the leader, and a broker's
    // series is never merged with another's. A cluster has few brokers, so this stays small.
    final Map<String, Histogram[]> segmentsByBroker = new LinkedHashMap<>();
    private int lastLeader = Integer.MIN_VALUE;
    private Histogram[] lastSegments;

    Histogram[] segments(int leaderNodeId) {
      if (leaderNodeId != lastLeader || lastSegments == null) {
        String broker =
            leaderNodeId == FOLDED_BROKER
                ? OTHER
                : leaderNodeId >= 0 ? Integer.toString(leaderNodeId) : UNKNOWN_BROKER;
        lastSegments =
            segmentsByBroker.computeIfAbsent(
                broker, k -> new Histogram[CAPTURES.length * PER_CAPTURE]);
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

    void record(long nanos, String traceId, long epochMillis, boolean tail) {
      int bucket = Buckets.indexOfNanos(nanos);
      counts[bucket]++;
      sumNanos += nanos;
      exemplars.set(bucket, nanos, traceId, epochMillis, tail);
    }
  }

  private static final class Exemplars {
    private Exposition.Exemplar[] byBucket;
    // Per bucket: whether its exemplar is a tail record's.
    private boolean[] tail;

    void offer(long nanos, String traceId, long epochMillis, boolean fromTail) {
      set(Buckets.indexOfNanos(nanos), nanos, traceId, epochMillis, fromTail);
    }

    // The newest record in the bucket, but a sampled one does not replace a tail record's
    // exemplar younger than TAIL_EXEMPLAR_HOLD_MILLIS: the bucket links to the slow record.
    void set(int bucket, long nanos, String traceId, long epochMillis, boolean fromTail) {
      if (traceId == null) {
        return;
      }
      if (byBucket == null) {
        byBucket = new Exposition.Exemplar[Buckets.count()];
        tail = new boolean[Buckets.count()];
      }
      Exposition.Exemplar held = byBucket[bucket];
      if (!fromTail
          && held != null
          && tail[bucket]
          && epochMillis - held.epochMillis() < TAIL_EXEMPLAR_HOLD_MILLIS) {
        return;
      }
      byBucket[bucket] = new Exposition.Exemplar(traceId, nanos / 1e9, epochMillis);
      tail[bucket] = fromTail;
    }

    Exposition.Exemplar[] copy() {
      return byBucket == null ? null : byBucket.clone();
    }
  }
}

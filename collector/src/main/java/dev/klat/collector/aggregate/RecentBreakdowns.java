package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.model.Breakdown;
import dev.klat.model.Instants;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The most recent breakdowns, of all topics and groups together, in a ring of fixed capacity, so
 * that {@code /api/breakdown} can compute exact quantiles and the tail's segments over a time
 * window, the diagnosis can read the tail's evidence, and {@code /api/slowest} can list the slowest
 * records. Memory is fixed at start: about 176 bytes per slot, plus the evidence records the spans
 * carried. Thread-safe.
 */
public final class RecentBreakdowns {
  private static final int SEGMENTS = Segment.values().length;
  private static final Quality[] QUALITIES = Quality.values();
  // Per slot, after the five segments: publish+commit (D to H, known where L is not), and the
  // fetch round trip R - F (the whole fetch segment of a consumer that asked after the commit).
  private static final int PUBLISH_AND_COMMIT = SEGMENTS;
  private static final int FETCH_ROUND_TRIP = SEGMENTS + 1;
  private static final int COLUMNS = SEGMENTS + 2;
  private static final String[] COLUMN_IDS = columnIds();

  private final int capacity;
  private final long[] timeNanos;
  private final long[] e2eNanos;
  // COLUMNS values per slot; -1 for an unknown segment.
  private final long[] segmentNanos;
  private final String[] topics;
  private final String[] groups;
  // Bit s set: segment s was flagged (clock uncertainty above its value); bit SEGMENTS: e2e.
  private final byte[] flagged;
  // COLUMNS per slot: the Quality ordinal of each value.
  private final byte[] qualities;
  // Per slot, for the diagnosis: D (epoch), max(0, F - H) and P - R (-1 unknown); the leader and
  // the follower that committed the record; the produce request's queue and local times (probe,
  // -1 unknown); the settings the spans carried.
  private static final int DRAIN = 0;
  private static final int LAG = 1;
  private static final int BUFFERED = 2;
  private static final int DIAGNOSIS_COLUMNS = 3;
  private final long[] diagnosisNanos;
  private final int[] leaders;
  private final int[] commitFollowers;
  private final long[] requestQueueNanos;
  private final long[] requestLocalNanos;
  // Per slot, to list the slowest records: partition, offset and trace id.
  private final int[] partitions;
  private final long[] offsets;
  private final long[] traceIds;
  private final ProducerEvidence[] producerEvidence;
  private final ConsumerEvidence[] consumerEvidence;
  private long written;

  public RecentBreakdowns(int capacity) {
    this.capacity = capacity;
    this.timeNanos = new long[capacity];
    this.e2eNanos = new long[capacity];
    this.segmentNanos = new long[capacity * COLUMNS];
    this.topics = new String[capacity];
    this.groups = new String[capacity];
    this.flagged = new byte[capacity];
    this.qualities = new byte[capacity * COLUMNS];
    this.diagnosisNanos = new long[capacity * DIAGNOSIS_COLUMNS];
    this.leaders = new int[capacity];
    this.commitFollowers = new int[capacity];
    this.requestQueueNanos = new long[capacity];
    this.requestLocalNanos = new long[capacity];
    this.partitions = new int[capacity];
    this.offsets = new long[capacity];
    this.traceIds = new long[2 * capacity];
    this.producerEvidence = new ProducerEvidence[capacity];
    this.consumerEvidence = new ConsumerEvidence[capacity];
  }

  /** Adds one breakdown, joined at {@code nowNanos} (monotonic clock). */
  public synchronized void add(JoinedBreakdown joined, long nowNanos) {
    int slot = (int) (written++ % capacity);
    timeNanos[slot] = nowNanos;
    e2eNanos[slot] = joined.breakdown().e2eNanos();
    int base = slot * COLUMNS;
    for (Segment s : Segment.values()) {
      segmentNanos[base + s.ordinal()] = joined.breakdown().nanos(s);
    }
    Breakdown b = joined.breakdown();
    segmentNanos[base + PUBLISH_AND_COMMIT] = b.publishAndCommitNanos();
    segmentNanos[base + FETCH_ROUND_TRIP] =
        b.instants().nanos(TimePoint.FETCH_RESPONSE) - b.instants().nanos(TimePoint.FETCH_REQUEST);
    // Both read on the consumer's clock.
    qualities[base + FETCH_ROUND_TRIP] = (byte) Quality.EXACT.ordinal();
    for (Segment s : Segment.values()) {
      qualities[base + s.ordinal()] = (byte) b.quality(s).ordinal();
    }
    // Publish and commit together span D to H: as good as the worse of the two.
    Quality publishAndCommit =
        Quality.worst(
            b.instants().method(TimePoint.DRAIN).quality(),
            b.instants().method(TimePoint.COMMIT).quality());
    qualities[base + PUBLISH_AND_COMMIT] = (byte) publishAndCommit.ordinal();
    int bits = joined.e2eFlagged() ? 1 << SEGMENTS : 0;
    for (Segment s : joined.flagged()) {
      bits |= 1 << s.ordinal();
    }
    flagged[slot] = (byte) bits;
    topics[slot] = joined.key().topic();
    groups[slot] = joined.group();
    Instants instants = b.instants();
    int d = slot * DIAGNOSIS_COLUMNS;
    diagnosisNanos[d + DRAIN] = instants.nanos(TimePoint.DRAIN);
    long fetchRequest = instants.nanos(TimePoint.FETCH_REQUEST);
    diagnosisNanos[d + LAG] =
        instants.has(TimePoint.COMMIT)
            ? Math.max(0, fetchRequest - instants.nanos(TimePoint.COMMIT))
            : -1;
    diagnosisNanos[d + BUFFERED] =
        Math.max(0, instants.nanos(TimePoint.POLL) - instants.nanos(TimePoint.FETCH_RESPONSE));
    leaders[slot] = joined.leaderNodeId();
    commitFollowers[slot] = joined.commitFollowerId();
    requestQueueNanos[slot] = joined.requestQueueNanos();
    requestLocalNanos[slot] = joined.requestLocalNanos();
    partitions[slot] = joined.key().partition();
    offsets[slot] = joined.key().offset();
    traceIds[2 * slot] = joined.traceIdHigh();
    traceIds[2 * slot + 1] = joined.traceIdLow();
    producerEvidence[slot] =
        joined.producerEvidence() == null ? ProducerEvidence.UNKNOWN : joined.producerEvidence();
    consumerEvidence[slot] =
        joined.consumerEvidence() == null ? ConsumerEvidence.UNKNOWN : joined.consumerEvidence();
  }

  /**
   * The breakdowns of the p99 tail (end-to-end at or above the window's p99) joined since {@code
   * nowNanos - windowNanos}, and at least the {@code minRecords} slowest, for the diagnosis: at a
   * low rate the p99 tail alone is one or two records.
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   */
  public synchronized List<TailRecord> tail(
      String topic, String group, long windowNanos, long nowNanos, int minRecords) {
    int[] match = matching(topic, group, windowNanos, nowNanos);
    List<TailRecord> out = new ArrayList<>();
    if (match.length == 0) {
      return out;
    }
    long[] sorted = sortedE2e(match);
    long threshold = Math.min(rank(sorted, 0.99), sorted[Math.max(0, sorted.length - minRecords)]);
    for (int slot : match) {
      if (e2eNanos[slot] < threshold) {
        continue;
      }
      long[] segments = new long[SEGMENTS];
      System.arraycopy(segmentNanos, slot * COLUMNS, segments, 0, SEGMENTS);
      out.add(
          new TailRecord(
              diagnosisNanos[slot * DIAGNOSIS_COLUMNS + DRAIN],
              e2eNanos[slot],
              segments,
              diagnosisNanos[slot * DIAGNOSIS_COLUMNS + LAG],
              diagnosisNanos[slot * DIAGNOSIS_COLUMNS + BUFFERED],
              leaders[slot],
              commitFollowers[slot],
              requestQueueNanos[slot],
              requestLocalNanos[slot],
              producerEvidence[slot],
              consumerEvidence[slot]));
    }
    return out;
  }

  /**
   * The {@code limit} slowest breakdowns (end-to-end) joined since {@code nowNanos - windowNanos},
   * slowest first.
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   */
  public synchronized List<SlowRecord> slowest(
      String topic, String group, long windowNanos, long nowNanos, int limit) {
    Integer[] match =
        Arrays.stream(matching(topic, group, windowNanos, nowNanos))
            .boxed()
            .toArray(Integer[]::new);
    Arrays.sort(match, (a, b) -> Long.compare(e2eNanos[b], e2eNanos[a]));
    List<SlowRecord> out = new ArrayList<>();
    for (int i = 0; i < Math.min(limit, match.length); i++) {
      int slot = match[i];
      List<SlowRecord.Part> parts = new ArrayList<>(SEGMENTS);
      for (Segment s : Segment.values()) {
        int column = slot * COLUMNS + s.ordinal();
        parts.add(
            new SlowRecord.Part(
                s.id(),
                segmentNanos[column],
                QUALITIES[qualities[column]],
                (flagged[slot] & (1 << s.ordinal())) != 0));
      }
      out.add(
          new SlowRecord(
              topics[slot],
              groups[slot],
              partitions[slot],
              offsets[slot],
              e2eNanos[slot],
              parts,
              (flagged[slot] & (1 << SEGMENTS)) != 0,
              JoinedBreakdown.traceIdHex(traceIds[2 * slot], traceIds[2 * slot + 1])));
    }
    return out;
  }

  /**
   * The topic and consumer group pairs with the most breakdowns joined since {@code nowNanos -
   * windowNanos}, most first, at most {@code max}.
   */
  public synchronized List<TopicGroup> busiestPairs(long windowNanos, long nowNanos, int max) {
    Map<List<String>, Integer> counts = new java.util.HashMap<>();
    for (int slot : matching(null, null, windowNanos, nowNanos)) {
      counts.merge(List.of(topics[slot], groups[slot]), 1, Integer::sum);
    }
    return counts.entrySet().stream()
        .sorted(Map.Entry.<List<String>, Integer>comparingByValue().reversed())
        .limit(max)
        .map(e -> new TopicGroup(e.getKey().get(0), e.getKey().get(1), e.getValue()))
        .toList();
  }

  private int[] matching(String topic, String group, long windowNanos, long nowNanos) {
    int size = (int) Math.min(written, capacity);
    int[] match = new int[size];
    int n = 0;
    for (int slot = 0; slot < size; slot++) {
      if (nowNanos - timeNanos[slot] > windowNanos) {
        continue;
      }
      if ((topic != null && !topic.equals(topics[slot]))
          || (group != null && !group.equals(groups[slot]))) {
        continue;
      }
      match[n++] = slot;
    }
    return Arrays.copyOf(match, n);
  }

  private long[] sortedE2e(int[] match) {
    long[] sorted = new long[match.length];
    for (int i = 0; i < match.length; i++) {
      sorted[i] = e2eNanos[match[i]];
    }
    Arrays.sort(sorted);
    return sorted;
  }

  /**
   * The summary of the breakdowns joined within a window.
   *
   * @param count how many breakdowns
   * @param p50Nanos the end-to-end median (nearest rank), or -1 when there is none
   * @param p99Nanos the end-to-end p99
   * @param p999Nanos the end-to-end p99.9
   * @param tailCount how many breakdowns have an end-to-end latency of at least p99
   * @param tailMeanNanos per segment id (and "publish+commit"), the mean over the tail, or null
   *     when no breakdown of the tail knows the segment
   * @param tailFlagged per segment id (and "e2e"), how many breakdowns of the tail had it flagged:
   *     the clock offset uncertainty was larger than the value
   * @param segments per segment id (and "publish+commit", and "fetch-round-trip", R - F), the
   *     quantiles of that segment over every breakdown of the window that knows it
   * @param segmentQualities per segment id (and the two above), per quality id ({@code exact},
   *     {@code log-append-time}, {@code estimated}, {@code none}), how many breakdowns of the
   *     window had the segment at that quality; a segment a breakdown does not know counts as
   *     {@code none}, so each segment's counts add up to {@code count}
   */
  public record Summary(
      int count,
      long p50Nanos,
      long p99Nanos,
      long p999Nanos,
      int tailCount,
      Map<String, Double> tailMeanNanos,
      Map<String, Integer> tailFlagged,
      Map<String, SegmentQuantiles> segments,
      Map<String, Map<String, Integer>> segmentQualities) {}

  /**
   * One segment's distribution over a window, nearest rank.
   *
   * @param count breakdowns that know the segment
   * @param p50Nanos the median, or -1 when {@code count} is 0
   * @param p99Nanos the p99, or -1 when {@code count} is 0
   */
  public record SegmentQuantiles(int count, long p50Nanos, long p99Nanos) {}

  /**
   * Summarises the breakdowns joined since {@code nowNanos - windowNanos}.
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   */
  public synchronized Summary summarise(
      String topic, String group, long windowNanos, long nowNanos) {
    int[] match = matching(topic, group, windowNanos, nowNanos);
    int n = match.length;
    Map<String, Double> means = new LinkedHashMap<>();
    if (n == 0) {
      return new Summary(
          0,
          -1,
          -1,
          -1,
          0,
          means,
          new LinkedHashMap<>(),
          segmentQuantiles(match, 0),
          segmentQualities(match, 0));
    }
    long[] sorted = sortedE2e(match);
    long p50 = rank(sorted, 0.5);
    long p99 = rank(sorted, 0.99);
    long p999 = rank(sorted, 0.999);
    double[] sums = new double[SEGMENTS + 1];
    int[] known = new int[SEGMENTS + 1];
    int tail = 0;
    int[] flaggedCounts = new int[SEGMENTS + 1];
    for (int i = 0; i < n; i++) {
      int slot = match[i];
      if (e2eNanos[slot] < p99) {
        continue;
      }
      tail++;
      for (int b = 0; b <= SEGMENTS; b++) {
        if ((flagged[slot] & (1 << b)) != 0) {
          flaggedCounts[b]++;
        }
      }
      int base = slot * COLUMNS;
      for (int s = 0; s <= PUBLISH_AND_COMMIT; s++) {
        long v = segmentNanos[base + s];
        if (v >= 0) {
          sums[s] += v;
          known[s]++;
        }
      }
    }
    for (Segment s : Segment.values()) {
      means.put(s.id(), known[s.ordinal()] == 0 ? null : sums[s.ordinal()] / known[s.ordinal()]);
    }
    means.put("publish+commit", known[SEGMENTS] == 0 ? null : sums[SEGMENTS] / known[SEGMENTS]);
    Map<String, Integer> flaggedOut = new LinkedHashMap<>();
    for (Segment s : Segment.values()) {
      flaggedOut.put(s.id(), flaggedCounts[s.ordinal()]);
    }
    flaggedOut.put("e2e", flaggedCounts[SEGMENTS]);
    return new Summary(
        n,
        p50,
        p99,
        p999,
        tail,
        means,
        flaggedOut,
        segmentQuantiles(match, n),
        segmentQualities(match, n));
  }

  private Map<String, Map<String, Integer>> segmentQualities(int[] match, int n) {
    Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
    for (int s = 0; s < COLUMNS; s++) {
      int[] counts = new int[QUALITIES.length];
      for (int i = 0; i < n; i++) {
        counts[qualities[match[i] * COLUMNS + s]]++;
      }
      Map<String, Integer> byQuality = new LinkedHashMap<>();
      for (Quality q : QUALITIES) {
        byQuality.put(q.id(), counts[q.ordinal()]);
      }
      out.put(COLUMN_IDS[s], byQuality);
    }
    return out;
  }

  private Map<String, SegmentQuantiles> segmentQuantiles(int[] match, int n) {
    Map<String, SegmentQuantiles> out = new LinkedHashMap<>();
    long[] values = new long[n];
    for (int s = 0; s < COLUMNS; s++) {
      int known = 0;
      for (int i = 0; i < n; i++) {
        long v = segmentNanos[match[i] * COLUMNS + s];
        if (v >= 0) {
          values[known++] = v;
        }
      }
      Arrays.sort(values, 0, known);
      long[] sorted = Arrays.copyOf(values, known);
      out.put(
          COLUMN_IDS[s],
          known == 0
              ? new SegmentQuantiles(0, -1, -1)
              : new SegmentQuantiles(known, rank(sorted, 0.5), rank(sorted, 0.99)));
    }
    return out;
  }

  // Nearest rank: the smallest value with at least q of the values at or below it.
  private static long rank(long[] sorted, double q) {
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static String[] columnIds() {
    String[] ids = new String[COLUMNS];
    for (Segment s : Segment.values()) {
      ids[s.ordinal()] = s.id();
    }
    ids[PUBLISH_AND_COMMIT] = "publish+commit";
    ids[FETCH_ROUND_TRIP] = "fetch-round-trip";
    return ids;
  }
}

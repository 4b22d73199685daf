package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ChainContext;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.ShareEnd;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The most recent breakdowns, of all topics and groups together and of both captures, in a ring of
 * fixed capacity, so that {@code /api/breakdown} can compute exact quantiles and the tail's
 * segments over a time window (of the sampled records; the tail records are split apart), the
 * diagnosis can read the tail's evidence (the tail records and the sampled p99 tail), and {@code
 * /api/slowest} can list the slowest records. A tail record may be partial (section 8 of the
 * latency model): what it lacks is -1, like any unknown segment. Memory is fixed at start: about
 * 217 bytes per slot, plus the evidence records the spans carried. Commit's two parts (section 9:
 * replication and the transaction wait of a {@code read_committed} group reading a transactional
 * record) are kept per slot for {@link #commitParts}. Thread-safe.
 */
public final class RecentBreakdowns {
  private static final int SEGMENTS = Segment.values().length;
  private static final Quality[] QUALITIES = Quality.values();
  // Per slot, after the five segments: publish+commit (D to H, known where L is not), the fetch
  // round trip R - F (the whole fetch segment of a consumer that asked after the commit), and
  // produce+publish (S to L, known where D is not: a tail record flagged by its consumer alone).
  private static final int PUBLISH_AND_COMMIT = SEGMENTS;
  private static final int FETCH_ROUND_TRIP = SEGMENTS + 1;
  private static final int PRODUCE_AND_PUBLISH = SEGMENTS + 2;
  // catch-up+fetch (H to P, known where F and R are not: a consumer seen through an OpenTelemetry
  // instrumentation, section 10 of the latency model).
  private static final int CATCH_UP_AND_FETCH = SEGMENTS + 3;
  private static final int COLUMNS = SEGMENTS + 4;
  // The columns of the sampled summary's segments (produce+publish adds nothing to a sampled
  // record, which knows D).
  private static final int SAMPLED_COLUMNS = SEGMENTS + 2;
  // The columns of the tail's split: the five segments and the two combined ones.
  private static final int[] TAIL_COLUMNS = tailColumns();
  // The columns of the OpenTelemetry records' split: the combined segments and commit first, then
  // the segments a side with klat's agent gives apart.
  private static final int[] OPENTELEMETRY_COLUMNS = {
    PRODUCE_AND_PUBLISH,
    Segment.COMMIT.ordinal(),
    CATCH_UP_AND_FETCH,
    Segment.PRODUCE.ordinal(),
    Segment.PUBLISH.ordinal(),
    PUBLISH_AND_COMMIT,
    Segment.CATCH_UP.ordinal(),
    Segment.FETCH.ordinal()
  };

  /** The most topic and group pairs the OpenTelemetry split lists one by one. */
  public static final int MAX_OPENTELEMETRY_PAIRS = 20;

  // Which sides reported a slot's record (bits), for the tail's split.
  private static final byte PRODUCER_SIDE = 1;
  private static final byte CONSUMER_SIDE = 2;
  private static final int KLAT_SIDES = 2;
  private static final Capture[] CAPTURES = Capture.values();
  private static final String[] COLUMN_IDS = columnIds();

  private final int capacity;
  private final long[] timeNanos;
  private final long[] e2eNanos;
  // COLUMNS values per slot; -1 for an unknown segment.
  private final long[] segmentNanos;
  private final String[] topics;
  private final String[] groups;
  // Per slot: the Capture ordinal, the sides (PRODUCER_SIDE | CONSUMER_SIDE) it has, and the sides
  // whose instants came from an OpenTelemetry instrumentation's span (S, P: section 10), or,
  // shifted
  // by KLAT_SIDES, from klat's agent (D, R).
  private final byte[] captures;
  private final byte[] sides;
  private final byte[] instrumented;
  // Per slot, the Quality ordinal of the whole breakdown.
  private final byte[] overallQualities;
  // Bit s set: segment s was flagged (clock uncertainty above its value); bit SEGMENTS: e2e.
  private final byte[] flagged;
  // COLUMNS per slot: the Quality ordinal of each value.
  private final byte[] qualities;
  // Per slot, for the diagnosis: D (epoch), max(0, F - H), P - R and L (epoch: where a record
  // without D looks up its leader's request timings) (-1 unknown); the leader and the follower that
  // committed the record; the produce request's queue and local times (probe, -1 unknown); the
  // settings the spans carried.
  private static final int DRAIN = 0;
  private static final int LAG = 1;
  private static final int BUFFERED = 2;
  private static final int APPEND_EPOCH = 3;
  private static final int DIAGNOSIS_COLUMNS = 4;
  private final long[] diagnosisNanos;
  private final int[] leaders;
  private final int[] commitFollowers;
  private final long[] requestQueueNanos;
  private final long[] requestLocalNanos;
  // Per slot, V - H (section 9), -1 for a breakdown without V.
  private final long[] transactionNanos;
  // Per slot, to list the slowest records: partition, offset and trace id.
  private final int[] partitions;
  private final long[] offsets;
  private final long[] traceIds;
  private final ProducerEvidence[] producerEvidence;
  private final ConsumerEvidence[] consumerEvidence;
  // Per slot, for the pipelines (section 9 of the latency model): the spans' ids and the pair's
  // place in a chain (null for a one-sided breakdown).
  private final long[] spanIds;
  private final ChainContext[] chains;
  // Per slot, a share group's deliveries of the record (section 11); null for a consumer group.
  private final ShareRecord[] shares;
  private long written;

  public RecentBreakdowns(int capacity) {
    this.capacity = capacity;
    this.timeNanos = new long[capacity];
    this.e2eNanos = new long[capacity];
    this.segmentNanos = new long[capacity * COLUMNS];
    this.topics = new String[capacity];
    this.groups = new String[capacity];
    this.captures = new byte[capacity];
    this.sides = new byte[capacity];
    this.instrumented = new byte[capacity];
    this.overallQualities = new byte[capacity];
    this.flagged = new byte[capacity];
    this.qualities = new byte[capacity * COLUMNS];
    this.diagnosisNanos = new long[capacity * DIAGNOSIS_COLUMNS];
    this.leaders = new int[capacity];
    this.commitFollowers = new int[capacity];
    this.requestQueueNanos = new long[capacity];
    this.requestLocalNanos = new long[capacity];
    this.transactionNanos = new long[capacity];
    this.partitions = new int[capacity];
    this.offsets = new long[capacity];
    this.traceIds = new long[2 * capacity];
    this.producerEvidence = new ProducerEvidence[capacity];
    this.consumerEvidence = new ConsumerEvidence[capacity];
    this.spanIds = new long[2 * capacity];
    this.chains = new ChainContext[capacity];
    this.shares = new ShareRecord[capacity];
  }

  /** Adds one breakdown, joined at {@code nowNanos} (monotonic clock). */
  public synchronized void add(JoinedBreakdown joined, long nowNanos) {
    int slot = (int) (written++ % capacity);
    timeNanos[slot] = nowNanos;
    shares[slot] = joined.share();
    Breakdown b = joined.breakdown();
    Instants instants = b.instants();
    // A tail record may lack S or P (section 8 of the latency model): -1, like every unknown.
    e2eNanos[slot] = b.isEndToEndKnown() ? b.e2eNanos() : -1;
    int base = slot * COLUMNS;
    for (Segment s : Segment.values()) {
      segmentNanos[base + s.ordinal()] = b.isKnown(s) ? b.nanos(s) : -1;
    }
    segmentNanos[base + PUBLISH_AND_COMMIT] = Math.max(-1, b.publishAndCommitNanos());
    segmentNanos[base + FETCH_ROUND_TRIP] =
        instants.has(TimePoint.FETCH_RESPONSE) && instants.has(TimePoint.FETCH_REQUEST)
            ? instants.nanos(TimePoint.FETCH_RESPONSE) - instants.nanos(TimePoint.FETCH_REQUEST)
            : -1;
    segmentNanos[base + PRODUCE_AND_PUBLISH] = Math.max(-1, b.produceAndPublishNanos());
    segmentNanos[base + CATCH_UP_AND_FETCH] = CombinedSegment.CATCH_UP_AND_FETCH.nanos(b);
    qualities[base + CATCH_UP_AND_FETCH] =
        (byte) CombinedSegment.CATCH_UP_AND_FETCH.quality(b).ordinal();
    instrumented[slot] =
        (byte)
            ((instants.method(TimePoint.SEND) == EstimationMethod.OPENTELEMETRY_SPAN
                    ? PRODUCER_SIDE
                    : 0)
                | (instants.method(TimePoint.POLL) == EstimationMethod.OPENTELEMETRY_SPAN
                    ? CONSUMER_SIDE
                    : 0)
                | (instants.has(TimePoint.DRAIN) ? PRODUCER_SIDE << KLAT_SIDES : 0)
                | (instants.has(TimePoint.FETCH_RESPONSE) ? CONSUMER_SIDE << KLAT_SIDES : 0));
    overallQualities[slot] = (byte) b.quality().ordinal();
    captures[slot] =
        (byte) (joined.capture() == null ? Capture.SAMPLED : joined.capture()).ordinal();
    sides[slot] =
        (byte)
            ((instants.has(TimePoint.DRAIN) ? PRODUCER_SIDE : 0)
                | (joined.group() != null && instants.has(TimePoint.POLL) ? CONSUMER_SIDE : 0));
    // Both read on the consumer's clock.
    qualities[base + FETCH_ROUND_TRIP] =
        (byte) (segmentNanos[base + FETCH_ROUND_TRIP] < 0 ? Quality.NONE : Quality.EXACT).ordinal();
    for (Segment s : Segment.values()) {
      qualities[base + s.ordinal()] = (byte) b.quality(s).ordinal();
    }
    // Publish and commit together span D to H: as good as the worse of the two.
    Quality publishAndCommit =
        segmentNanos[base + PUBLISH_AND_COMMIT] < 0
            ? Quality.NONE
            : Quality.worst(
                instants.method(TimePoint.DRAIN).quality(),
                instants.method(TimePoint.COMMIT).quality());
    if (instants.hasVisible() && publishAndCommit != Quality.NONE) {
      // Section 9: it then runs to V.
      publishAndCommit = Quality.worst(publishAndCommit, instants.visibleMethod().quality());
    }
    qualities[base + PUBLISH_AND_COMMIT] = (byte) publishAndCommit.ordinal();
    // Produce and publish together span S to L.
    Quality produceAndPublish =
        segmentNanos[base + PRODUCE_AND_PUBLISH] < 0
            ? Quality.NONE
            : Quality.worst(
                instants.method(TimePoint.SEND).quality(),
                instants.method(TimePoint.APPEND).quality());
    qualities[base + PRODUCE_AND_PUBLISH] = (byte) produceAndPublish.ordinal();
    int bits = joined.e2eFlagged() ? 1 << SEGMENTS : 0;
    for (Segment s : joined.flagged()) {
      bits |= 1 << s.ordinal();
    }
    flagged[slot] = (byte) bits;
    topics[slot] = joined.key().topic();
    groups[slot] = joined.group();
    int d = slot * DIAGNOSIS_COLUMNS;
    diagnosisNanos[d + DRAIN] =
        instants.has(TimePoint.DRAIN) ? instants.nanos(TimePoint.DRAIN) : -1;
    // Section 9: a read_committed group's lag runs from V, when the record became readable.
    long readable =
        instants.hasVisible() ? instants.visibleNanos() : instants.nanos(TimePoint.COMMIT);
    diagnosisNanos[d + LAG] =
        instants.has(TimePoint.COMMIT) && instants.has(TimePoint.FETCH_REQUEST)
            ? Math.max(0, instants.nanos(TimePoint.FETCH_REQUEST) - readable)
            : -1;
    ShareRecord share = joined.share();
    if (share != null && share.deliveryCount() > 1 && diagnosisNanos[d + LAG] > 0) {
      // Section 11: the failed deliveries are not lag. The part when known; when not, the wait
      // holds it and how much is unknown, so none of it is taken for lag.
      diagnosisNanos[d + LAG] =
          share.redeliveryKnown()
              ? Math.max(
                  0,
                  b.nanos(Segment.CATCH_UP)
                      - share.redeliveryNanos()
                      - Math.max(
                          0,
                          instants.nanos(TimePoint.POLL)
                              - instants.nanos(TimePoint.FETCH_RESPONSE)))
              : 0;
    }
    transactionNanos[slot] = instants.hasVisible() ? b.transactionWaitNanos() : -1;
    diagnosisNanos[d + BUFFERED] =
        instants.has(TimePoint.POLL) && instants.has(TimePoint.FETCH_RESPONSE)
            ? Math.max(0, instants.nanos(TimePoint.POLL) - instants.nanos(TimePoint.FETCH_RESPONSE))
            : -1;
    diagnosisNanos[d + APPEND_EPOCH] =
        instants.has(TimePoint.APPEND) ? instants.nanos(TimePoint.APPEND) : -1;
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
    spanIds[2 * slot] = joined.producerSpanId();
    spanIds[2 * slot + 1] = joined.consumerSpanId();
    chains[slot] = joined.chain();
  }

  /**
   * The sampled breakdowns joined since {@code nowNanos - windowNanos} that a pipeline's chain can
   * hold (section 9 of the latency model): both sides known, with an end to end; oldest first.
   */
  public synchronized List<HopRecord> hopRecords(long windowNanos, long nowNanos) {
    int size = (int) Math.min(written, capacity);
    List<HopRecord> out = new ArrayList<>();
    // Oldest first: the slot after the newest is the oldest once the ring has wrapped.
    int start = written > capacity ? (int) (written % capacity) : 0;
    for (int i = 0; i < size; i++) {
      int slot = (start + i) % capacity;
      if (nowNanos - timeNanos[slot] > windowNanos
          || captures[slot] != Capture.SAMPLED.ordinal()
          || chains[slot] == null
          || groups[slot] == null
          || e2eNanos[slot] < 0) {
        continue;
      }
      long[] segments = new long[SAMPLED_COLUMNS];
      Quality[] quality = new Quality[SAMPLED_COLUMNS];
      for (int c = 0; c < SAMPLED_COLUMNS; c++) {
        segments[c] = segmentNanos[slot * COLUMNS + c];
        quality[c] = QUALITIES[qualities[slot * COLUMNS + c]];
      }
      out.add(
          new HopRecord(
              new RecordKey(topics[slot], partitions[slot], offsets[slot]),
              groups[slot],
              traceIds[2 * slot],
              traceIds[2 * slot + 1],
              spanIds[2 * slot],
              spanIds[2 * slot + 1],
              chains[slot],
              e2eNanos[slot],
              segments,
              quality,
              timeNanos[slot],
              Math.max(0, transactionNanos[slot])));
    }
    return out;
  }

  /** The ids of the sampled summary's segments, in column order. */
  static List<String> sampledColumnIds() {
    return List.of(Arrays.copyOf(COLUMN_IDS, SAMPLED_COLUMNS));
  }

  /**
   * The tail records the diagnosis weighs, joined since {@code nowNanos - windowNanos}: the {@link
   * Capture#TAIL} breakdowns whose end-to-end latency, or for a partial one the part it covers,
   * reaches the sampled p99 (every one when no sampled record is in the window), and the sampled
   * breakdowns of the sampled p99 tail (end-to-end at or above the sampled p99). When these are
   * fewer than {@code minRecords}, the slowest sampled breakdowns make up the difference: at a low
   * rate without tail capture the p99 tail alone is one or two records. Then, apart, the {@link
   * Capture#OPENTELEMETRY} breakdowns at or above their own p99, made up to {@code minRecords} the
   * same way (section 10 of the latency model: never weighed against the sampled p99).
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all (a producer-only tail record, which has no
   *     group, is in the answer for every group: its produce, publish and commit are those of the
   *     record every group reads)
   */
  public synchronized List<TailRecord> tail(
      String topic, String group, long windowNanos, long nowNanos, int minRecords) {
    List<TailRecord> out = new ArrayList<>();
    klatTail(topic, group, windowNanos, nowNanos, minRecords, out);
    opentelemetryTail(topic, group, windowNanos, nowNanos, minRecords, out);
    return out;
  }

  /**
   * The {@link Capture#OPENTELEMETRY} breakdowns of the window's p99 tail, by their own p99 (their
   * instrumentation's sampler chose them: section 10 of the latency model, reported apart), widened
   * to {@code minRecords} with the slowest of them. A breakdown's latency is its end to end, or the
   * part it covers.
   */
  private void opentelemetryTail(
      String topic,
      String group,
      long windowNanos,
      long nowNanos,
      int minRecords,
      List<TailRecord> out) {
    int[] match = matching(topic, group, windowNanos, nowNanos, Capture.OPENTELEMETRY);
    if (match.length == 0) {
      return;
    }
    long[] sorted = new long[match.length];
    for (int i = 0; i < match.length; i++) {
      sorted[i] = latencyNanos(match[i]);
    }
    Arrays.sort(sorted);
    long threshold = Math.min(rank(sorted, 0.99), sorted[Math.max(0, sorted.length - minRecords)]);
    for (int slot : match) {
      if (latencyNanos(slot) >= threshold) {
        out.add(tailRecord(slot));
      }
    }
  }

  // The tail records and the sampled p99 tail (klat's agents' records).
  private void klatTail(
      String topic,
      String group,
      long windowNanos,
      long nowNanos,
      int minRecords,
      List<TailRecord> out) {
    int[] sampled = matching(topic, group, windowNanos, nowNanos, Capture.SAMPLED);
    int[] tail = matching(topic, group, windowNanos, nowNanos, Capture.TAIL);
    int before = out.size();
    if (sampled.length == 0) {
      for (int slot : tail) {
        out.add(tailRecord(slot));
      }
      return;
    }
    long[] sorted = sortedE2e(sampled);
    long threshold = rank(sorted, 0.99);
    // A tail record was slow on the side that flagged it, against that side's own threshold: it is
    // in the end-to-end p99 tail only when what it covers, a lower bound of its end-to-end latency
    // (all of it when known), reaches the sampled p99. Without this, a producer's own slowest
    // records (its auto threshold flags its p99 whatever the consumers see) would be weighed as
    // the tail of a group whose tail is all catch-up, and name the producer.
    for (int slot : tail) {
      if (latencyNanos(slot) >= threshold) {
        out.add(tailRecord(slot));
      }
    }
    int wanted = minRecords - (out.size() - before);
    if (wanted > 0) {
      threshold = Math.min(threshold, sorted[Math.max(0, sorted.length - wanted)]);
    }
    for (int slot : sampled) {
      if (e2eNanos[slot] >= threshold) {
        out.add(tailRecord(slot));
      }
    }
  }

  private TailRecord tailRecord(int slot) {
    long[] segments = new long[SEGMENTS];
    System.arraycopy(segmentNanos, slot * COLUMNS, segments, 0, SEGMENTS);
    return new TailRecord(
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
        consumerEvidence[slot],
        CAPTURES[captures[slot]],
        segmentNanos[slot * COLUMNS + PUBLISH_AND_COMMIT],
        segmentNanos[slot * COLUMNS + PRODUCE_AND_PUBLISH],
        Math.max(0, transactionNanos[slot]),
        segmentNanos[slot * COLUMNS + CATCH_UP_AND_FETCH],
        diagnosisNanos[slot * DIAGNOSIS_COLUMNS + APPEND_EPOCH],
        shares[slot]);
  }

  /**
   * Commit's two parts over the sampled breakdowns joined since {@code nowNanos - windowNanos} that
   * know commit (section 9 of the latency model): replication ({@code H - L}) and the transaction
   * wait ({@code V - H}, 0 for a record without one); null when no record of the window waited for
   * its transaction, so that nothing changes where there are none.
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   */
  public synchronized CommitParts commitParts(
      String topic, String group, long windowNanos, long nowNanos) {
    int[] match = matching(topic, group, windowNanos, nowNanos, Capture.SAMPLED);
    long[] replication = new long[match.length];
    long[] transaction = new long[match.length];
    int known = 0;
    boolean waited = false;
    for (int slot : match) {
      long commit = segmentNanos[slot * COLUMNS + Segment.COMMIT.ordinal()];
      if (commit < 0) {
        continue;
      }
      long wait = Math.max(0, transactionNanos[slot]);
      waited |= wait > 0;
      transaction[known] = wait;
      replication[known++] = commit - wait;
    }
    if (!waited) {
      return null;
    }
    return new CommitParts(
        known,
        quantiles(Arrays.copyOf(replication, known)),
        quantiles(Arrays.copyOf(transaction, known)));
  }

  private static PartQuantiles quantiles(long[] values) {
    Arrays.sort(values);
    return new PartQuantiles(rank(values, 0.5), rank(values, 0.99), rank(values, 0.999));
  }

  /**
   * The window's sampled records of share groups (section 11 of the latency model), or null when it
   * has none, so that a consumer group's answer is unchanged.
   *
   * @param topic a topic, or null for all
   * @param group a share group, or null for all
   * @param slowestLimit how many of the slowest redelivered records to list
   */
  public synchronized ShareSummary share(
      String topic, String group, long windowNanos, long nowNanos, int slowestLimit) {
    int[] match = matching(topic, group, windowNanos, nowNanos, Capture.SAMPLED);
    int n = 0;
    for (int slot : match) {
      if (shares[slot] != null) {
        match[n++] = slot;
      }
    }
    if (n == 0) {
      return null;
    }
    int[] slots = Arrays.copyOf(match, n);
    long[] deliveries = new long[n];
    long[] parts = new long[n];
    int known = 0;
    int unknown = 0;
    int redelivered = 0;
    Map<String, Integer> ends = new TreeMap<>();
    long[] e2e = new long[n];
    int withE2e = 0;
    for (int i = 0; i < n; i++) {
      ShareRecord share = shares[slots[i]];
      deliveries[i] = share.deliveryCount();
      if (e2eNanos[slots[i]] >= 0) {
        e2e[withE2e++] = e2eNanos[slots[i]];
      }
      if (share.deliveryCount() <= 1) {
        continue;
      }
      redelivered++;
      addEnds(ends, share);
      if (share.redeliveryKnown()) {
        parts[known++] = share.redeliveryNanos();
      } else {
        unknown++;
      }
    }
    Arrays.sort(deliveries);
    // The p99 tail of the share group's records, as the summary takes it: at or above the p99.
    long[] sortedE2e = Arrays.copyOf(e2e, withE2e);
    Arrays.sort(sortedE2e);
    long p99 = withE2e == 0 ? Long.MAX_VALUE : rank(sortedE2e, 0.99);
    int tailRecords = 0;
    int tailRedelivered = 0;
    long tailE2eKnown = 0;
    long tailPart = 0;
    Map<String, Integer> tailEnds = new TreeMap<>();
    List<Integer> redeliveredSlots = new ArrayList<>();
    for (int slot : slots) {
      ShareRecord share = shares[slot];
      if (share.deliveryCount() > 1) {
        redeliveredSlots.add(slot);
      }
      if (e2eNanos[slot] < 0 || e2eNanos[slot] < p99) {
        continue;
      }
      tailRecords++;
      if (share.deliveryCount() > 1) {
        tailRedelivered++;
        addEnds(tailEnds, share);
      }
      if (share.redeliveryKnown()) {
        tailPart += share.redeliveryNanos();
        tailE2eKnown += e2eNanos[slot];
      }
    }
    redeliveredSlots.sort((a, b) -> Long.compare(e2eNanos[b], e2eNanos[a]));
    List<ShareSummary.Redelivered> slowest = new ArrayList<>();
    for (int slot : redeliveredSlots.subList(0, Math.min(slowestLimit, redeliveredSlots.size()))) {
      slowest.add(
          new ShareSummary.Redelivered(
              topics[slot],
              groups[slot],
              partitions[slot],
              offsets[slot],
              e2eNanos[slot],
              JoinedBreakdown.traceIdHex(traceIds[2 * slot], traceIds[2 * slot + 1]),
              shares[slot]));
    }
    return new ShareSummary(
        n,
        redelivered,
        (int) rank(deliveries, 0.5),
        (int) rank(deliveries, 0.99),
        (int) deliveries[n - 1],
        ends,
        known,
        unknown,
        known == 0 ? null : quantiles(Arrays.copyOf(parts, known)),
        tailRecords,
        tailE2eKnown == 0 ? -1 : (double) tailPart / tailE2eKnown,
        tailRedelivered,
        tailEnds,
        slowest);
  }

  private static void addEnds(Map<String, Integer> ends, ShareRecord share) {
    for (Map.Entry<ShareEnd, Integer> e : share.earlierEnds().entrySet()) {
      ends.merge(e.getKey().id(), e.getValue(), Integer::sum);
    }
  }

  /**
   * Commit's parts over a window (section 9), nearest rank.
   *
   * @param count breakdowns that know commit
   * @param replication {@code H - L}
   * @param transaction {@code V - H}
   */
  public record CommitParts(int count, PartQuantiles replication, PartQuantiles transaction) {}

  /** One part's quantiles, nearest rank, in nanoseconds. */
  public record PartQuantiles(long p50Nanos, long p99Nanos, long p999Nanos) {}

  /**
   * The {@code limit} slowest breakdowns joined since {@code nowNanos - windowNanos}, slowest
   * first: by end-to-end latency, or for a tail record that lacks it by the part it covers (its
   * known and combined segments).
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   * @param capture sampled or tail records only, or null for both
   */
  public synchronized List<SlowRecord> slowest(
      String topic, String group, Capture capture, long windowNanos, long nowNanos, int limit) {
    Integer[] match =
        Arrays.stream(matching(topic, group, windowNanos, nowNanos, capture))
            .boxed()
            .toArray(Integer[]::new);
    Arrays.sort(match, (a, b) -> Long.compare(latencyNanos(b), latencyNanos(a)));
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
      List<SlowRecord.Part> combined = new ArrayList<>(3);
      for (int column : new int[] {PUBLISH_AND_COMMIT, PRODUCE_AND_PUBLISH, CATCH_UP_AND_FETCH}) {
        combined.add(
            new SlowRecord.Part(
                COLUMN_IDS[column],
                segmentNanos[slot * COLUMNS + column],
                QUALITIES[qualities[slot * COLUMNS + column]],
                false));
      }
      out.add(
          new SlowRecord(
              topics[slot],
              groups[slot],
              partitions[slot],
              offsets[slot],
              e2eNanos[slot],
              parts,
              combined,
              (flagged[slot] & (1 << SEGMENTS)) != 0,
              JoinedBreakdown.traceIdHex(traceIds[2 * slot], traceIds[2 * slot + 1]),
              CAPTURES[captures[slot]]));
    }
    return out;
  }

  /**
   * The {@code limit} slowest breakdowns of both captures; see {@link #slowest(String, String,
   * Capture, long, long, int)}.
   */
  public List<SlowRecord> slowest(
      String topic, String group, long windowNanos, long nowNanos, int limit) {
    return slowest(topic, group, null, windowNanos, nowNanos, limit);
  }

  // What a record's latency is taken to be where one number is needed: end to end, or for a tail
  // record that lacks it, the sum of its known segments (a combined one where its parts are not).
  private long latencyNanos(int slot) {
    if (e2eNanos[slot] >= 0) {
      return e2eNanos[slot];
    }
    int base = slot * COLUMNS;
    long sum = 0;
    for (int s = 0; s < SEGMENTS; s++) {
      sum += Math.max(0, segmentNanos[base + s]);
    }
    boolean produce = segmentNanos[base + Segment.PRODUCE.ordinal()] >= 0;
    boolean publish = segmentNanos[base + Segment.PUBLISH.ordinal()] >= 0;
    boolean commit = segmentNanos[base + Segment.COMMIT.ordinal()] >= 0;
    if (!produce && !publish) {
      sum += Math.max(0, segmentNanos[base + PRODUCE_AND_PUBLISH]);
    } else if (!publish && !commit) {
      sum += Math.max(0, segmentNanos[base + PUBLISH_AND_COMMIT]);
    }
    return sum + Math.max(0, segmentNanos[base + CATCH_UP_AND_FETCH]);
  }

  /**
   * The topic and consumer group pairs with the most sampled breakdowns joined since {@code
   * nowNanos - windowNanos}, most first, at most {@code max}.
   */
  public synchronized List<TopicGroup> busiestPairs(long windowNanos, long nowNanos, int max) {
    Map<List<String>, Integer> counts = new java.util.HashMap<>();
    // Section 11: the pairs whose group is a share group (its records carry deliveries).
    java.util.Set<List<String>> shared = new java.util.HashSet<>();
    for (int slot : matching(null, null, windowNanos, nowNanos, Capture.SAMPLED)) {
      if (groups[slot] != null) {
        List<String> pair = List.of(topics[slot], groups[slot]);
        counts.merge(pair, 1, Integer::sum);
        if (shares[slot] != null) {
          shared.add(pair);
        }
      }
    }
    return counts.entrySet().stream()
        .sorted(Map.Entry.<List<String>, Integer>comparingByValue().reversed())
        .limit(max)
        .map(
            e ->
                new TopicGroup(
                    e.getKey().get(0),
                    e.getKey().get(1),
                    e.getValue(),
                    shared.contains(e.getKey())))
        .toList();
  }

  // A record without a group (a producer-only tail record) matches every group: its produce,
  // publish and commit are those of the record whichever group reads it.
  private int[] matching(
      String topic, String group, long windowNanos, long nowNanos, Capture capture) {
    int size = (int) Math.min(written, capacity);
    int[] match = new int[size];
    int n = 0;
    for (int slot = 0; slot < size; slot++) {
      if (nowNanos - timeNanos[slot] > windowNanos) {
        continue;
      }
      if ((topic != null && !topic.equals(topics[slot]))
          || (group != null && groups[slot] != null && !group.equals(groups[slot]))
          || (capture != null && captures[slot] != capture.ordinal())) {
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
   * The summary of the breakdowns joined within a window: every figure but {@code tail} is of the
   * sampled breakdowns alone (section 8 of the latency model: tail records are biased towards slow
   * records by design, and never mixed into the percentiles).
   *
   * @param count how many sampled breakdowns
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
   * @param tail the tail records ({@link Capture#TAIL}) of the window, counted and split apart
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
      Map<String, Map<String, Integer>> segmentQualities,
      TailSplit tail) {

    /** A summary without tail records. */
    public Summary(
        int count,
        long p50Nanos,
        long p99Nanos,
        long p999Nanos,
        int tailCount,
        Map<String, Double> tailMeanNanos,
        Map<String, Integer> tailFlagged,
        Map<String, SegmentQuantiles> segments,
        Map<String, Map<String, Integer>> segmentQualities) {
      this(
          count,
          p50Nanos,
          p99Nanos,
          p999Nanos,
          tailCount,
          tailMeanNanos,
          tailFlagged,
          segments,
          segmentQualities,
          TailSplit.EMPTY);
    }
  }

  /**
   * The tail records ({@link Capture#TAIL}) of a window: how many, which sides reported them, and
   * where their time went. A partial record counts towards the segments it knows only.
   *
   * @param count how many tail records
   * @param full records with both sides' instants (the producer's and a consumer group's)
   * @param producerOnly records flagged by the producer alone: no group, no consumer instants
   * @param consumerOnly records flagged by a consumer alone: no {@code D} nor {@code A}
   * @param e2e the end-to-end latency over the tail records that know it
   * @param segments per segment id, then {@code publish+commit} and {@code produce+publish}: the
   *     split over the tail records that know the segment
   */
  public record TailSplit(
      int count,
      int full,
      int producerOnly,
      int consumerOnly,
      TailSegment e2e,
      Map<String, TailSegment> segments) {

    /** No tail record. */
    public static final TailSplit EMPTY = new RecentBreakdowns(0).tailSplit(new int[0]);
  }

  /**
   * The records of a window seen through an OpenTelemetry instrumentation ({@link
   * Capture#OPENTELEMETRY}, section 10 of the latency model): chosen by the instrumentation's own
   * sampler, so reported apart from the sampled and the tail records.
   *
   * @param count how many records
   * @param producerInstrumented records whose {@code S} came from an instrumentation's producer
   *     span (the others' producer ran klat's agent)
   * @param consumerInstrumented records whose {@code P} came from an instrumentation's consumer
   *     span
   * @param producerAgent records whose producer ran klat's agent (they know {@code D})
   * @param consumerAgent records whose consumer ran klat's agent (they know {@code R}); a record
   *     seen by one side alone counts on neither side for the other
   * @param qualities per quality id, how many records had that quality as a whole (the worst of
   *     their segments': {@code client-clock} wherever an instrumentation's instant is used)
   * @param e2e the end-to-end latency, {@code P - S}, over the records that know it
   * @param segments per id, in the order {@code produce+publish}, {@code commit}, {@code
   *     catch-up+fetch}, then the segments a side with klat's agent gives apart ({@code produce},
   *     {@code publish}, {@code publish+commit}, {@code catch-up}, {@code fetch}): its quantiles
   *     and mean over the records that know it, and its share of the end to end over those that
   *     know both
   * @param segmentQualities per id as {@code segments}, per quality id, how many records had it at
   *     that quality ({@code none}: not known), adding up to {@code count}
   */
  public record OpenTelemetrySplit(
      int count,
      int producerInstrumented,
      int consumerInstrumented,
      int producerAgent,
      int consumerAgent,
      Map<String, Integer> qualities,
      TailSegment e2e,
      Map<String, TailSegment> segments,
      Map<String, Map<String, Integer>> segmentQualities) {}

  /**
   * One topic and group pair's {@link OpenTelemetrySplit}.
   *
   * @param topic the topic
   * @param group the consumer group (an instrumentation that names none: {@code
   *     service:<service.name>}); null for records seen by their producer alone
   * @param split the pair's records
   */
  public record OpenTelemetryPair(String topic, String group, OpenTelemetrySplit split) {}

  /**
   * The records seen through an OpenTelemetry instrumentation joined since {@code nowNanos -
   * windowNanos}: all of them together, and per topic and group pair.
   *
   * @param all the window's records of the query
   * @param pairs per topic and group pair, most records first, at most {@value
   *     #MAX_OPENTELEMETRY_PAIRS}
   * @param pairsNotShown the pairs beyond those
   */
  public record OpenTelemetryRecords(
      OpenTelemetrySplit all, List<OpenTelemetryPair> pairs, int pairsNotShown) {

    /** No such record. */
    public static final OpenTelemetryRecords EMPTY =
        new RecentBreakdowns(0).opentelemetry(null, null, 0, 0);
  }

  /**
   * The records seen through an OpenTelemetry instrumentation ({@link Capture#OPENTELEMETRY})
   * joined since {@code nowNanos - windowNanos}, never mixed with the sampled ones.
   *
   * @param topic a topic, or null for all
   * @param group a consumer group, or null for all
   */
  public synchronized OpenTelemetryRecords opentelemetry(
      String topic, String group, long windowNanos, long nowNanos) {
    int[] match = matching(topic, group, windowNanos, nowNanos, Capture.OPENTELEMETRY);
    Map<List<String>, int[]> byPair = new LinkedHashMap<>();
    Map<List<String>, Integer> sizes = new LinkedHashMap<>();
    for (int slot : match) {
      List<String> pair = Arrays.asList(topics[slot], groups[slot]);
      int n = sizes.merge(pair, 1, Integer::sum);
      int[] slots = byPair.computeIfAbsent(pair, k -> new int[match.length]);
      slots[n - 1] = slot;
    }
    List<OpenTelemetryPair> pairs = new ArrayList<>();
    sizes.entrySet().stream()
        .sorted(Map.Entry.<List<String>, Integer>comparingByValue().reversed())
        .limit(MAX_OPENTELEMETRY_PAIRS)
        .forEach(
            e ->
                pairs.add(
                    new OpenTelemetryPair(
                        e.getKey().get(0),
                        e.getKey().get(1),
                        opentelemetrySplit(Arrays.copyOf(byPair.get(e.getKey()), e.getValue())))));
    return new OpenTelemetryRecords(
        opentelemetrySplit(match), pairs, Math.max(0, sizes.size() - MAX_OPENTELEMETRY_PAIRS));
  }

  private OpenTelemetrySplit opentelemetrySplit(int[] match) {
    int producers = 0;
    int consumers = 0;
    int klatProducers = 0;
    int klatConsumers = 0;
    int[] overall = new int[QUALITIES.length];
    long[] e2e = new long[match.length];
    int e2eKnown = 0;
    for (int slot : match) {
      producers += (instrumented[slot] & PRODUCER_SIDE) != 0 ? 1 : 0;
      consumers += (instrumented[slot] & CONSUMER_SIDE) != 0 ? 1 : 0;
      klatProducers += (instrumented[slot] & PRODUCER_SIDE << KLAT_SIDES) != 0 ? 1 : 0;
      klatConsumers += (instrumented[slot] & CONSUMER_SIDE << KLAT_SIDES) != 0 ? 1 : 0;
      overall[overallQualities[slot]]++;
      if (e2eNanos[slot] >= 0) {
        e2e[e2eKnown++] = e2eNanos[slot];
      }
    }
    Map<String, Integer> qualityCounts = new LinkedHashMap<>();
    for (Quality q : QUALITIES) {
      qualityCounts.put(q.id(), overall[q.ordinal()]);
    }
    Map<String, TailSegment> segments = new LinkedHashMap<>();
    Map<String, Map<String, Integer>> segmentQualities = new LinkedHashMap<>();
    long[] values = new long[match.length];
    for (int column : OPENTELEMETRY_COLUMNS) {
      int known = 0;
      int[] counts = new int[QUALITIES.length];
      double sum = 0;
      double shareSum = 0;
      double shareE2e = 0;
      int shareCount = 0;
      for (int slot : match) {
        long v = segmentNanos[slot * COLUMNS + column];
        if (column == PRODUCE_AND_PUBLISH
            && segmentNanos[slot * COLUMNS + Segment.PRODUCE.ordinal()] >= 0) {
          // A klat producer's record gives produce and publish apart: counted there only.
          v = -1;
        }
        counts[v < 0 ? Quality.NONE.ordinal() : qualities[slot * COLUMNS + column]]++;
        if (v < 0) {
          continue;
        }
        values[known++] = v;
        sum += v;
        if (e2eNanos[slot] >= 0) {
          shareSum += v;
          shareE2e += e2eNanos[slot];
          shareCount++;
        }
      }
      segments.put(
          COLUMN_IDS[column],
          tailSegment(Arrays.copyOf(values, known), sum, shareSum, shareE2e, shareCount));
      Map<String, Integer> byQuality = new LinkedHashMap<>();
      for (Quality q : QUALITIES) {
        byQuality.put(q.id(), counts[q.ordinal()]);
      }
      segmentQualities.put(COLUMN_IDS[column], byQuality);
    }
    long[] e2eValues = Arrays.copyOf(e2e, e2eKnown);
    double e2eSum = 0;
    for (long v : e2eValues) {
      e2eSum += v;
    }
    return new OpenTelemetrySplit(
        match.length,
        producers,
        consumers,
        klatProducers,
        klatConsumers,
        qualityCounts,
        tailSegment(e2eValues, e2eSum, e2eSum, e2eSum, e2eKnown),
        segments,
        segmentQualities);
  }

  /**
   * One segment over a window's tail records, nearest rank.
   *
   * @param count tail records that know it
   * @param p50Nanos the median, or -1 when {@code count} is 0
   * @param p99Nanos the p99, or -1 when {@code count} is 0
   * @param meanNanos the mean, or -1 when {@code count} is 0
   * @param share the segment's part of the end-to-end latency, summed over the tail records that
   *     know both, or -1 when none does (a producer-only record has no end to end)
   * @param shareCount how many records {@code share} is computed from
   */
  public record TailSegment(
      int count, long p50Nanos, long p99Nanos, double meanNanos, double share, int shareCount) {}

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
    int[] match = matching(topic, group, windowNanos, nowNanos, Capture.SAMPLED);
    int n = match.length;
    Map<String, Double> means = new LinkedHashMap<>();
    TailSplit tailSplit = tailSplit(matching(topic, group, windowNanos, nowNanos, Capture.TAIL));
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
          segmentQualities(match, 0),
          tailSplit);
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
        segmentQualities(match, n),
        tailSplit);
  }

  private TailSplit tailSplit(int[] match) {
    int[] sideCounts = new int[3]; // full, producer only, consumer only
    long[] e2e = new long[match.length];
    int e2eKnown = 0;
    for (int slot : match) {
      int bits = sides[slot];
      sideCounts[bits == PRODUCER_SIDE ? 1 : bits == CONSUMER_SIDE ? 2 : 0]++;
      if (e2eNanos[slot] >= 0) {
        e2e[e2eKnown++] = e2eNanos[slot];
      }
    }
    Map<String, TailSegment> segments = new LinkedHashMap<>();
    long[] values = new long[match.length];
    for (int column : TAIL_COLUMNS) {
      int known = 0;
      double sum = 0;
      double shareSum = 0;
      double shareE2e = 0;
      int shareCount = 0;
      for (int slot : match) {
        long v = segmentNanos[slot * COLUMNS + column];
        if (v < 0) {
          continue;
        }
        values[known++] = v;
        sum += v;
        if (e2eNanos[slot] >= 0) {
          shareSum += v;
          shareE2e += e2eNanos[slot];
          shareCount++;
        }
      }
      segments.put(
          COLUMN_IDS[column],
          tailSegment(Arrays.copyOf(values, known), sum, shareSum, shareE2e, shareCount));
    }
    long[] e2eKnownValues = Arrays.copyOf(e2e, e2eKnown);
    double e2eSum = 0;
    for (long v : e2eKnownValues) {
      e2eSum += v;
    }
    return new TailSplit(
        match.length,
        sideCounts[0],
        sideCounts[1],
        sideCounts[2],
        tailSegment(e2eKnownValues, e2eSum, e2eSum, e2eSum, e2eKnown),
        segments);
  }

  private static TailSegment tailSegment(
      long[] values, double sum, double shareSum, double shareE2e, int shareCount) {
    if (values.length == 0) {
      return new TailSegment(0, -1, -1, -1, -1, 0);
    }
    Arrays.sort(values);
    return new TailSegment(
        values.length,
        rank(values, 0.5),
        rank(values, 0.99),
        sum / values.length,
        shareCount == 0 || shareE2e <= 0 ? -1 : shareSum / shareE2e,
        shareCount);
  }

  private Map<String, Map<String, Integer>> segmentQualities(int[] match, int n) {
    Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
    for (int s = 0; s < SAMPLED_COLUMNS; s++) {
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
    for (int s = 0; s < SAMPLED_COLUMNS; s++) {
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
    ids[PRODUCE_AND_PUBLISH] = CombinedSegment.PRODUCE_AND_PUBLISH.id();
    ids[CATCH_UP_AND_FETCH] = CombinedSegment.CATCH_UP_AND_FETCH.id();
    return ids;
  }

  private static int[] tailColumns() {
    int[] columns = new int[SEGMENTS + 2];
    for (int s = 0; s < SEGMENTS; s++) {
      columns[s] = s;
    }
    columns[SEGMENTS] = PUBLISH_AND_COMMIT;
    columns[SEGMENTS + 1] = PRODUCE_AND_PUBLISH;
    return columns;
  }
}

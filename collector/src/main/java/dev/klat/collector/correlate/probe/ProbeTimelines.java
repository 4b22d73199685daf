package dev.klat.collector.correlate.probe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the broker probes reported: per partition and leader term, the offset ranges appended to the
 * leader's log and the ranges the high watermark passed, each with its time on the leader's clock
 * (section 4 of the latency model, quality {@code exact}). A term is (broker, probe instance,
 * leader epoch): an append is paired only with a commit of the same term, so data of a broker
 * before its restart, or of the leader before a leader change or a reassignment, never answers for
 * another leader's offsets.
 *
 * <p>How long: each term keeps the ranges of each kind whose latest time is within {@code
 * retentionNanos} of its newest range's (leader's clock), so that a tail record, whose breakdown
 * may be joined a join window and more after its append, still finds its {@code L} and {@code H};
 * older ones are overwritten as new ones come.
 *
 * <p>Bounded: a term keeps at most {@code maxRangesPerTerm} ranges of each kind, each partition its
 * latest {@value #TERMS_PER_PARTITION} terms, and at most {@code maxPartitions} partitions,
 * estimated at most {@code maxBytes} (the rings' arrays by their lengths, {@link
 * ProbeRanges#bytes}, plus {@link #PARTITION_BYTES} and the topic's length a partition), are held.
 * A ring grows only within the bytes: at the bound, it overwrites ranges younger than the retention
 * rather than grow (counted, {@link #rangesDroppedYoung}), so the busiest partitions' history gets
 * shorter, not other partitions' history lost. A new partition beyond either bound makes the least
 * recently updated one leave (counted), so a cluster with more active partitions than the cap keeps
 * the ones its probes report now. Thread-safe.
 *
 * <p>Transactions (section 9 of the latency model): a term of a partition whose last stable offset
 * lagged its high watermark also keeps the ranges the last stable offset passed (a third ring, in
 * the same bytes and retention) and the offset from which they are complete; a term reported by a
 * probe that reads the last stable offset and sends no such ranges had no transaction wait, so
 * there {@code V = H}.
 */
public final class ProbeTimelines implements CommitWaits {

  /**
   * A probe that reported within this long is alive: an idle one reports its coverage every second,
   * a busy one every export interval.
   */
  public static final long PROBE_ALIVE_NANOS = 5_000_000_000L;

  static final int TERMS_PER_PARTITION = 4;

  /** A partition's key, its terms' list and the map's node, without its rings. */
  static final int PARTITION_BYTES = 200;

  /** {@code probe.max-bytes}' default: 128 MiB. */
  public static final long DEFAULT_MAX_BYTES = 128L << 20;

  /** A retention that keeps the latest {@code maxRangesPerTerm} ranges whatever their age. */
  public static final long KEEP_UP_TO_CAPACITY = Long.MAX_VALUE;

  /**
   * What the probe knows of one offset, on its leader's clock: {@code L} and {@code H} in epoch
   * nanos (MIN_VALUE when unknown), each the middle of the range's times, with the width of that
   * range ({@code 0} for one batch or one advance, exact; up to the probe's resolution for joined
   * ones), the leader, the follower whose fetch moved the high watermark over the offset (-1 for
   * none or unknown), and the produce request that appended it as the leader timed it: its time in
   * the request queue and from there to the append ({@code RequestQueueTimeMs} and most of {@code
   * LocalTimeMs} for that one request; -1 when unknown, the longest among the batches for a joined
   * range).
   */
  public record Instants(
      int brokerId,
      long appendNanos,
      long appendWidthNanos,
      long commitNanos,
      long commitWidthNanos,
      int commitFollowerId,
      long requestQueueNanos,
      long requestLocalNanos,
      long visibleNanos,
      long visibleWidthNanos) {
    static final Instants NONE = new Instants(-1, Long.MIN_VALUE, 0, Long.MIN_VALUE, 0, -1, -1, -1);

    /** Instants without {@code V}: the probe did not say when the last stable offset passed. */
    public Instants(
        int brokerId,
        long appendNanos,
        long appendWidthNanos,
        long commitNanos,
        long commitWidthNanos,
        int commitFollowerId,
        long requestQueueNanos,
        long requestLocalNanos) {
      this(
          brokerId,
          appendNanos,
          appendWidthNanos,
          commitNanos,
          commitWidthNanos,
          commitFollowerId,
          requestQueueNanos,
          requestLocalNanos,
          Long.MIN_VALUE,
          0);
    }

    /**
     * Whether the probe knows {@code V}, when the leader's last stable offset passed the offset
     * ({@link #visibleNanos}, the middle of its range, equal to {@link #commitNanos} where the last
     * stable offset moved with the high watermark).
     */
    public boolean hasVisible() {
      return visibleNanos != Long.MIN_VALUE;
    }

    public boolean hasAppend() {
      return appendNanos != Long.MIN_VALUE;
    }

    public boolean hasCommit() {
      return commitNanos != Long.MIN_VALUE;
    }
  }

  private final int maxPartitions;
  private final int maxRangesPerTerm;
  private final long maxBytes;
  private final long retentionNanos;
  private long rangesDroppedYoung;
  // Insertion order kept as update order: the eldest is the least recently updated partition.
  private final LinkedHashMap<PartitionKey, Partition> partitions = new LinkedHashMap<>();
  private long bytes;
  private long partitionsEvicted;
  private final Map<Integer, BrokerCoverage> brokers = new HashMap<>();
  private long ranges;
  private long commitRangesWithFollower;
  private long appendRangesWithRequest;
  private long stableRanges;

  /**
   * @param maxPartitions partitions held at once
   * @param maxRangesPerTerm ranges of each kind a term keeps, the oldest leaving first
   */
  public ProbeTimelines(int maxPartitions, int maxRangesPerTerm) {
    this(maxPartitions, maxRangesPerTerm, DEFAULT_MAX_BYTES, KEEP_UP_TO_CAPACITY);
  }

  /**
   * @param maxPartitions partitions held at once
   * @param maxRangesPerTerm ranges of each kind a term keeps, the oldest leaving first
   * @param maxBytes the estimated bytes of every partition's ranges together
   */
  public ProbeTimelines(int maxPartitions, int maxRangesPerTerm, long maxBytes) {
    this(maxPartitions, maxRangesPerTerm, maxBytes, KEEP_UP_TO_CAPACITY);
  }

  /**
   * @param maxPartitions partitions held at once
   * @param maxRangesPerTerm ranges of each kind a term keeps at most, the oldest leaving first
   * @param maxBytes the estimated bytes of every partition's ranges together
   * @param retentionNanos how long a term keeps a range, behind its newest ({@link
   *     #KEEP_UP_TO_CAPACITY}: up to {@code maxRangesPerTerm} whatever their age)
   */
  public ProbeTimelines(
      int maxPartitions, int maxRangesPerTerm, long maxBytes, long retentionNanos) {
    if (maxPartitions <= 0 || maxRangesPerTerm <= 0 || maxBytes <= 0 || retentionNanos <= 0) {
      throw new IllegalArgumentException("limits must be positive");
    }
    this.maxPartitions = maxPartitions;
    this.maxRangesPerTerm = maxRangesPerTerm;
    this.maxBytes = maxBytes;
    this.retentionNanos = retentionNanos;
  }

  /**
   * Notes that broker {@code brokerId}'s probe reported every event before {@code
   * coveredUntilNanos} (its clock), when the collector's monotonic clock read {@code nowNanos}.
   */
  public synchronized void covered(int brokerId, long coveredUntilNanos, long nowNanos) {
    BrokerCoverage coverage = brokers.get(brokerId);
    if (coverage == null) {
      if (brokers.size() >= maxPartitions) {
        forgetLeastRecentBroker();
      }
      coverage = new BrokerCoverage();
      brokers.put(brokerId, coverage);
    }
    coverage.coveredUntilNanos = Math.max(coverage.coveredUntilNanos, coveredUntilNanos);
    coverage.reportedAtNanos = nowNanos;
  }

  /**
   * Returns how far broker {@code brokerId}'s probe has reported, on its clock, or MIN_VALUE when
   * it has not reported since {@code sinceNanos} (collector monotonic clock).
   */
  public synchronized long coveredUntilNanos(int brokerId, long sinceNanos) {
    BrokerCoverage coverage = brokers.get(brokerId);
    if (coverage == null || coverage.reportedAtNanos - sinceNanos < 0) {
      return Long.MIN_VALUE;
    }
    return coverage.coveredUntilNanos;
  }

  /**
   * Brokers whose probe is alive at {@code nowNanos} (collector monotonic clock): it reported in
   * the last {@value #PROBE_ALIVE_NANOS} ns.
   */
  public synchronized int liveBrokers(long nowNanos) {
    int live = 0;
    for (BrokerCoverage coverage : brokers.values()) {
      if (coverage.reportedAtNanos - (nowNanos - PROBE_ALIVE_NANOS) >= 0) {
        live++;
      }
    }
    return live;
  }

  /**
   * Adds one append range ({@code first} to {@code last}) of a term, appended between {@code
   * earliestNanos} and {@code latestNanos}, its produce request's times unknown.
   */
  public void append(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos) {
    append(term, topic, partition, first, last, earliestNanos, latestNanos, -1, -1);
  }

  /**
   * Adds one append range ({@code first} to {@code last}) of a term, appended between {@code
   * earliestNanos} and {@code latestNanos} by a produce request that waited {@code
   * requestQueueNanos} in the leader's request queue and {@code requestLocalNanos} from there to
   * the append (each -1 when unknown).
   */
  public synchronized void append(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      long requestQueueNanos,
      long requestLocalNanos) {
    Partition p = partition(topic, partition);
    Term t = p.term(term, maxRangesPerTerm, retentionNanos);
    long droppedBefore = t.appends.droppedYoung();
    p.updated(latestNanos);
    t.appends.addAppend(
        first,
        last,
        earliestNanos,
        latestNanos,
        requestQueueNanos,
        requestLocalNanos,
        bytesToSpare(p, t.appends.growthBytes(latestNanos), latestNanos));
    rangesDroppedYoung += t.appends.droppedYoung() - droppedBefore;
    resized(p);
    if (requestQueueNanos >= 0 || requestLocalNanos >= 0) {
      appendRangesWithRequest++;
    }
  }

  /**
   * Adds one commit range: the high watermark passed {@code first} to {@code last}, moved by the
   * fetch of follower {@code followerId} (-1 for none or unknown).
   */
  public synchronized void commit(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      int followerId) {
    Partition p = partition(topic, partition);
    Term t = p.term(term, maxRangesPerTerm, retentionNanos);
    long droppedBefore = t.commits.droppedYoung();
    p.updated(latestNanos);
    t.commits.addCommit(
        first,
        last,
        earliestNanos,
        latestNanos,
        followerId,
        bytesToSpare(p, t.commits.growthBytes(latestNanos), latestNanos));
    rangesDroppedYoung += t.commits.droppedYoung() - droppedBefore;
    resized(p);
    if (followerId >= 0) {
      commitRangesWithFollower++;
    }
  }

  /**
   * Notes what a term's probe said about its last stable offset: whether it reads it at all ({@code
   * reads}; an older probe does not), and from which offset its stable ranges are complete ({@code
   * stableFrom}, -1 when the partition sent none: its last stable offset never lagged).
   */
  public synchronized void stableOffsets(
      TermKey term, String topic, int partition, boolean reads, long stableFrom) {
    Partition p = partition(topic, partition, false);
    Term t = p.term(term, maxRangesPerTerm, retentionNanos);
    t.readsStableOffset |= reads;
    if (stableFrom >= 0 && (t.stableFrom < 0 || stableFrom < t.stableFrom)) {
      t.stableFrom = stableFrom;
    }
  }

  /**
   * Adds one stable range: the leader's last stable offset passed {@code first} to {@code last}
   * between {@code earliestNanos} and {@code latestNanos} ({@code V}, section 9).
   */
  public synchronized void stable(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos) {
    Partition p = partition(topic, partition);
    Term t = p.term(term, maxRangesPerTerm, retentionNanos);
    if (t.stables == null) {
      t.stables = ProbeRanges.commits(maxRangesPerTerm, retentionNanos);
    }
    long droppedBefore = t.stables.droppedYoung();
    p.updated(latestNanos);
    t.stables.addCommit(
        first,
        last,
        earliestNanos,
        latestNanos,
        -1,
        bytesToSpare(p, t.stables.growthBytes(latestNanos), latestNanos));
    rangesDroppedYoung += t.stables.droppedYoung() - droppedBefore;
    resized(p);
    stableRanges++;
  }

  /** Stable ranges received since start (section 9: partitions with transactions). */
  public synchronized long stableRanges() {
    return stableRanges;
  }

  /**
   * Returns {@code L} and {@code H} of an offset as the probe of its leader {@code leaderId} saw
   * them, both of one term; either may be unknown.
   */
  public synchronized Instants lookup(String topic, int partition, long offset, int leaderId) {
    Partition held = partitions.get(new PartitionKey(topic, partition));
    if (held == null) {
      return Instants.NONE;
    }
    List<Term> terms = held.terms;
    for (int i = terms.size() - 1; i >= 0; i--) {
      Term t = terms.get(i);
      if (t.key.brokerId() != leaderId && leaderId >= 0) {
        continue;
      }
      int append = t.appends.find(offset);
      if (append < 0) {
        continue;
      }
      int commit = t.commits.find(offset);
      long visible = Long.MIN_VALUE;
      long visibleWidth = 0;
      if (commit >= 0 && t.readsStableOffset) {
        int stable = t.stables == null ? -1 : t.stables.find(offset);
        if (stable >= 0) {
          visible = t.stables.middle(stable);
          visibleWidth = t.stables.width(stable);
        } else if (t.stableFrom < 0 || offset < t.stableFrom) {
          // No lag of the last stable offset behind the high watermark here: V = H.
          visible = t.commits.middle(commit);
          visibleWidth = t.commits.width(commit);
        }
      }
      return new Instants(
          t.key.brokerId(),
          t.appends.middle(append),
          t.appends.width(append),
          commit < 0 ? Long.MIN_VALUE : t.commits.middle(commit),
          commit < 0 ? 0 : t.commits.width(commit),
          commit < 0 ? -1 : t.commits.follower(commit),
          t.appends.requestQueueNanos(append),
          t.appends.requestLocalNanos(append),
          visible,
          visibleWidth);
    }
    return Instants.NONE;
  }

  /**
   * {@inheritDoc} Reads the commit ranges of every term the leader holds whose time falls in the
   * interval (a binary search per term: ranges arrive in time order), and the append of each
   * range's first offset.
   */
  @Override
  public synchronized CommitWait heldDuring(int leaderId, long fromEpochNanos, long toEpochNanos) {
    if (!brokers.containsKey(leaderId)) {
      return null;
    }
    List<long[]> waits = new ArrayList<>(); // {start, end, follower}, cut to the interval
    for (Partition p : partitions.values()) {
      for (Term t : p.terms) {
        if (t.key.brokerId() != leaderId) {
          continue;
        }
        for (int i = t.commits.firstAtOrAfter(fromEpochNanos); i < t.commits.size(); i++) {
          int slot = t.commits.slotOf(i);
          long committed = t.commits.latest(slot);
          if (committed > toEpochNanos) {
            break;
          }
          int append = t.appends.find(t.commits.first(slot));
          long start =
              append < 0 ? committed : Math.max(fromEpochNanos, t.appends.earliest(append));
          if (start < committed) {
            waits.add(new long[] {start, committed, t.commits.follower(slot)});
          }
        }
      }
    }
    return union(waits);
  }

  // The union's length, and per follower the part of it that follower's waits add.
  private static CommitWait union(List<long[]> waits) {
    if (waits.isEmpty()) {
      return CommitWait.NONE;
    }
    waits.sort((a, b) -> Long.compare(a[0], b[0]));
    Map<Integer, Long> byFollower = new HashMap<>();
    long held = 0;
    long coveredUntil = Long.MIN_VALUE;
    for (long[] w : waits) {
      long added = w[1] - Math.max(w[0], coveredUntil);
      if (added > 0) {
        held += added;
        byFollower.merge((int) w[2], added, Long::sum);
        coveredUntil = w[1];
      }
    }
    int follower = byFollower.entrySet().stream().max(Map.Entry.comparingByValue()).get().getKey();
    return new CommitWait(held, follower);
  }

  /** Partitions that left since start, the least recently updated, for a newer one or for bytes. */
  public synchronized long partitionsEvicted() {
    return partitionsEvicted;
  }

  /**
   * Ranges overwritten since start while younger than the retention: their term was at {@code
   * maxRangesPerTerm}, or the bytes did not allow it to grow.
   */
  public synchronized long rangesDroppedYoung() {
    return rangesDroppedYoung;
  }

  /** The estimated bytes of the ranges held now. */
  public synchronized long estimatedBytes() {
    return bytes;
  }

  /** Commit ranges received since start that named the follower whose fetch moved them. */
  public synchronized long commitRangesWithFollower() {
    return commitRangesWithFollower;
  }

  /** Append ranges received since start that carried their produce request's times. */
  public synchronized long appendRangesWithRequest() {
    return appendRangesWithRequest;
  }

  /** Ranges received since start. */
  public synchronized long ranges() {
    return ranges;
  }

  // The partition's entry, now the most recently updated; the least recently updated leaves when
  // a new one would exceed the cap.
  private Partition partition(String topic, int partition) {
    return partition(topic, partition, true);
  }

  private Partition partition(String topic, int partition, boolean aRange) {
    if (aRange) {
      ranges++;
    }
    PartitionKey key = new PartitionKey(topic, partition);
    Partition p = partitions.remove(key);
    if (p == null) {
      while (partitions.size() >= maxPartitions) {
        evictEldest();
      }
      p = new Partition(PARTITION_BYTES + topic.length());
      bytes += p.bytes;
    }
    partitions.put(key, p);
    return p;
  }

  // The bytes a ring of p may grow by: the budget's rest, after the least recently updated
  // partitions that were idle longer than the retention left, where that is needed.
  private long bytesToSpare(Partition p, long needed, long nowNanos) {
    while (needed > maxBytes - bytes && partitions.size() > 1) {
      Partition eldest = partitions.values().iterator().next();
      if (eldest == p || nowNanos - eldest.newestNanos <= retentionNanos) {
        break;
      }
      evictEldest();
    }
    return maxBytes - bytes;
  }

  // Counts a partition's new size; while over the byte budget the least recently updated others
  // leave.
  private void resized(Partition p) {
    long now = p.measure();
    bytes += now - p.bytes;
    p.bytes = now;
    while (bytes > maxBytes && partitions.size() > 1) {
      evictEldest();
    }
  }

  // Broker ids come from the wire too: a full table forgets the one that reported longest ago.
  private void forgetLeastRecentBroker() {
    Integer oldest = null;
    long oldestAt = 0;
    for (Map.Entry<Integer, BrokerCoverage> e : brokers.entrySet()) {
      if (oldest == null || e.getValue().reportedAtNanos - oldestAt < 0) {
        oldest = e.getKey();
        oldestAt = e.getValue().reportedAtNanos;
      }
    }
    brokers.remove(oldest);
  }

  private void evictEldest() {
    Iterator<Partition> it = partitions.values().iterator();
    Partition eldest = it.next();
    it.remove();
    bytes -= eldest.bytes;
    partitionsEvicted++;
  }

  // One partition's terms, oldest first, and their estimated bytes.
  private static final class Partition {
    final List<Term> terms = new ArrayList<>(1);
    final long fixedBytes;
    long bytes;
    // The latest time of its newest range, on its leader's clock.
    long newestNanos = Long.MIN_VALUE;

    void updated(long latestNanos) {
      newestNanos = Math.max(newestNanos, latestNanos);
    }

    Partition(long fixedBytes) {
      this.fixedBytes = fixedBytes;
      this.bytes = fixedBytes;
    }

    Term term(TermKey key, int maxRanges, long retentionNanos) {
      for (int i = terms.size() - 1; i >= 0; i--) {
        if (terms.get(i).key.equals(key)) {
          return terms.get(i);
        }
      }
      if (terms.size() >= TERMS_PER_PARTITION) {
        terms.remove(0);
      }
      Term t = new Term(key, maxRanges, retentionNanos);
      terms.add(t);
      return t;
    }

    long measure() {
      long total = fixedBytes;
      for (Term t : terms) {
        total += t.appends.bytes() + t.commits.bytes();
        if (t.stables != null) {
          total += t.stables.bytes();
        }
      }
      return total;
    }
  }

  /**
   * A leader term: the broker, its probe's instance (new at every broker start) and the leader
   * epoch.
   */
  public record TermKey(int brokerId, long instanceId, int leaderEpoch) {}

  private record PartitionKey(String topic, int partition) {}

  private static final class BrokerCoverage {
    long coveredUntilNanos = Long.MIN_VALUE;
    long reportedAtNanos;
  }

  private static final class Term {
    final TermKey key;
    final ProbeRanges appends;
    final ProbeRanges commits;
    // Section 9: null until the term's first stable range (a partition with transactions).
    ProbeRanges stables;
    long stableFrom = -1;
    boolean readsStableOffset;

    Term(TermKey key, int maxRanges, long retentionNanos) {
      this.key = key;
      this.appends = ProbeRanges.appends(maxRanges, retentionNanos);
      this.commits = ProbeRanges.commits(maxRanges, retentionNanos);
    }
  }
}

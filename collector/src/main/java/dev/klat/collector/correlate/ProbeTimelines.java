package dev.klat.collector.correlate;

import java.util.ArrayList;
import java.util.HashMap;
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
 * <p>Bounded: each term keeps its latest {@code maxRangesPerTerm} ranges of each kind, each
 * partition its latest {@value #TERMS_PER_PARTITION} terms, and at most {@code maxPartitions}
 * partitions are held (beyond it a new partition's ranges are dropped and counted). Thread-safe.
 */
public final class ProbeTimelines implements CommitWaits {

  /**
   * A probe that reported within this long is alive: an idle one reports its coverage every second,
   * a busy one every export interval.
   */
  public static final long PROBE_ALIVE_NANOS = 5_000_000_000L;

  static final int TERMS_PER_PARTITION = 4;

  /**
   * What the probe knows of one offset, on its leader's clock: {@code L} and {@code H} in epoch
   * nanos (MIN_VALUE when unknown), each the middle of the range's times, with the width of that
   * range ({@code 0} for one batch or one advance, exact; up to the probe's resolution for joined
   * ones), the leader, and the follower whose fetch moved the high watermark over the offset (-1
   * for none or unknown).
   */
  public record Instants(
      int brokerId,
      long appendNanos,
      long appendWidthNanos,
      long commitNanos,
      long commitWidthNanos,
      int commitFollowerId) {
    static final Instants NONE = new Instants(-1, Long.MIN_VALUE, 0, Long.MIN_VALUE, 0, -1);

    public boolean hasAppend() {
      return appendNanos != Long.MIN_VALUE;
    }

    public boolean hasCommit() {
      return commitNanos != Long.MIN_VALUE;
    }
  }

  private final int maxPartitions;
  private final int maxRangesPerTerm;
  private final Map<PartitionKey, List<Term>> partitions = new HashMap<>();
  private final Map<Integer, BrokerCoverage> brokers = new HashMap<>();
  private long droppedRanges;
  private long ranges;
  private long commitRangesWithFollower;

  /**
   * @param maxPartitions partitions held at once
   * @param maxRangesPerTerm ranges of each kind a term keeps, the oldest leaving first
   */
  public ProbeTimelines(int maxPartitions, int maxRangesPerTerm) {
    if (maxPartitions <= 0 || maxRangesPerTerm <= 0) {
      throw new IllegalArgumentException("limits must be positive");
    }
    this.maxPartitions = maxPartitions;
    this.maxRangesPerTerm = maxRangesPerTerm;
  }

  /**
   * Notes that broker {@code brokerId}'s probe reported every event before {@code
   * coveredUntilNanos} (its clock), when the collector's monotonic clock read {@code nowNanos}.
   */
  public synchronized void covered(int brokerId, long coveredUntilNanos, long nowNanos) {
    BrokerCoverage coverage = brokers.get(brokerId);
    if (coverage == null) {
      if (brokers.size() >= maxPartitions) {
        return;
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
   * earliestNanos} and {@code latestNanos}.
   */
  public void append(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos) {
    add(true, term, topic, partition, first, last, earliestNanos, latestNanos, -1);
  }

  /**
   * Adds one commit range: the high watermark passed {@code first} to {@code last}, moved by the
   * fetch of follower {@code followerId} (-1 for none or unknown).
   */
  public void commit(
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      int followerId) {
    add(false, term, topic, partition, first, last, earliestNanos, latestNanos, followerId);
  }

  private synchronized void add(
      boolean append,
      TermKey term,
      String topic,
      int partition,
      long first,
      long last,
      long earliestNanos,
      long latestNanos,
      int followerId) {
    Term t = term(term, topic, partition);
    if (t != null) {
      (append ? t.appends : t.commits).add(first, last, earliestNanos, latestNanos, followerId);
    }
    if (!append && followerId >= 0) {
      commitRangesWithFollower++;
    }
  }

  /**
   * Returns {@code L} and {@code H} of an offset as the probe of its leader {@code leaderId} saw
   * them, both of one term; either may be unknown.
   */
  public synchronized Instants lookup(String topic, int partition, long offset, int leaderId) {
    List<Term> terms = partitions.get(new PartitionKey(topic, partition));
    if (terms == null) {
      return Instants.NONE;
    }
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
      return new Instants(
          t.key.brokerId(),
          t.appends.middle(append),
          t.appends.width(append),
          commit < 0 ? Long.MIN_VALUE : t.commits.middle(commit),
          commit < 0 ? 0 : t.commits.width(commit),
          commit < 0 ? -1 : t.commits.follower(commit));
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
    for (List<Term> terms : partitions.values()) {
      for (Term t : terms) {
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

  /** Ranges dropped since start because the partition limit was reached. */
  public synchronized long droppedRanges() {
    return droppedRanges;
  }

  /** Commit ranges received since start that named the follower whose fetch moved them. */
  public synchronized long commitRangesWithFollower() {
    return commitRangesWithFollower;
  }

  /** Ranges received since start. */
  public synchronized long ranges() {
    return ranges;
  }

  private Term term(TermKey key, String topic, int partition) {
    ranges++;
    PartitionKey p = new PartitionKey(topic, partition);
    List<Term> terms = partitions.get(p);
    if (terms == null) {
      if (partitions.size() >= maxPartitions) {
        droppedRanges++;
        return null;
      }
      terms = new ArrayList<>(1);
      partitions.put(p, terms);
    }
    for (int i = terms.size() - 1; i >= 0; i--) {
      if (terms.get(i).key.equals(key)) {
        return terms.get(i);
      }
    }
    if (terms.size() >= TERMS_PER_PARTITION) {
      terms.remove(0);
    }
    Term t = new Term(key, maxRangesPerTerm);
    terms.add(t);
    return t;
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
    final Ranges appends;
    final Ranges commits;

    Term(TermKey key, int maxRanges) {
      this.key = key;
      this.appends = new Ranges(maxRanges);
      this.commits = new Ranges(maxRanges);
    }
  }

  /** A ring of ranges in arrival order, the oldest overwritten when full. */
  static final class Ranges {
    private final int capacity;
    private long[] firsts = new long[4];
    private long[] lasts = new long[4];
    private long[] earliest = new long[4];
    private long[] latest = new long[4];
    private int[] followers = new int[4];
    private int next;
    private int count;

    Ranges(int capacity) {
      this.capacity = capacity;
    }

    void add(long first, long last, long earliestNanos, long latestNanos, int followerId) {
      if (count == firsts.length && count < capacity) {
        int size = Math.min(capacity, count * 2);
        firsts = java.util.Arrays.copyOf(firsts, size);
        lasts = java.util.Arrays.copyOf(lasts, size);
        earliest = java.util.Arrays.copyOf(earliest, size);
        latest = java.util.Arrays.copyOf(latest, size);
        followers = java.util.Arrays.copyOf(followers, size);
        next = count;
      }
      firsts[next] = first;
      lasts[next] = last;
      earliest[next] = earliestNanos;
      latest[next] = latestNanos;
      followers[next] = followerId;
      next = (next + 1) % firsts.length;
      count = Math.min(count + 1, firsts.length);
    }

    /**
     * The slot of a range holding {@code offset}, or -1. Ranges arrive in offset order but for
     * appends whose hooks raced (a few apart at most): a binary search over the ring in arrival
     * order finds the neighbourhood, and the ranges within {@value #DISORDER} of it are checked.
     */
    int find(long offset) {
      int low = 0;
      int high = count;
      while (low < high) { // the first range, oldest first, whose last offset is at least offset
        int mid = (low + high) >>> 1;
        if (lasts[slotOf(mid)] < offset) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      for (int i = Math.max(0, low - DISORDER); i < Math.min(count, low + DISORDER + 1); i++) {
        int slot = slotOf(i);
        if (firsts[slot] <= offset && offset <= lasts[slot]) {
          return slot;
        }
      }
      return -1;
    }

    private static final int DISORDER = 4;

    /** The index, oldest first, of the first range whose latest time is at least {@code nanos}. */
    int firstAtOrAfter(long nanos) {
      int low = 0;
      int high = count;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (latest[slotOf(mid)] < nanos) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }

    int size() {
      return count;
    }

    // The slot of the i-th range, oldest first.
    int slotOf(int i) {
      return count < firsts.length ? i : (next + i) % firsts.length;
    }

    long middle(int slot) {
      return earliest[slot] + (latest[slot] - earliest[slot]) / 2;
    }

    long width(int slot) {
      return latest[slot] - earliest[slot];
    }

    long first(int slot) {
      return firsts[slot];
    }

    long earliest(int slot) {
      return earliest[slot];
    }

    long latest(int slot) {
      return latest[slot];
    }

    int follower(int slot) {
      return followers[slot];
    }
  }
}

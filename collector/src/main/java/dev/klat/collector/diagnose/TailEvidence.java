package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Capture;
import dev.klat.model.Segment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * The tail of one window as the rules read it: its tail records and the sampled records of its
 * sampled p99 tail, with their spans' evidence, each segment's median over the whole window, the
 * brokers' request timings and replication (ISR changes over the window, replica fetcher lag), and
 * the leaders' commit waits from their probes.
 */
final class TailEvidence {
  /**
   * The window diagnosed.
   *
   * @param startEpochNanos when it began, on the brokers' scrape clock (epoch)
   * @param nanos its length
   */
  record Window(long startEpochNanos, long nanos) {
    /** Its length as {@code /api/diagnosis} takes it: {@code 1h}, {@code 5m}, {@code 30s}, ms. */
    String label() {
      long ms = nanos / 1_000_000L;
      if (ms > 0 && ms % 3_600_000 == 0) {
        return ms / 3_600_000 + "h";
      }
      if (ms > 0 && ms % 60_000 == 0) {
        return ms / 60_000 + "m";
      }
      return ms > 0 && ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
    }
  }

  private final List<TailRecord> records;
  private final long[] windowMedianNanos;
  private final long[] windowP99Nanos;
  private final BrokerTimings brokers;
  private final CommitWaits commitWaits;
  private final Window window;
  private final double e2eMeanNanos;
  private final double latencyMeanNanos;

  /**
   * @param records the tail's breakdowns
   * @param windowMedianNanos per segment ordinal, the median over the whole window, -1 unknown
   * @param windowP99Nanos per segment ordinal, the p99 over the whole window, -1 unknown
   * @param brokers the brokers' request timings
   * @param commitWaits the leaders' high-watermark waits
   * @param window the window the tail is of
   */
  TailEvidence(
      List<TailRecord> records,
      long[] windowMedianNanos,
      long[] windowP99Nanos,
      BrokerTimings brokers,
      CommitWaits commitWaits,
      Window window) {
    this.records = List.copyOf(records);
    this.windowMedianNanos = windowMedianNanos.clone();
    this.windowP99Nanos = windowP99Nanos.clone();
    this.brokers = brokers;
    this.commitWaits = commitWaits;
    this.window = window;
    double e2eSum = 0;
    int e2eKnown = 0;
    double latencySum = 0;
    for (TailRecord r : records) {
      if (r.isEndToEndKnown()) {
        e2eSum += r.e2eNanos();
        e2eKnown++;
      }
      latencySum += r.latencyNanos();
    }
    this.e2eMeanNanos = e2eKnown == 0 ? 0 : e2eSum / e2eKnown;
    this.latencyMeanNanos = records.isEmpty() ? 0 : latencySum / records.size();
  }

  /**
   * The same tail, but only the records {@code rule} weighs (those that know its segment): its
   * shares are of their latency.
   */
  TailEvidence weighedBy(Rule rule) {
    List<TailRecord> known = records.stream().filter(rule::weighs).toList();
    return known.size() == records.size()
        ? this
        : new TailEvidence(known, windowMedianNanos, windowP99Nanos, brokers, commitWaits, window);
  }

  /** How many of the records are tail records ({@link Capture#TAIL}). */
  int tailCaptured() {
    return captured(Capture.TAIL);
  }

  /**
   * How many of the records an OpenTelemetry instrumentation reported ({@link
   * Capture#OPENTELEMETRY}, section 10 of the latency model).
   */
  int opentelemetry() {
    return captured(Capture.OPENTELEMETRY);
  }

  private int captured(Capture capture) {
    return (int) records.stream().filter(r -> r.capture() == capture).count();
  }

  List<TailRecord> records() {
    return records;
  }

  int size() {
    return records.size();
  }

  /** The mean end-to-end latency of the records that know it. */
  double e2eMeanNanos() {
    return e2eMeanNanos;
  }

  /**
   * The mean latency of the records: end to end, or for a partial record the part it covers; what a
   * finding's share is a share of.
   */
  double latencyMeanNanos() {
    return latencyMeanNanos;
  }

  /** The segment's mean over the tail, counting an unknown segment as 0. */
  double meanNanos(Segment segment) {
    return mean(r -> Math.max(0, r.nanos(segment)));
  }

  /** The mean over the tail of a per-record amount (negative counts as 0). */
  double mean(ToLongFunction<TailRecord> nanos) {
    if (records.isEmpty()) {
      return 0;
    }
    double sum = 0;
    for (TailRecord r : records) {
      sum += Math.max(0, nanos.applyAsLong(r));
    }
    return sum / records.size();
  }

  /** The median over the tail of a figure, ignoring unknown (negative) values; -1 when none. */
  long median(ToLongFunction<TailRecord> figure) {
    long[] known = records.stream().mapToLong(figure).filter(v -> v >= 0).sorted().toArray();
    return known.length == 0 ? -1 : known[(known.length - 1) / 2];
  }

  /**
   * A setting as the tail's records reported it: the one value, or the distinct values in order
   * when clients differ ("5, 500"), or "unknown".
   */
  Object setting(ToLongFunction<TailRecord> setting) {
    long[] values =
        records.stream().mapToLong(setting).filter(v -> v >= 0).distinct().sorted().toArray();
    if (values.length == 0) {
      return "unknown";
    }
    if (values.length == 1) {
      return values[0];
    }
    return java.util.Arrays.stream(values)
        .mapToObj(Long::toString)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** The segment's median over the whole window, or -1. */
  long windowMedianNanos(Segment segment) {
    return windowMedianNanos[segment.ordinal()];
  }

  /** New evidence, starting with the segment's tail mean and window median. */
  Map<String, Object> segmentEvidence(Segment segment) {
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put(segment.id() + ", tail mean", ms(meanNanos(segment)));
    long median = windowMedianNanos(segment);
    evidence.put(segment.id() + ", window median", median < 0 ? "unknown" : ms(median));
    return evidence;
  }

  /** The segment's p99 over the whole window, or -1. */
  long windowP99Nanos(Segment segment) {
    return windowP99Nanos[segment.ordinal()];
  }

  /** The share of the tail's mean latency that {@code nanos} is. */
  double share(double nanos) {
    return latencyMeanNanos <= 0 ? 0 : Math.min(1, nanos / latencyMeanNanos);
  }

  /**
   * The record's leader's mean request timings of one kind over the scrape interval the record was
   * drained in (or, without {@code D}, appended in: a producer seen through an OpenTelemetry
   * instrumentation), or null.
   */
  BrokerTimings.RequestTimings timings(TailRecord r, BrokerTimings.Request request) {
    long at = r.drainEpochNanos() >= 0 ? r.drainEpochNanos() : r.appendEpochNanos();
    return r.leaderNodeId() < 0 || at < 0 ? null : brokers.lookup(r.leaderNodeId(), request, at);
  }

  /**
   * How long the record's leader's high watermark waited for followers while the record was in
   * publish ({@code D} to {@code L}): what {@code acks=all} requests ahead of it on the connection
   * waited for. Null when the leader has no probe, or the record's publish is unknown. {@code D} is
   * on the producer's clock and the probe's times on the leader's: a clock offset shifts the
   * interval by as much, small against a wait that matters.
   */
  CommitWaits.CommitWait commitWaitDuringPublish(TailRecord r) {
    long publish = r.nanos(Segment.PUBLISH);
    if (r.leaderNodeId() < 0 || publish < 0 || r.drainEpochNanos() < 0) {
      return null;
    }
    return commitWaits.heldDuring(
        r.leaderNodeId(), r.drainEpochNanos(), r.drainEpochNanos() + publish);
  }

  /**
   * How long the record's leader's high watermark waited for followers in the {@code nanos} before
   * the record was drained ({@code D}): what the requests in flight to that leader waited for while
   * the record's batch waited for a free request slot. Null when the leader has no probe.
   */
  CommitWaits.CommitWait commitWaitBeforeDrain(TailRecord r, long nanos) {
    if (r.leaderNodeId() < 0 || nanos <= 0 || r.drainEpochNanos() < 0) {
      return null;
    }
    return commitWaits.heldDuring(
        r.leaderNodeId(), r.drainEpochNanos() - nanos, r.drainEpochNanos());
  }

  /**
   * The {@link #commonLeader()}'s timings over the interval the tail's last record was drained in,
   * or null.
   */
  BrokerTimings.RequestTimings leaderTimings(BrokerTimings.Request request) {
    int leader = commonLeader();
    long latest = records.stream().mapToLong(TailRecord::drainEpochNanos).max().orElse(0);
    return leader < 0 ? null : brokers.lookup(leader, request, latest);
  }

  /** The leader of most tail records, or -1 when none is known. */
  int commonLeader() {
    Map<Integer, Integer> counts = new LinkedHashMap<>();
    for (TailRecord r : records) {
      if (r.leaderNodeId() >= 0) {
        counts.merge(r.leaderNodeId(), 1, Integer::sum);
      }
    }
    return counts.entrySet().stream()
        .max(Map.Entry.comparingByValue())
        .map(Map.Entry::getKey)
        .orElse(-1);
  }

  /**
   * Adds what is known of the partitions broker {@code nodeId} leads and hosts, and of those the
   * other brokers lead (min to max); nothing when unknown.
   */
  void partitionEvidence(int nodeId, Map<String, Object> evidence) {
    BrokerTimings.Partitions p = nodeId < 0 ? null : brokers.partitions(nodeId);
    if (p == null) {
      return;
    }
    if (p.leaders() >= 0) {
      evidence.put("partitions broker " + nodeId + " leads", p.leaders());
    }
    if (p.partitions() >= 0) {
      evidence.put("partitions broker " + nodeId + " hosts", p.partitions());
    }
    long[] others = otherLeaderCounts(nodeId);
    if (p.leaders() >= 0 && others.length > 0) {
      long min = others[0];
      long max = others[others.length - 1];
      evidence.put(
          "partitions the other brokers lead",
          min == max ? Long.toString(min) : min + " to " + max);
    }
  }

  /** The partitions under min ISR on broker {@code nodeId}, or -1 when unknown. */
  long underMinIsr(int nodeId) {
    BrokerTimings.Partitions p = nodeId < 0 ? null : brokers.partitions(nodeId);
    return p == null ? -1 : p.underMinIsr();
  }

  /**
   * A sentence for a suggestion when broker {@code nodeId} leads at least {@link #MANY_LEADERS}
   * partitions and at least twice the median of the other brokers' leader counts; else "".
   */
  String leadsManyMore(int nodeId) {
    BrokerTimings.Partitions p = nodeId < 0 ? null : brokers.partitions(nodeId);
    long[] others = otherLeaderCounts(nodeId);
    if (p == null || p.leaders() < MANY_LEADERS || others.length == 0) {
      return "";
    }
    int n = others.length;
    double median = n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2.0;
    if (p.leaders() < 2 * median) {
      return "";
    }
    return " Broker "
        + nodeId
        + " leads many more partitions than the others ("
        + p.leaders()
        + " against a median of "
        + Math.round(median)
        + "): move leaders off it (preferred leader election, partition reassignment) or add"
        + " brokers.";
  }

  /** A broker must lead at least this many partitions for its imbalance to be named. */
  static final long MANY_LEADERS = 100;

  // The other brokers' known leader counts, sorted.
  private long[] otherLeaderCounts(int nodeId) {
    return brokers.partitions().entrySet().stream()
        .filter(e -> e.getKey() != nodeId && e.getValue().leaders() >= 0)
        .mapToLong(e -> e.getValue().leaders())
        .sorted()
        .toArray();
  }

  /**
   * Adds how often broker {@code leaderId} shrank (and with {@code expands}, expanded) the ISR of a
   * partition it leads during the window; nothing when its replication is not scraped.
   */
  void isrEvidence(int leaderId, boolean expands, Map<String, Object> evidence) {
    BrokerTimings.Replication r = replication(leaderId);
    if (r == null) {
      return;
    }
    String of = " on broker " + leaderId + " (the leader), last " + window.label();
    evidence.put("ISR shrinks" + of, changes(r.isrShrinks()));
    if (expands) {
      evidence.put("ISR expands" + of, changes(r.isrExpands()));
    }
  }

  /**
   * Adds broker {@code followerId}'s replica fetcher lag at its newest scrape; nothing when its
   * replication is not scraped.
   */
  void maxLagEvidence(int followerId, Map<String, Object> evidence) {
    putMaxLag(followerId, replication(followerId), evidence);
  }

  /** {@link #maxLagEvidence} of every scraped broker but {@code leaderId}, in node id order. */
  void otherMaxLagEvidence(int leaderId, Map<String, Object> evidence) {
    new TreeMap<>(brokers.replication(window.startEpochNanos()))
        .forEach(
            (nodeId, r) -> {
              if (nodeId != leaderId) {
                putMaxLag(nodeId, r, evidence);
              }
            });
  }

  private static void putMaxLag(
      int nodeId, BrokerTimings.Replication r, Map<String, Object> evidence) {
    if (r != null) {
      evidence.put(
          "replica fetcher max lag on broker " + nodeId + " (messages)",
          r.maxLagMessages() < 0 ? "unknown" : r.maxLagMessages());
    }
  }

  private BrokerTimings.Replication replication(int nodeId) {
    return nodeId < 0 ? null : brokers.replication(nodeId, window.startEpochNanos());
  }

  // A count over the window as evidence: the number, "at least" one, or "unknown".
  private static Object changes(BrokerTimings.Changes c) {
    if (c == null || c.count() < 0) {
      return "unknown";
    }
    return c.atLeast() ? "at least " + c.count() : (Object) c.count();
  }

  static String ms(double nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  /** A finding that explains {@code nanos} of the tail's mean. */
  Finding finding(
      Segment segment, String knob, double nanos, Map<String, Object> evidence, String suggestion) {
    return finding(segment.id(), knob, nanos, evidence, suggestion);
  }

  /**
   * A finding of a segment named by its id, a combined one of section 10 of the latency model
   * ({@code produce+publish}, {@code catch-up+fetch}) too, that explains {@code nanos} of the
   * tail's mean.
   */
  Finding finding(
      String segment, String knob, double nanos, Map<String, Object> evidence, String suggestion) {
    return new Finding(
        segment, knob, share(nanos), nanos / 1e9, evidence, suggestion, records.size());
  }
}

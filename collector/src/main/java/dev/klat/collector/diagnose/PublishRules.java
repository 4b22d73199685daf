package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.BrokerTimings;
import dev.klat.collector.correlate.CommitWaits;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The publish segment ({@code L - D}), from the leader's own {@code RequestMetrics} for Produce
 * over the scrape interval each record was drained in (means, so an estimate for any one record):
 * its request queue, its log append, and its replication wait ({@code RemoteTimeMs}). A broker
 * reads one request per connection at a time, so an {@code acks=all} request waiting for its
 * followers also holds the requests behind it, before the broker's timings start. With the leader's
 * probe, that hold is measured: the time the leader's high watermark spent waiting while the record
 * was in publish, and the follower whose fetches ended most of it. Without it, what remains of
 * publish with {@code acks=all} is put on replication up to the window's commit p99 (the longest
 * replication waits). What remains after that happened before the leader read the request: the
 * network path, or the connection held by an earlier request.
 */
final class PublishRules implements Rule {
  // Per leader, the sums over its tail records.
  private static final int QUEUE = 0;
  private static final int APPEND = 1;
  private static final int REPLICATION = 2;
  private static final int HELD = 3;
  private static final int RECORDS = 4;

  @Override
  public List<Finding> explain(TailEvidence tail) {
    Map<Integer, double[]> byLeader = new TreeMap<>();
    Map<Integer, double[]> timingsByLeader = new TreeMap<>();
    FollowerHolds holds = new FollowerHolds();
    double remainder = 0;
    double held = 0;
    long commitP99 = Math.max(0, tail.windowP99Nanos(Segment.COMMIT));
    for (TailRecord r : tail.records()) {
      long publish = r.nanos(Segment.PUBLISH);
      if (publish < 0) {
        continue;
      }
      BrokerTimings.RequestTimings t = tail.timings(r, BrokerTimings.Request.PRODUCE);
      long queue = t == null ? 0 : Math.min(publish, t.requestQueueNanos());
      long append = t == null ? 0 : Math.min(publish - queue, t.localNanos());
      CommitWaits.CommitWait wait = r.producer().acksAll() ? tail.commitWaitDuringPublish(r) : null;
      long remote;
      long left;
      long heldBehind;
      if (wait != null) {
        // Measured: the probe's waits replace the estimates from RemoteTimeMs and commit's p99.
        long measured = Math.min(publish - queue - append, wait.heldNanos());
        holds.add(r.leaderNodeId(), wait, measured);
        remote = 0;
        left = publish - queue - append - measured;
        heldBehind = 0;
      } else {
        remote = t == null ? 0 : Math.min(publish - queue - append, t.remoteNanos());
        left = publish - queue - append - remote;
        heldBehind = r.producer().acksAll() ? Math.min(left, commitP99) : 0;
      }
      if (t != null || heldBehind > 0) {
        double[] sums = byLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[5]);
        sums[QUEUE] += queue;
        sums[APPEND] += append;
        sums[REPLICATION] += remote;
        sums[HELD] += heldBehind;
        sums[RECORDS]++;
      }
      if (t != null) {
        double[] means = timingsByLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[5]);
        means[QUEUE] += t.requestQueueNanos();
        means[APPEND] += t.localNanos();
        means[REPLICATION] += t.remoteNanos();
        means[RECORDS]++;
      }
      remainder += left - heldBehind;
      held += heldBehind;
    }
    // Held behind replication is inferred from the segment alone: it must explain as much as any
    // cause named by its segment, or it is left to the network.
    boolean heldCounts = tail.share(held / tail.size()) >= Diagnosis.SEGMENT_CAUSE_SHARE;
    if (!heldCounts) {
      remainder += held;
    }
    List<Finding> out = new ArrayList<>();
    holds.findings(tail, out);
    for (Map.Entry<Integer, double[]> e : byLeader.entrySet()) {
      String broker = e.getKey() < 0 ? "the leader" : "broker " + e.getKey();
      double[] sums = e.getValue();
      Map<String, Object> evidence =
          brokerEvidence(tail, timingsByLeader.get(e.getKey()), commitP99);
      add(
          out,
          tail,
          sums[QUEUE],
          broker + " request queue",
          evidence,
          "Produce requests wait in "
              + broker
              + "'s request queue: its I/O threads are busy. Raise num.io.threads (and"
              + " num.network.threads if its network threads are busy too), or move partition"
              + " leaders off it.");
      add(
          out,
          tail,
          sums[APPEND],
          broker + " log append",
          evidence,
          broker
              + " is slow to append to its log (LocalTimeMs): a slow or busy disk, or many"
              + " partitions per broker. Spread the leaders over more brokers, or look at the"
              + " disk.");
      add(
          out,
          tail,
          sums[REPLICATION] + (heldCounts ? sums[HELD] : 0),
          broker + " replication",
          evidence,
          "acks=all requests on "
              + broker
              + " wait for its followers, and the requests behind them on the same connection"
              + " wait too. Look for a slow follower of its partitions (replica fetcher lag,"
              + " ISR shrinks).");
    }
    network(tail, remainder / Math.max(1, tail.size()), !timingsByLeader.isEmpty(), out);
    return out;
  }

  private static void add(
      List<Finding> out,
      TailEvidence tail,
      double sumNanos,
      String knob,
      Map<String, Object> evidence,
      String suggestion) {
    if (sumNanos > 0) {
      out.add(tail.finding(Segment.PUBLISH, knob, sumNanos / tail.size(), evidence, suggestion));
    }
  }

  private static void network(
      TailEvidence tail, double network, boolean brokerTimings, List<Finding> out) {
    if (tail.share(network) < Diagnosis.SEGMENT_CAUSE_SHARE) {
      return;
    }
    int leader = tail.commonLeader();
    String where = leader < 0 ? "the leader" : "broker " + leader;
    Map<String, Object> evidence = tail.segmentEvidence(Segment.PUBLISH);
    evidence.put("outside the broker's request timings, tail mean", ms(network));
    evidence.put("broker request timings", brokerTimings ? "read" : "none (not scraped)");
    out.add(
        brokerTimings
            ? tail.finding(
                Segment.PUBLISH,
                "before " + where + " read the request",
                network,
                evidence,
                "The time is before "
                    + where
                    + " read the produce request, outside its request timings: the network path,"
                    + " or the request waiting on its connection behind an earlier one (a broker"
                    + " reads one request per connection at a time). Compare with the path's"
                    + " round trip; fewer, larger requests (linger.ms, batch.size) help a busy"
                    + " connection.")
            : tail.finding(
                Segment.PUBLISH,
                "publish to " + where + " (no broker timings)",
                network,
                evidence,
                "The time is between the producer and "
                    + where
                    + "'s log, and without the broker's request timings klat cannot tell its"
                    + " request queue, log append and replication waits from the network. Let"
                    + " the collector read the brokers' request metrics (brokers.* settings) to"
                    + " split it."));
  }

  private static Map<String, Object> brokerEvidence(
      TailEvidence tail, double[] timingSums, long commitP99) {
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("publish, tail mean", ms(tail.meanNanos(Segment.PUBLISH)));
    if (timingSums == null) {
      evidence.put("broker request timings", "none (not scraped)");
    } else {
      double n = timingSums[RECORDS];
      evidence.put("Produce RequestQueueTimeMs, broker mean", ms(timingSums[QUEUE] / n));
      evidence.put("Produce LocalTimeMs, broker mean", ms(timingSums[APPEND] / n));
      evidence.put("Produce RemoteTimeMs, broker mean", ms(timingSums[REPLICATION] / n));
    }
    evidence.put("commit, window p99", ms(commitP99));
    return evidence;
  }
}

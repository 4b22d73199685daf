package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The publish segment ({@code L - D}): its request queue and its log append, from the record's own
 * produce request as the leader's broker probe timed it where the probe did (exact, for that
 * request), else from the leader's {@code RequestMetrics} for Produce over the scrape interval the
 * record was drained in (means over every client's requests, so an estimate for any one record);
 * its replication wait ({@code RemoteTimeMs}) from those means. A broker reads one request per
 * connection at a time, so an {@code acks=all} request waiting for its followers also holds the
 * requests behind it, before the broker's timings start. With the leader's probe, that hold is
 * measured: the time the leader's high watermark spent waiting while the record was in publish, and
 * the follower whose fetches ended most of it. Without it, what remains of publish with {@code
 * acks=all} is put on replication up to the window's commit p99 (the longest replication waits).
 * What remains after that happened before the leader read the request: the network path, or the
 * connection held by an earlier request. With the probe's times of the record's own request, that
 * remainder is what they leave, even when the broker's request metrics were never scraped; a
 * broker's large {@code LocalTimeMs} made by another client's slow appends is then not put on this
 * record. The evidence shows the tail's own request times beside the broker's means, and how many
 * of the tail's records the probe timed.
 */
final class PublishRules implements Rule {
  // Per leader, the sums over its tail records.
  private static final int QUEUE = 0;
  private static final int APPEND = 1;
  private static final int REPLICATION = 2;
  private static final int HELD = 3;
  private static final int RECORDS = 4;
  // Per leader, over its tail records with publish known: the probe's request times.
  private static final int OWN_QUEUE = 0;
  private static final int OWN_APPEND = 1;
  private static final int OWN_RECORDS = 2;
  private static final int LEADER_RECORDS = 3;

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.PUBLISH);
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    Map<Integer, double[]> byLeader = new TreeMap<>();
    Map<Integer, double[]> timingsByLeader = new TreeMap<>();
    Map<Integer, double[]> ownByLeader = new TreeMap<>();
    FollowerHolds holds = new FollowerHolds(Segment.PUBLISH);
    double remainder = 0;
    double held = 0;
    long commitP99 = Math.max(0, tail.windowP99Nanos(Segment.COMMIT));
    for (TailRecord r : tail.records()) {
      long publish = r.nanos(Segment.PUBLISH);
      if (publish < 0) {
        continue;
      }
      BrokerTimings.RequestTimings t = tail.timings(r, BrokerTimings.Request.PRODUCE);
      boolean own = r.hasRequestTimes();
      double[] ownSums = ownByLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[4]);
      ownSums[LEADER_RECORDS]++;
      long queue;
      long append;
      if (own) {
        // The record's own request, not the mean of every client's: another client's slow
        // appends do not land on this record, and its own show without scraped timings.
        queue = Math.min(publish, r.requestQueueNanos());
        append = Math.min(publish - queue, r.requestLocalNanos());
        ownSums[OWN_QUEUE] += r.requestQueueNanos();
        ownSums[OWN_APPEND] += r.requestLocalNanos();
        ownSums[OWN_RECORDS]++;
      } else {
        queue = t == null ? 0 : Math.min(publish, t.requestQueueNanos());
        append = t == null ? 0 : Math.min(publish - queue, t.localNanos());
      }
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
      if (t != null || own || heldBehind > 0) {
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
          brokerEvidence(
              tail, timingsByLeader.get(e.getKey()), ownByLeader.get(e.getKey()), commitP99);
      Map<String, Object> withPartitions = new LinkedHashMap<>(evidence);
      tail.partitionEvidence(e.getKey(), withPartitions);
      String manyLeaders = tail.leadsManyMore(e.getKey());
      add(
          out,
          tail,
          sums[QUEUE],
          broker + " request queue",
          withPartitions,
          "Produce requests wait in "
              + broker
              + "'s request queue: its I/O threads are busy. Raise num.io.threads (and"
              + " num.network.threads if its network threads are busy too), or move partition"
              + " leaders off it."
              + manyLeaders);
      add(
          out,
          tail,
          sums[APPEND],
          broker + " log append",
          withPartitions,
          broker
              + " is slow from reading the produce request to appending it (LocalTimeMs): a"
              + " slow or busy disk (or flush.messages forcing a flush per append), the broker"
              + " recompressing batches (a topic compression.type other than the producer's:"
              + " use the same codec on both, or compression.type=producer on the topic), or"
              + " many partitions per broker. Spread the leaders over more brokers, or look at"
              + " the disk."
              + manyLeaders);
      Map<String, Object> withReplication = new LinkedHashMap<>(withPartitions);
      tail.isrEvidence(e.getKey(), false, withReplication);
      tail.otherMaxLagEvidence(e.getKey(), withReplication);
      add(
          out,
          tail,
          sums[REPLICATION] + (heldCounts ? sums[HELD] : 0),
          broker + " replication",
          withReplication,
          "acks=all requests on "
              + broker
              + " wait for its followers, and the requests behind them on the same connection"
              + " wait too. Look for a slow follower of its partitions (replica fetcher lag,"
              + " ISR shrinks)."
              + manyLeaders);
    }
    int ownRecords = 0;
    for (double[] ownSums : ownByLeader.values()) {
      ownRecords += (int) ownSums[OWN_RECORDS];
    }
    network(
        tail, remainder / Math.max(1, tail.size()), !timingsByLeader.isEmpty(), ownRecords, out);
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

  // What is left of publish after the request timings, the record's own or the broker's means.
  private static void network(
      TailEvidence tail, double network, boolean brokerTimings, int ownRecords, List<Finding> out) {
    if (tail.share(network) < Diagnosis.SEGMENT_CAUSE_SHARE) {
      return;
    }
    int leader = tail.commonLeader();
    String where = leader < 0 ? "the leader" : "broker " + leader;
    Map<String, Object> evidence = tail.segmentEvidence(Segment.PUBLISH);
    evidence.put("outside the broker's request timings, tail mean", ms(network));
    evidence.put("broker request timings", brokerTimings ? "read" : "none (not scraped)");
    if (ownRecords > 0) {
      evidence.put(OWN_RECORDS_KEY, ownRecords + " of " + tail.size());
    }
    out.add(
        brokerTimings || ownRecords > 0
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

  private static final String OWN_RECORDS_KEY =
      "tail records with their own request times (broker probe)";

  private static Map<String, Object> brokerEvidence(
      TailEvidence tail, double[] timingSums, double[] ownSums, long commitP99) {
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
    if (ownSums != null && ownSums[OWN_RECORDS] > 0) {
      double n = ownSums[OWN_RECORDS];
      evidence.put(
          "Produce request queue, the tail's own requests (broker probe), mean",
          ms(ownSums[OWN_QUEUE] / n));
      evidence.put(
          "Produce queue to append, the tail's own requests (broker probe), mean",
          ms(ownSums[OWN_APPEND] / n));
      evidence.put(OWN_RECORDS_KEY, (int) n + " of " + (int) ownSums[LEADER_RECORDS]);
    }
    evidence.put("commit, window p99", ms(commitP99));
    return evidence;
  }
}

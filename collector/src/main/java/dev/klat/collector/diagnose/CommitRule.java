package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.model.Segment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The commit segment ({@code H - L}): replication to every in-sync replica. With the leaders'
 * probes each record knows the follower whose fetch moved the high watermark over it, the one it
 * waited for last: when one follower committed most of the tail's commit time, it is named.
 * Otherwise the finding names the leader most tail records went to.
 *
 * <p>A {@code read_committed} group reading records written in transactions (section 9 of the
 * latency model) has commit {@code V - L}: replication, then the wait for the transaction's commit
 * marker. When that wait is most of the tail's commit, the knob is the producer's transaction
 * duration (Kafka Streams: {@code commit.interval.ms}, 100 ms by default with {@code
 * exactly_once_v2}), not replication.
 */
final class CommitRule implements Rule {
  /** The share of the tail's commit time one follower must have committed to be named. */
  static final double FOLLOWER_SHARE = 0.5;

  /** The share of the tail's commit time the transaction wait must be to name the transaction. */
  static final double TRANSACTION_SHARE = 0.5;

  /** The knob named when records wait for their transactions. */
  static final String TRANSACTION_KNOB = "transaction duration";

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.COMMIT);
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    double commit = tail.meanNanos(Segment.COMMIT);
    if (tail.share(commit) < Diagnosis.SEGMENT_CAUSE_SHARE) {
      return List.of();
    }
    int leader = tail.commonLeader();
    Map<String, Object> evidence = tail.segmentEvidence(Segment.COMMIT);
    double transaction = tail.mean(TailRecord::transactionWaitNanos);
    if (transaction > 0 && transaction >= TRANSACTION_SHARE * commit) {
      return List.of(transactionWait(tail, commit, transaction, evidence));
    }
    BrokerTimings.RequestTimings produce = tail.leaderTimings(BrokerTimings.Request.PRODUCE);
    if (produce != null) {
      evidence.put("Produce RemoteTimeMs at the leader, broker mean", ms(produce.remoteNanos()));
    }
    tail.partitionEvidence(leader, evidence);
    int follower = slowestFollower(tail, commit, evidence);
    if (follower >= 0) {
      tail.maxLagEvidence(follower, evidence);
    } else {
      tail.otherMaxLagEvidence(leader, evidence); // which follower is behind, if any
    }
    tail.isrEvidence(leader, false, evidence);
    return List.of(
        tail.finding(
            Segment.COMMIT,
            FollowerHolds.knob(leader, follower),
            commit,
            evidence,
            "Records wait for the in-sync replicas"
                + (leader < 0 ? "" : " of broker " + leader + "'s partitions")
                + " to fetch them. "
                + FollowerHolds.slowFollower(follower)
                + " Many partitions per broker slow replication too. acks=1 does not shorten"
                + " commit for consumers, who read only committed records."
                + tail.leadsManyMore(leader)));
  }

  // Section 9: the tail's records waited for their transaction's marker, not for the followers.
  private static Finding transactionWait(
      TailEvidence tail, double commit, double transaction, Map<String, Object> evidence) {
    evidence.put("transaction wait V - H, tail mean", ms(transaction));
    evidence.put("replication H - L, tail mean", ms(commit - transaction));
    evidence.put(
        "share of the tail's commit time waiting for the transaction",
        Math.round(100 * transaction / commit) + "%");
    return tail.finding(
        Segment.COMMIT,
        TRANSACTION_KNOB,
        commit,
        evidence,
        "Records written in a transaction are read by this read_committed group only once the"
            + " producer committed the transaction and the leader's last stable offset passed its"
            + " commit marker: they wait for the rest of their transaction, not for replication."
            + " Shorten the producer's transactions: Kafka Streams with exactly_once_v2 commits"
            + " every commit.interval.ms (100 ms by default); a transactional producer, commit"
            + " more often. read_uncommitted consumers do not wait, but read aborted records.");
  }

  /** The follower that committed most of the tail's commit time, or -1 when none did. */
  private static int slowestFollower(
      TailEvidence tail, double commitMean, Map<String, Object> evidence) {
    Map<Integer, Double> byFollower = new TreeMap<>();
    for (TailRecord r : tail.records()) {
      if (r.commitFollowerId() >= 0 && r.nanos(Segment.COMMIT) > 0) {
        byFollower.merge(r.commitFollowerId(), (double) r.nanos(Segment.COMMIT), Double::sum);
      }
    }
    double total = commitMean * tail.size();
    for (Map.Entry<Integer, Double> e : byFollower.entrySet()) {
      if (total > 0 && e.getValue() / total >= FOLLOWER_SHARE) {
        evidence.put(
            "share of the tail's commit time ended by broker " + e.getKey() + "'s fetch",
            Math.round(100 * e.getValue() / total) + "%");
        return e.getKey();
      }
    }
    return -1;
  }
}

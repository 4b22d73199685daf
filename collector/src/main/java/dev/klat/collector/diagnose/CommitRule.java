package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.correlate.BrokerTimings;
import dev.klat.model.Segment;
import java.util.List;
import java.util.Map;

/**
 * The commit segment ({@code H - L}): replication to every in-sync replica. Named after the leader
 * most tail records went to; which follower is slow needs the followers' own fetch figures, which
 * klat does not read yet.
 */
final class CommitRule implements Rule {

  @Override
  public List<Finding> explain(TailEvidence tail) {
    double commit = tail.meanNanos(Segment.COMMIT);
    if (tail.share(commit) < Diagnosis.SEGMENT_CAUSE_SHARE) {
      return List.of();
    }
    int leader = tail.commonLeader();
    Map<String, Object> evidence = tail.segmentEvidence(Segment.COMMIT);
    BrokerTimings.RequestTimings produce = tail.leaderTimings(BrokerTimings.Request.PRODUCE);
    if (produce != null) {
      evidence.put("Produce RemoteTimeMs at the leader, broker mean", ms(produce.remoteNanos()));
    }
    return List.of(
        tail.finding(
            Segment.COMMIT,
            leader < 0 ? "replication" : "broker " + leader + " replication",
            commit,
            evidence,
            "Records wait for the in-sync replicas"
                + (leader < 0 ? "" : " of broker " + leader + "'s partitions")
                + " to fetch them: look for a slow follower (replica fetcher lag, ISR shrinks) and"
                + " for many partitions per broker. acks=1 does not shorten this for consumers,"
                + " who read only committed records; it only stops the producer waiting too."));
  }
}

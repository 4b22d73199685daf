package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Segment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The part of the tail's publish that {@code acks=all} requests ahead on the connection held, or of
 * its produce that batches waited for a request slot those requests took, as the leaders' probes
 * measured it: per leader and follower whose fetch ended the wait, the time held and the longest
 * wait. A follower is named only where one explains as much as a cause named by its segment: every
 * {@code acks=all} request waits for some follower, a slow one is what matters.
 */
final class FollowerHolds {
  private record Key(int leaderId, int followerId) {}

  private static final class Held {
    double sumNanos;
    int records;
  }

  private final Segment segment;

  /** Holds of {@link Segment#PUBLISH} or of {@link Segment#PRODUCE}'s wait for a request slot. */
  FollowerHolds(Segment segment) {
    this.segment = segment;
  }

  private final Map<Key, Held> held =
      new TreeMap<>(
          (a, b) ->
              a.leaderId != b.leaderId
                  ? Integer.compare(a.leaderId, b.leaderId)
                  : Integer.compare(a.followerId, b.followerId));

  void add(int leaderId, CommitWaits.CommitWait wait, long heldNanos) {
    if (heldNanos <= 0) {
      return;
    }
    Held h = held.computeIfAbsent(new Key(leaderId, wait.followerId()), k -> new Held());
    h.sumNanos += heldNanos;
    h.records++;
  }

  void findings(TailEvidence tail, List<Finding> out) {
    for (Map.Entry<Key, Held> e : held.entrySet()) {
      double mean = e.getValue().sumNanos / tail.size();
      if (tail.share(mean) < Diagnosis.SEGMENT_CAUSE_SHARE) {
        continue;
      }
      Key key = e.getKey();
      Map<String, Object> evidence = new LinkedHashMap<>();
      boolean produce = segment == Segment.PRODUCE;
      evidence.put(
          produce ? "produce, tail mean" : "publish, tail mean", ms(tail.meanNanos(segment)));
      evidence.put("acks", "all");
      evidence.put("tail records held", e.getValue().records);
      evidence.put(
          (produce ? "waiting for a request slot during broker " : "held behind broker ")
              + key.leaderId
              + "'s high-watermark waits, mean of those",
          ms(e.getValue().sumNanos / e.getValue().records));
      evidence.put(
          "the waits ended by",
          key.followerId < 0
              ? "no follower's fetch (the leader alone in the ISR)"
              : "broker " + key.followerId + "'s fetch (broker probe)");
      // A leader of many partitions makes each of its followers' fetches longer: whichever
      // follower ends the wait, the leader's partition count may be the reason.
      tail.partitionEvidence(key.leaderId, evidence);
      // The follower's lag says whether it falls behind on every partition it follows, the
      // leader's ISR shrinks whether a follower fell behind for long enough to leave the ISR.
      if (key.followerId >= 0) {
        tail.maxLagEvidence(key.followerId, evidence);
      } else {
        tail.otherMaxLagEvidence(key.leaderId, evidence);
      }
      tail.isrEvidence(key.leaderId, false, evidence);
      String held =
          produce
              ? "Batches waited for a free request slot: the max.in.flight.requests.per.connection"
                  + " acks=all Produce requests already sent to broker "
                  + key.leaderId
                  + " were waiting for its high watermark, so more in flight would only queue"
                  + " more behind them. "
              : "acks=all Produce requests to broker "
                  + key.leaderId
                  + " waited for its high watermark, and the requests behind them on the same"
                  + " connection waited before broker "
                  + key.leaderId
                  + " read them. ";
      out.add(
          tail.finding(
              segment,
              knob(key.leaderId, key.followerId),
              mean,
              evidence,
              held + slowFollower(key.followerId) + tail.leadsManyMore(key.leaderId)));
    }
  }

  /** The knob a replication wait names: the follower when known, else the leader's replication. */
  static String knob(int leaderId, int followerId) {
    return followerId >= 0
        ? "broker " + followerId + " follower fetch"
        : (leaderId < 0 ? "replication" : "broker " + leaderId + " replication");
  }

  /** What to look at when a follower holds the high watermark back. */
  static String slowFollower(int followerId) {
    if (followerId < 0) {
      return "Look for a slow follower of its partitions (replica fetcher lag, ISR shrinks).";
    }
    return "Broker "
        + followerId
        + " was the follower the high watermark waited for: look at its replica fetchers"
        + " (num.replica.fetchers, replica.fetch.wait.max.ms), its disk, network and GC pauses. A"
        + " follower that stays behind for replica.lag.time.max.ms leaves the ISR; acks=1 stops the"
        + " producer waiting for it, at the cost of durability.";
  }
}

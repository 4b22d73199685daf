package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.BrokerTimings;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The publish segment ({@code L - D}): the leader's request queue and log append, from the leader's
 * own {@code RequestMetrics} for Produce (means over its latest scrape interval, so an estimate for
 * any one record), and the network path to the leader, which is what remains.
 */
final class PublishRules implements Rule {

  @Override
  public List<Finding> explain(TailEvidence tail) {
    // Per leader: the queue and the append each tail record's publish contains, in nanoseconds.
    Map<Integer, double[]> byLeader = new TreeMap<>();
    double remainder = 0;
    for (TailRecord r : tail.records()) {
      long publish = r.nanos(Segment.PUBLISH);
      if (publish < 0) {
        continue;
      }
      BrokerTimings.RequestTimings t =
          tail.timings(r.leaderNodeId(), BrokerTimings.Request.PRODUCE);
      long queue = t == null ? 0 : Math.min(publish, t.requestQueueNanos());
      long append = t == null ? 0 : Math.min(publish - queue, t.localNanos());
      if (t != null) {
        double[] sums = byLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[2]);
        sums[0] += queue;
        sums[1] += append;
      }
      remainder += publish - queue - append;
    }
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Integer, double[]> e : byLeader.entrySet()) {
      int broker = e.getKey();
      BrokerTimings.RequestTimings t = tail.timings(broker, BrokerTimings.Request.PRODUCE);
      double queue = e.getValue()[0] / tail.size();
      double append = e.getValue()[1] / tail.size();
      if (queue > 0) {
        out.add(
            tail.finding(
                Segment.PUBLISH,
                "broker " + broker + " request queue",
                queue,
                brokerEvidence(tail, t),
                "Produce requests wait in broker "
                    + broker
                    + "'s request queue: its I/O threads are busy. Raise num.io.threads (and"
                    + " num.network.threads if the network threads are busy too), or move"
                    + " partition leaders off it."));
      }
      if (append > 0) {
        out.add(
            tail.finding(
                Segment.PUBLISH,
                "broker " + broker + " log append",
                append,
                brokerEvidence(tail, t),
                "Broker "
                    + broker
                    + " is slow to append to its log (LocalTimeMs): a slow or busy disk, or many"
                    + " partitions per broker. Spread the leaders over more brokers, or look at"
                    + " the disk."));
      }
    }
    double network = remainder / Math.max(1, tail.size());
    if (tail.share(network) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      int leader = tail.commonLeader();
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put("publish, tail mean", ms(tail.meanNanos(Segment.PUBLISH)));
      long median = tail.windowMedianNanos(Segment.PUBLISH);
      evidence.put("publish, window median", median < 0 ? "unknown" : ms(median));
      evidence.put("outside the broker's request timings, tail mean", ms(network));
      evidence.put(
          "broker request timings", byLeader.isEmpty() ? "none (not scraped)" : byLeader.keySet());
      out.add(
          tail.finding(
              Segment.PUBLISH,
              leader < 0 ? "network to the leader" : "network to broker " + leader,
              network,
              evidence,
              "The time is between the producer and the leader, outside the broker's own request"
                  + " timings: the network path, or earlier requests on the same connection (a"
                  + " broker reads one request per connection at a time). Compare with the path's"
                  + " round trip; fewer, larger requests (linger.ms, batch.size) help a busy"
                  + " connection."));
    }
    return out;
  }

  private static Map<String, Object> brokerEvidence(
      TailEvidence tail, BrokerTimings.RequestTimings t) {
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("publish, tail mean", ms(tail.meanNanos(Segment.PUBLISH)));
    evidence.put("Produce RequestQueueTimeMs, broker mean", ms(t.requestQueueNanos()));
    evidence.put("Produce LocalTimeMs, broker mean", ms(t.localNanos()));
    evidence.put("Produce requests in the interval", t.requests());
    return evidence;
  }
}

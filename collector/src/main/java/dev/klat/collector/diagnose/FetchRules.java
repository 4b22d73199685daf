package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fetch segment ({@code R - max(F, H)}): the leader holding a fetch for {@code fetch.min.bytes}
 * up to {@code fetch.max.wait.ms}, the consumers' fetch requests waiting in the leader's request
 * queue (its {@code FetchConsumer} {@code RequestQueueTimeMs}, a mean over the scrape interval),
 * and otherwise the way back.
 */
final class FetchRules implements Rule {
  private static final long MS = 1_000_000L;

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.FETCH);
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    List<Finding> out = new ArrayList<>();
    double held = tail.mean(r -> heldNanos(r, r.nanos(Segment.FETCH)));
    if (held > 0) {
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put("fetch.min.bytes", tail.setting(r -> r.consumer().fetchMinBytes()));
      evidence.put("fetch.max.wait.ms", tail.setting(r -> r.consumer().fetchMaxWaitMs()));
      evidence.put("fetch, tail mean", ms(tail.meanNanos(Segment.FETCH)));
      out.add(
          tail.finding(
              Segment.FETCH,
              "fetch.min.bytes",
              held,
              evidence,
              "The leader holds each fetch until fetch.min.bytes have arrived or"
                  + " fetch.max.wait.ms has passed, and at this rate the wait runs out. Lower"
                  + " fetch.min.bytes (1 answers at once) or fetch.max.wait.ms; it costs more"
                  + " fetch requests."));
    }
    double queued = fetchQueue(tail, out);
    double rest = tail.meanNanos(Segment.FETCH) - held - queued;
    if (tail.share(rest) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      int leader = tail.commonLeader();
      Map<String, Object> evidence = tail.segmentEvidence(Segment.FETCH);
      BrokerTimings.RequestTimings t = tail.leaderTimings(BrokerTimings.Request.FETCH_CONSUMER);
      if (t != null) {
        evidence.put("FetchConsumer RequestQueueTimeMs, broker mean", ms(t.requestQueueNanos()));
        evidence.put("FetchConsumer ResponseSendTimeMs, broker mean", ms(t.responseSendNanos()));
      }
      out.add(
          tail.finding(
              Segment.FETCH,
              leader < 0 ? "fetch path" : "fetch path from broker " + leader,
              rest,
              evidence,
              "Fetch responses take long to come back once the record is committed and asked"
                  + " for: large responses, or the network back."
                  + " fetch.max.bytes and max.partition.fetch.bytes bound the response size."));
    }
    return out;
  }

  /**
   * Adds a finding per leader whose consumer fetches waited in its request queue, each tail
   * record's share bounded by what {@code fetch.min.bytes} left of its fetch; returns the tail's
   * mean of those waits.
   */
  private static double fetchQueue(TailEvidence tail, List<Finding> out) {
    Map<Integer, double[]> byLeader = new TreeMap<>();
    double queued = 0;
    for (TailRecord r : tail.records()) {
      long fetch = r.nanos(Segment.FETCH);
      BrokerTimings.RequestTimings t = tail.timings(r, BrokerTimings.Request.FETCH_CONSUMER);
      if (fetch <= 0 || t == null) {
        continue;
      }
      long queue = Math.max(0, Math.min(fetch - heldNanos(r, fetch), t.requestQueueNanos()));
      double[] sums = byLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[3]);
      sums[0] += queue;
      sums[1] += t.requestQueueNanos();
      sums[2]++;
      queued += queue;
    }
    for (Map.Entry<Integer, double[]> e : byLeader.entrySet()) {
      double[] sums = e.getValue();
      if (sums[0] <= 0) {
        continue;
      }
      String broker = "broker " + e.getKey();
      Map<String, Object> evidence = tail.segmentEvidence(Segment.FETCH);
      evidence.put("FetchConsumer RequestQueueTimeMs, broker mean", ms(sums[1] / sums[2]));
      out.add(
          tail.finding(
              Segment.FETCH,
              broker + " fetch queue",
              sums[0] / tail.size(),
              evidence,
              "Consumer fetch requests wait in "
                  + broker
                  + "'s request queue before an I/O thread takes them: its I/O threads are busy"
                  + " (the same threads append produce requests and answer followers). Raise"
                  + " num.io.threads, or move partition leaders off it."));
    }
    return queued / Math.max(1, tail.size());
  }

  private static long heldNanos(TailRecord r, long fetch) {
    return r.consumer().fetchMinBytes() > 1 && r.consumer().fetchMaxWaitMs() > 0
        ? Math.min(fetch, r.consumer().fetchMaxWaitMs() * MS)
        : 0;
  }
}

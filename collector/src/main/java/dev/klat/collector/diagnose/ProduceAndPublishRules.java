package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.model.Capture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The combined {@code produce+publish} segment ({@code L - S}) of records whose producer was seen
 * through an OpenTelemetry instrumentation (section 10 of the latency model): the span gives {@code
 * S}, the leader's probe {@code L}, and nothing between. The leader's part is named as publish's
 * is: the record's own produce request's time in the request queue and from there to the append, as
 * the leader's probe timed it, else the leader's Produce {@code RequestMetrics} means over the
 * scrape interval the record was appended in. The rest is the producer's batching ({@code
 * linger.ms}, {@code batch.size}), its wait for a request slot, for {@code buffer.memory} or for
 * metadata, and the network: without klat's agent (no {@code D}, no batch, no settings) they cannot
 * be told apart, so the rest is a cause named by its segment, shown when it explains at least
 * {@link Diagnosis#SEGMENT_CAUSE_SHARE} of the tail.
 */
final class ProduceAndPublishRules implements Rule {
  /** The combined segment's id, as findings and the API name it. */
  static final String SEGMENT = "produce+publish";

  // Per leader, the sums over its tail records.
  private static final int QUEUE = 0;
  private static final int APPEND = 1;
  private static final int OWN = 2;
  private static final int MEANS = 3;
  private static final int RECORDS = 4;

  @Override
  public boolean weighs(TailRecord record) {
    return record.capture() == Capture.OPENTELEMETRY && record.knowsProduceAndPublishOnly();
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    Map<Integer, double[]> byLeader = new TreeMap<>();
    double rest = 0;
    double total = 0;
    for (TailRecord r : tail.records()) {
      long segment = r.produceAndPublishNanos();
      total += segment;
      long queue = 0;
      long append = 0;
      double[] sums = byLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[5]);
      sums[RECORDS]++;
      if (r.hasRequestTimes()) {
        // The record's own request, timed by the leader's probe: exact for that request.
        queue = Math.min(segment, r.requestQueueNanos());
        append = Math.min(segment - queue, r.requestLocalNanos());
        sums[OWN]++;
      } else {
        BrokerTimings.RequestTimings t = tail.timings(r, BrokerTimings.Request.PRODUCE);
        if (t != null) {
          queue = Math.min(segment, t.requestQueueNanos());
          append = Math.min(segment - queue, t.localNanos());
          sums[MEANS]++;
        }
      }
      sums[QUEUE] += queue;
      sums[APPEND] += append;
      rest += segment - queue - append;
    }
    int n = tail.size();
    List<Finding> out = new ArrayList<>();
    int timed = 0;
    for (Map.Entry<Integer, double[]> e : byLeader.entrySet()) {
      double[] sums = e.getValue();
      timed += (int) (sums[OWN] + sums[MEANS]);
      if (e.getKey() < 0) {
        continue;
      }
      String broker = "broker " + e.getKey();
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put(SEGMENT + " (L - S), tail mean", ms(total / n));
      evidence.put(
          "tail records with their own request times (broker probe)",
          (int) sums[OWN] + " of " + (int) sums[RECORDS]);
      evidence.put(
          "tail records with the broker's Produce request timings (means)",
          (int) sums[MEANS] + " of " + (int) sums[RECORDS]);
      tail.partitionEvidence(e.getKey(), evidence);
      String manyLeaders = tail.leadsManyMore(e.getKey());
      if (sums[QUEUE] > 0) {
        Map<String, Object> queueEvidence = new LinkedHashMap<>(evidence);
        queueEvidence.put("in the request queue, tail mean", ms(sums[QUEUE] / n));
        out.add(
            tail.finding(
                SEGMENT,
                broker + " request queue",
                sums[QUEUE] / n,
                queueEvidence,
                "Produce requests wait in "
                    + broker
                    + "'s request queue: its I/O threads are busy. Raise num.io.threads (and"
                    + " num.network.threads if its network threads are busy too), or move"
                    + " partition leaders off it."
                    + manyLeaders));
      }
      if (sums[APPEND] > 0) {
        Map<String, Object> appendEvidence = new LinkedHashMap<>(evidence);
        appendEvidence.put("from the queue to the append, tail mean", ms(sums[APPEND] / n));
        out.add(
            tail.finding(
                SEGMENT,
                broker + " log append",
                sums[APPEND] / n,
                appendEvidence,
                broker
                    + " is slow from reading the produce request to appending it: a slow or busy"
                    + " disk, the broker recompressing batches (a topic compression.type other"
                    + " than the producer's), or many partitions per broker."
                    + manyLeaders));
      }
    }
    double restMean = rest / n;
    if (tail.share(restMean) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      out.add(producerOrNetwork(tail, total / n, restMean, timed));
    }
    return out;
  }

  // What the leader's timings leave: the producer and the way to the leader, not told apart.
  private static Finding producerOrNetwork(
      TailEvidence tail, double segmentMean, double restMean, int timed) {
    int leader = tail.commonLeader();
    String where = leader < 0 ? "the leader" : "broker " + leader;
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put(SEGMENT + " (L - S), tail mean", ms(segmentMean));
    evidence.put("before " + where + " read the request, tail mean", ms(restMean));
    evidence.put(
        "tail records with the leader's request timings (probe or broker means)",
        timed + " of " + tail.size());
    evidence.put("producer settings and batches", "unknown (no klat agent on the producer)");
    evidence.put(
        "not told apart without klat's agent",
        "linger.ms, batch.size, max.in.flight.requests.per.connection, buffer.memory, metadata,"
            + " the network"
            + (timed == 0 ? ", the leader's request queue and log append" : ""));
    return tail.finding(
        SEGMENT,
        "in the producer or on the way to " + where,
        restMean,
        evidence,
        "The time is between the application's send (the span's start, S) and "
            + where
            + " reading the produce request, and the span says nothing of what came between:"
            + " klat cannot tell the producer's batching (linger.ms, batch.size), its wait for a"
            + " request slot (max.in.flight.requests.per.connection), for buffer.memory or for"
            + " metadata, from the network or the request waiting on its connection behind an"
            + " earlier one. Compare with the producer's linger.ms and the round trip to "
            + where
            + "; klat's agent on a JVM producer splits produce from publish."
            + (timed == 0
                ? " Without the leader's probe or the brokers' request metrics (brokers.*"
                    + " settings) the leader's own queue and append are in it too."
                : ""));
  }
}

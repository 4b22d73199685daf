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
 * The combined {@code catch-up+fetch} segment ({@code P - H}, {@code P - V}) of records whose
 * consumer was seen through an OpenTelemetry instrumentation (section 10 of the latency model): the
 * leader's probe gives {@code H}, the span {@code P}, and nothing between. The consumers' fetch
 * requests waiting in the leader's request queue are named from its {@code FetchConsumer} {@code
 * RequestQueueTimeMs} (a mean over the scrape interval). The rest is the consumer's lag (the
 * application busy with earlier records, too few consumers), the fetch wait ({@code
 * fetch.min.bytes}, {@code fetch.max.wait.ms}), the network and the time in the client before the
 * application took the record: without klat's agent (no {@code F}, no {@code R}, no settings) they
 * cannot be told apart, so the rest is a cause named by its segment, shown when it explains at
 * least {@link Diagnosis#SEGMENT_CAUSE_SHARE} of the tail. The collector reads no consumer-group
 * offsets: the lag it shows is in time, this segment itself.
 */
final class CatchUpAndFetchRules implements Rule {
  /** The combined segment's id, as findings and the API name it. */
  static final String SEGMENT = "catch-up+fetch";

  /**
   * The longest fetch wait of the clients' defaults: kafka-clients' {@code fetch.max.wait.ms} and
   * librdkafka's {@code fetch.wait.max.ms} (500 ms); kafkajs's {@code maxWaitTimeInMs} is 5000 ms.
   */
  static final long DEFAULT_FETCH_MAX_WAIT_NANOS = 500_000_000L;

  @Override
  public boolean weighs(TailRecord record) {
    return record.capture() == Capture.OPENTELEMETRY && record.knowsCatchUpAndFetchOnly();
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    int n = tail.size();
    double total = tail.mean(TailRecord::catchUpAndFetchNanos);
    Map<Integer, double[]> byLeader = new TreeMap<>();
    double queued = 0;
    for (TailRecord r : tail.records()) {
      BrokerTimings.RequestTimings t = tail.timings(r, BrokerTimings.Request.FETCH_CONSUMER);
      if (t == null || r.leaderNodeId() < 0) {
        continue;
      }
      long queue = Math.min(r.catchUpAndFetchNanos(), Math.max(0, t.requestQueueNanos()));
      double[] sums = byLeader.computeIfAbsent(r.leaderNodeId(), k -> new double[3]);
      sums[0] += queue;
      sums[1] += t.requestQueueNanos();
      sums[2]++;
      queued += queue;
    }
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Integer, double[]> e : byLeader.entrySet()) {
      double[] sums = e.getValue();
      if (sums[0] <= 0) {
        continue;
      }
      String broker = "broker " + e.getKey();
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put(SEGMENT + " (P - H), tail mean", ms(total));
      evidence.put("FetchConsumer RequestQueueTimeMs, broker mean", ms(sums[1] / sums[2]));
      out.add(
          tail.finding(
              SEGMENT,
              broker + " fetch queue",
              sums[0] / n,
              evidence,
              "Consumer fetch requests wait in "
                  + broker
                  + "'s request queue before an I/O thread takes them: its I/O threads are busy"
                  + " (the same threads append produce requests and answer followers). Raise"
                  + " num.io.threads, or move partition leaders off it."));
    }
    double rest = total - queued / n;
    if (tail.share(rest) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      out.add(lagOrFetchWait(tail, total, rest));
    }
    return out;
  }

  // What the leader's fetch queue leaves: lag, the fetch wait, the network, the client.
  private static Finding lagOrFetchWait(TailEvidence tail, double total, double rest) {
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put(SEGMENT + " (P - H), tail mean", ms(total));
    long longerThanWait =
        tail.records().stream()
            .filter(r -> r.catchUpAndFetchNanos() > DEFAULT_FETCH_MAX_WAIT_NANOS)
            .count();
    evidence.put(
        "tail records over 500 ms (the default fetch.max.wait.ms)",
        longerThanWait + " of " + tail.size());
    evidence.put("consumer settings", "unknown (no klat agent on the consumer)");
    evidence.put(
        "not told apart without klat's agent",
        "consumer lag (the application, too few consumers), fetch.min.bytes, fetch.max.wait.ms,"
            + " the network, the time in the client before the application took the record");
    evidence.put(
        "consumer clock",
        "bounded on one side only: a clock ahead of the leader's lengthens this segment");
    return tail.finding(
        SEGMENT,
        "consumer lag or fetch wait",
        rest,
        evidence,
        "Records wait between their commit on the leader (H) and the moment the instrumentation"
            + " handed them to the application (P), and the span says nothing of what came"
            + " between: klat cannot tell consumer lag (the application busy with earlier"
            + " records, too few consumers) from the fetch wait (fetch.min.bytes,"
            + " fetch.max.wait.ms), the network or the time in the client before the"
            + " application took the record. With fetch.min.bytes at 1 (the default of"
            + " kafka-clients, librdkafka and kafkajs) the leader answers a waiting fetch as soon"
            + " as the record is committed, and no fetch waits longer than fetch.max.wait.ms"
            + " (500 ms in kafka-clients and librdkafka, maxWaitTimeInMs 5000 ms in kafkajs):"
            + " time well beyond it is lag, which more consumers (up to one per partition), more"
            + " partitions or a faster application shorten. klat's agent on a JVM consumer"
            + " splits catch-up from fetch.");
  }
}

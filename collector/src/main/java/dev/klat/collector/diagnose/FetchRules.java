package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.correlate.BrokerTimings;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fetch segment ({@code R - max(F, H)}): the leader holding a fetch for {@code fetch.min.bytes}
 * up to {@code fetch.max.wait.ms}, and otherwise the way back.
 */
final class FetchRules implements Rule {
  private static final long MS = 1_000_000L;

  @Override
  public List<Finding> explain(TailEvidence tail) {
    List<Finding> out = new ArrayList<>();
    double held =
        tail.mean(
            r ->
                r.consumer().fetchMinBytes() > 1 && r.consumer().fetchMaxWaitMs() > 0
                    ? Math.min(r.nanos(Segment.FETCH), r.consumer().fetchMaxWaitMs() * MS)
                    : 0);
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
    double rest = tail.meanNanos(Segment.FETCH) - held;
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
                  + " for: the leader's fetch queue, large responses, or the network back."
                  + " fetch.max.bytes and max.partition.fetch.bytes bound the response size."));
    }
    return out;
  }
}

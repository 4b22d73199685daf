package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catch-up segment, in its two parts: the record sat in the client's buffer until the
 * application called {@code poll()} ({@code P - R}: a slow application), and the record was
 * committed before the consumer asked for it ({@code F - H}: consumer lag).
 */
final class CatchUpRules implements Rule {

  @Override
  public List<Finding> explain(TailEvidence tail) {
    List<Finding> out = new ArrayList<>();
    double buffered = tail.mean(r -> r.bufferedNanos());
    if (tail.share(buffered) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put("in the consumer's buffer (P - R), tail mean", ms(buffered));
      evidence.put("max.poll.records", tail.setting(r -> r.consumer().maxPollRecords()));
      out.add(
          tail.finding(
              Segment.CATCH_UP,
              "application time between polls",
              buffered,
              evidence,
              "Records wait in the consumer until the application calls poll() again: it spends"
                  + " that long on the records of the previous poll. Process faster or in"
                  + " parallel, or lower max.poll.records so each poll's records are done"
                  + " sooner (more polls, each with less)."));
    }
    double lag = tail.mean(r -> r.lagNanos());
    if (tail.share(lag) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put("committed before the fetch (F - H), tail mean", ms(lag));
      evidence.put("catch-up, tail mean", ms(tail.meanNanos(Segment.CATCH_UP)));
      out.add(
          tail.finding(
              Segment.CATCH_UP,
              "consumer lag",
              lag,
              evidence,
              "Committed records wait for the consumer to ask for them: it is behind. Add"
                  + " consumers to the group (up to the partition count), or partitions, or make"
                  + " each consumer faster."));
    }
    return out;
  }
}

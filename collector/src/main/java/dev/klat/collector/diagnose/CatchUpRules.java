package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catch-up segment, in its two parts: the record sat in the client's buffer until the
 * application called {@code poll()} ({@code P - R}: a slow application), and the record was
 * committed before the consumer asked for it ({@code F - H}: consumer lag). A lagging consumer that
 * reads several partitions of the topic alone names the group's size: too few consumers.
 */
final class CatchUpRules implements Rule {
  private static final long MS = 1_000_000L;

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.CATCH_UP);
  }

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
                  + " that long on the records of the previous poll."
                  + pace(tail, evidence)
                  + " Process faster or in parallel, or lower max.poll.records so each poll's"
                  + " records are done sooner (more polls, each with less)."));
    }
    double lag = tail.mean(r -> r.lagNanos());
    if (tail.share(lag) >= Diagnosis.SEGMENT_CAUSE_SHARE) {
      Map<String, Object> evidence = new LinkedHashMap<>();
      evidence.put("committed before the fetch (F - H), tail mean", ms(lag));
      evidence.put("catch-up, tail mean", ms(tail.meanNanos(Segment.CATCH_UP)));
      long assigned = tail.median(r -> r.consumer().assignedPartitions());
      if (assigned > 0) {
        evidence.put("partitions of the topic per consumer, tail median", assigned);
      }
      String behind =
          "Committed records wait for the consumer to ask for them: it is behind."
              + pace(tail, evidence);
      if (assigned > 1) {
        out.add(
            tail.finding(
                Segment.CATCH_UP,
                "too few consumers",
                lag,
                evidence,
                behind
                    + " Each consumer reads "
                    + assigned
                    + " partitions of the topic: add consumers to the group, up to one per"
                    + " partition, so that each reads fewer; or make each consumer faster."));
      } else {
        out.add(
            tail.finding(
                Segment.CATCH_UP,
                "consumer lag",
                lag,
                evidence,
                behind
                    + (assigned == 1
                        ? " Each consumer reads one partition already: add partitions (and"
                            + " consumers), or make each consumer faster."
                        : " Add consumers to the group (up to the partition count), or"
                            + " partitions, or make each consumer faster.")));
      }
    }
    return out;
  }

  // The application's pace as the consumer agent saw it: time between polls, records per poll.
  private static String pace(TailEvidence tail, Map<String, Object> evidence) {
    long gap = tail.median(r -> r.consumer().pollGapNanos());
    long records = tail.median(r -> r.consumer().previousPollRecords());
    if (gap < 0 || records < 0) {
      return "";
    }
    evidence.put("time between polls, tail median", ms(gap));
    evidence.put("records of the poll before, tail median", records);
    if (gap < MS) {
      // Polled right after the poll before: the time was spent earlier, on the records ahead of
      // them (a backlog the application is still working through).
      return " The polls that returned them came right after the ones before (under 1 ms): they"
          + " queued behind records the application was still working through.";
    }
    if (records == 0) {
      return " Between polls it spent " + ms(gap) + " with no records to process.";
    }
    String perRecord = ms((double) gap / records);
    evidence.put("per record", perRecord);
    return " Between polls it spent "
        + ms(gap)
        + " on "
        + records
        + " record(s), about "
        + perRecord
        + " each.";
  }
}

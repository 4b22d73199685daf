package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.join.ShareEnd;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Catch-up's redelivery part for a share group (section 11 of the latency model): the tail's
 * records spent their time in earlier deliveries that failed. When those ended by lock timeout, the
 * finding says which of section 11's two readings the deliveries support: acknowledged, but after
 * the lock had run out (a slow acknowledging application), or never acknowledged (records held past
 * the acquisition lock, or a consumer that stopped). A release or reject by the application is its
 * own finding. The part is the measured one where the first delivery was seen; otherwise at most
 * the wait before the counted fetch, said so in the evidence.
 */
final class ShareRules implements Rule {

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.CATCH_UP);
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    double redelivery = tail.mean(TailRecord::redeliveryWaitNanos);
    if (tail.share(redelivery) < Diagnosis.SEGMENT_CAUSE_SHARE) {
      return List.of();
    }
    int redelivered = 0;
    int partKnown = 0;
    long deliveriesMax = 0;
    Map<String, Integer> ends = new TreeMap<>();
    // The lock-timeout deliveries: how many were acknowledged (too late, or refused), and how long
    // each was held from its acquisition to that acknowledgement.
    int acknowledgedLate = 0;
    int neverAcknowledged = 0;
    List<Long> heldNanos = new ArrayList<>();
    for (TailRecord r : tail.records()) {
      ShareRecord share = r.share();
      if (share == null || share.deliveryCount() <= 1) {
        continue;
      }
      redelivered++;
      partKnown += share.redeliveryKnown() ? 1 : 0;
      deliveriesMax = Math.max(deliveriesMax, share.deliveryCount());
      for (Map.Entry<ShareEnd, Integer> e : share.earlierEnds().entrySet()) {
        ends.merge(e.getKey().id(), e.getValue(), Integer::sum);
      }
      for (ShareRecord.Delivery d : share.deliveries()) {
        if (d.counted() || d.end() != ShareEnd.LOCK_TIMEOUT) {
          continue;
        }
        if (d.acknowledgeType() != null && d.acknowledgeNanos() != Long.MIN_VALUE) {
          acknowledgedLate++;
          heldNanos.add(Math.max(0, d.acknowledgeNanos() - d.acquiredNanos()));
        } else {
          neverAcknowledged++;
        }
      }
    }
    if (redelivered == 0) {
      return List.of();
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("redelivered records in the tail", redelivered + " of " + tail.records().size());
    evidence.put("deliveries per record, tail max", deliveriesMax);
    evidence.put("earlier deliveries by end", ends);
    evidence.put(
        partKnown == redelivered
            ? "redelivery part (first acquisition to the counted fetch), tail mean"
            : "redelivery part, tail mean (at most: the first delivery was not seen for "
                + (redelivered - partKnown)
                + " record(s), so their whole wait before the counted fetch is counted)",
        ms(redelivery));
    evidence.put("max.poll.records", tail.setting(r -> r.consumer().maxPollRecords()));
    int lockTimeouts = ends.getOrDefault(ShareEnd.LOCK_TIMEOUT.id(), 0);
    int released =
        ends.getOrDefault(ShareEnd.RELEASE.id(), 0) + ends.getOrDefault(ShareEnd.REJECT.id(), 0);
    if (released > lockTimeouts) {
      return List.of(
          tail.finding(
              Segment.CATCH_UP,
              "records released by the application",
              redelivery,
              evidence,
              "The application released these records, and the share group delivered them again:"
                  + " the time until the next delivery is in catch-up. Find why the application"
                  + " releases them (a failing dependency, a retry policy), or process them"
                  + " where they were first delivered."));
    }
    if (acknowledgedLate > neverAcknowledged) {
      long[] held = heldNanos.stream().mapToLong(Long::longValue).sorted().toArray();
      evidence.put("acknowledged after the lock ran out", acknowledgedLate + " deliveries");
      evidence.put(
          "held from acquisition to acknowledgement (K - R), median",
          ms(held[(held.length - 1) / 2]));
      evidence.put("held, max", ms(Arrays.stream(held).max().orElse(0)));
      return List.of(
          tail.finding(
              Segment.CATCH_UP,
              "slow acknowledging application",
              redelivery,
              evidence,
              "The application acknowledged these records only after their acquisition lock had"
                  + " run out, so the broker delivered them again: a slow acknowledging"
                  + " application. Acknowledge each record as soon as it is done, process faster,"
                  + " lower max.poll.records so that each poll's records are acknowledged sooner,"
                  + " or raise the lock (group.share.record.lock.duration.ms, within"
                  + " group.share.max.record.lock.duration.ms), or renew it while working"
                  + " (Kafka 4.2+)."));
    }
    evidence.put("never acknowledged before the next delivery", neverAcknowledged + " deliveries");
    return List.of(
        tail.finding(
            Segment.CATCH_UP,
            "lock timeout: group.share.record.lock.duration.ms",
            redelivery,
            evidence,
            "Records held past the acquisition lock: group.share.record.lock.duration.ms, or a"
                + " slow application: max.poll.records / processing time. The deliveries were"
                + " not acknowledged before the lock ran out, so the broker delivered the records"
                + " again and the earlier deliveries' time is in catch-up's redelivery part."
                + " Raise the lock (group.share.record.lock.duration.ms), lower max.poll.records,"
                + " process faster, or check for consumers that stopped holding records."));
  }
}

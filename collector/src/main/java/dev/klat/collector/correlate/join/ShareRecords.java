package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.model.Breakdown;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Makes a share group's deliveries of one record into the {@link ShareRecord} of its breakdown
 * (section 11 of the latency model): what ended each earlier delivery, and the redelivery part of
 * catch-up, known only when the first delivery's span was seen on a clock related to the
 * breakdown's (the counted delivery's own consumer, or a consumer whose offset against the producer
 * is bounded from both sides). Never guessed: otherwise the part is -1 and the count still shown.
 * Confined to the {@link Correlator}'s lock.
 */
final class ShareRecords {
  private static final Comparator<ConsumerSpan> BY_COUNT =
      Comparator.comparingInt(c -> c.share().deliveryCount());

  private final HostNames hostNames;
  private final ClockOffsets offsets;

  ShareRecords(HostNames hostNames, ClockOffsets offsets) {
    this.hostNames = hostNames;
    this.offsets = offsets;
  }

  /**
   * The counted delivery's breakdown with its deliveries: for a redelivered record whose first
   * delivery is placed, recomputed with {@code R(1)} ({@link Breakdown#computeRedelivered}).
   */
  JoinedBreakdown withDeliveries(
      SharePending pending,
      ConsumerSpan counted,
      ProducerSpan producer,
      JoinedBreakdown joined,
      long now) {
    List<ConsumerSpan> seen = new ArrayList<>(pending.deliveries);
    seen.sort(BY_COUNT);
    int n = counted.share().deliveryCount();
    Map<ShareEnd, Integer> ends = new EnumMap<>(ShareEnd.class);
    int earlierSeen = 0;
    List<ShareRecord.Delivery> deliveries = new ArrayList<>(seen.size());
    for (ConsumerSpan d : seen) {
      int count = d.share().deliveryCount();
      boolean isCounted = d == counted;
      ShareEnd end;
      if (isCounted || count > n) {
        end = ShareEnd.ofCounted(d.share());
      } else {
        ConsumerSpan next = pending.find(count + 1);
        long nextFetch =
            next != null && next.instanceId() == d.instanceId()
                ? next.fetchRequestNanos()
                : Long.MIN_VALUE;
        end = ShareEnd.ofEarlier(d.share(), nextFetch);
        ends.merge(end, 1, Integer::sum);
        earlierSeen++;
      }
      deliveries.add(
          new ShareRecord.Delivery(
              count,
              d.spanId(),
              d.instanceId(),
              d.clientId(),
              d.fetchRequestNanos(),
              d.fetchResponseNanos(),
              d.pollNanos(),
              d.share().acknowledgeType(),
              d.share().acknowledgeNanos(),
              d.share().acknowledgeError(),
              end,
              isCounted,
              offsetNanos(d, counted, producer, joined, now)));
    }
    if (n - 1 > earlierSeen) {
      ends.merge(ShareEnd.UNKNOWN, n - 1 - earlierSeen, Integer::sum);
    }
    Breakdown breakdown = redelivered(n, deliveries, joined);
    long redelivery = n == 1 ? 0 : breakdown == null ? -1 : breakdown.redeliveryNanos();
    ShareRecord share =
        new ShareRecord(n, counted.share().accepted(), deliveries, ends, redelivery);
    return joined.withShare(share, breakdown == null ? joined.breakdown() : breakdown);
  }

  // clock(d's consumer) - clock(producer), or MIN_VALUE when klat cannot relate them.
  private long offsetNanos(
      ConsumerSpan d,
      ConsumerSpan counted,
      ProducerSpan producer,
      JoinedBreakdown joined,
      long now) {
    if (d.instanceId() == counted.instanceId()) {
      // One clock: the counted delivery's own offset, so the part between them is exact.
      return joined.consumerOffset().offsetNanos();
    }
    String producerHost = hostNames.name(producer.instanceId());
    String host = hostNames.name(d.instanceId());
    if (producerHost == null || host == null) {
      return Long.MIN_VALUE;
    }
    ClockOffset offset = offsets.estimate(producerHost, host, now);
    return offset.bounded() ? offset.offsetNanos() : Long.MIN_VALUE;
  }

  // Section 11: R(1) in place of H where availability is meant; null when n is 1 or R(1) is not
  // placed (then catch-up stays whole, as section 3 computes it, and the part is unknown).
  private static Breakdown redelivered(
      int n, List<ShareRecord.Delivery> deliveries, JoinedBreakdown joined) {
    if (n == 1) {
      return null;
    }
    for (ShareRecord.Delivery d : deliveries) {
      if (d.count() == 1 && d.aligned()) {
        return Breakdown.computeRedelivered(
            joined.breakdown().original(), d.acquiredNanos() - d.offsetNanos());
      }
    }
    return null;
  }
}

package dev.klat.collector.correlate.join;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The deliveries of one record to one share group, joined into its breakdown (section 11 of the
 * latency model). The breakdown is the counted delivery's: the one the application accepted, or the
 * last one seen when the join window closed.
 *
 * @param deliveryCount the counted delivery's delivery count (1: delivered once)
 * @param accepted whether the counted delivery was accepted (false: the last one seen)
 * @param deliveries the deliveries whose spans were seen, in delivery-count order (the counted one
 *     among them); an earlier delivery whose span was not seen is only counted in {@link
 *     #earlierEnds()} as {@link ShareEnd#UNKNOWN}
 * @param earlierEnds how many earlier deliveries (before the counted one) ended by each cause;
 *     their sum is {@code deliveryCount - 1}
 * @param redeliveryNanos the redelivery part of catch-up (from the first delivery's {@code R} to
 *     the counted delivery's {@code F}): 0 for a record delivered once, -1 when not known (the
 *     first delivery's span not seen, or on a clock klat could not relate to the counted one's)
 */
public record ShareRecord(
    int deliveryCount,
    boolean accepted,
    List<Delivery> deliveries,
    Map<ShareEnd, Integer> earlierEnds,
    long redeliveryNanos) {

  /**
   * One delivery whose span was seen.
   *
   * @param count its delivery count
   * @param spanId its consumer span's id
   * @param instanceId the share consumer's agent instance id
   * @param clientId the share consumer's client id, or ""
   * @param fetchRequestNanos its {@code F}, on its consumer's clock
   * @param acquiredNanos its {@code R} (the record acquired), on its consumer's clock
   * @param pollNanos its {@code P}, on its consumer's clock
   * @param acknowledgeType its acknowledgement's type, or null
   * @param acknowledgeNanos its acknowledgement, on its consumer's clock, or {@link
   *     ShareDelivery#NOT_ACKNOWLEDGED}
   * @param acknowledgeError the broker's error for the acknowledgement, or null
   * @param end what ended it
   * @param counted whether this is the delivery the breakdown counts
   * @param offsetNanos {@code clock(its consumer) - clock(producer)}, to place its instants on the
   *     breakdown's clock, or {@link Long#MIN_VALUE} when klat could not relate the clocks
   */
  public record Delivery(
      int count,
      long spanId,
      long instanceId,
      String clientId,
      long fetchRequestNanos,
      long acquiredNanos,
      long pollNanos,
      String acknowledgeType,
      long acknowledgeNanos,
      String acknowledgeError,
      ShareEnd end,
      boolean counted,
      long offsetNanos) {

    /** Whether its instants can be placed on the breakdown's (the producer's) clock. */
    public boolean aligned() {
      return offsetNanos != Long.MIN_VALUE;
    }
  }

  public ShareRecord {
    deliveries = List.copyOf(deliveries);
    EnumMap<ShareEnd, Integer> ends = new EnumMap<>(ShareEnd.class);
    ends.putAll(earlierEnds);
    earlierEnds = Collections.unmodifiableMap(ends);
  }

  /** How many times the record was delivered before the counted delivery. */
  public int redeliveries() {
    return deliveryCount - 1;
  }

  /** How many earlier deliveries ended by {@code end}. */
  public int earlierEnds(ShareEnd end) {
    Integer n = earlierEnds.get(end);
    return n == null ? 0 : n;
  }

  /** Whether the redelivery part is known. */
  public boolean redeliveryKnown() {
    return redeliveryNanos >= 0;
  }
}

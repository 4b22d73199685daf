package dev.klat.collector.correlate.join;

/**
 * What ended one delivery of a record to a share group (section 11 of the latency model), as its
 * span says, or {@link #UNKNOWN} when that delivery's span was not seen.
 */
public enum ShareEnd {
  /** The application accepted the record: the delivery counted for the end to end. */
  ACCEPT("accept"),
  /**
   * The record was delivered again without an acknowledgement of this delivery before the next
   * delivery's fetch, or the broker answered its acknowledgement with an error ({@code
   * InvalidRecordStateException}: the lock was already lost; another error: the broker did not take
   * it, so the record stayed acquired until its lock expired): the acquisition lock ({@code
   * group.share.record.lock.duration.ms}) ran out first. Inferred, not observed.
   */
  LOCK_TIMEOUT("lock-timeout"),
  /** The application released the record for another delivery. */
  RELEASE("release"),
  /** The application rejected the record (it is archived, not delivered again). */
  REJECT("reject"),
  /** The application renewed the lock (Kafka 4.2+). */
  RENEW("renew"),
  /** The delivery's span was not seen, or says nothing that tells. */
  UNKNOWN("unknown");

  private final String id;

  ShareEnd(String id) {
    this.id = id;
  }

  /** The id in the API, the trace and the {@code cause} label. */
  public String id() {
    return id;
  }

  /**
   * What ended a delivery that was not the last one seen: one the record was delivered again after.
   *
   * @param delivery its span's share attributes
   * @param nextFetchNanos the next delivery's {@code F} on the same clock, or {@link
   *     Long#MIN_VALUE} when no comparable clock
   */
  static ShareEnd ofEarlier(ShareDelivery delivery, long nextFetchNanos) {
    if (!delivery.acknowledged() || delivery.acknowledgeError() != null) {
      return LOCK_TIMEOUT;
    }
    if (nextFetchNanos != Long.MIN_VALUE
        && delivery.acknowledgeNanos() != ShareDelivery.NOT_ACKNOWLEDGED
        && delivery.acknowledgeNanos() > nextFetchNanos) {
      // Acknowledged only after the record was delivered again: the lock had run out first.
      return LOCK_TIMEOUT;
    }
    ShareEnd end = ofType(delivery);
    // Accepted, and the broker took it, yet delivered again: nothing in the span explains that.
    return end == ACCEPT ? UNKNOWN : end;
  }

  /** What ended the delivery counted: its own acknowledgement, {@link #UNKNOWN} without one. */
  static ShareEnd ofCounted(ShareDelivery delivery) {
    if (!delivery.acknowledged()) {
      return UNKNOWN;
    }
    if (delivery.acknowledgeError() != null) {
      return LOCK_TIMEOUT;
    }
    return ofType(delivery);
  }

  private static ShareEnd ofType(ShareDelivery delivery) {
    switch (delivery.acknowledgeType()) {
      case ShareDelivery.ACCEPT:
        return ACCEPT;
      case ShareDelivery.RELEASE:
        return RELEASE;
      case ShareDelivery.REJECT:
        return REJECT;
      case ShareDelivery.RENEW:
        return RENEW;
      default:
        return UNKNOWN;
    }
  }
}

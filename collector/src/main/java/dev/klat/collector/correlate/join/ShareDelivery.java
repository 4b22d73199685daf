package dev.klat.collector.correlate.join;

/**
 * What a share consumer's span says of its delivery of the record (section 11 of the latency
 * model): the broker's delivery count and the application's acknowledgement, if the agent saw one
 * before it exported the span.
 *
 * @param deliveryCount the broker's delivery count, 1 for the first delivery
 * @param acknowledgeNanos when the application acknowledged, on the consumer's clock, or {@link
 *     #NOT_ACKNOWLEDGED}
 * @param acknowledgeType {@code accept}, {@code release}, {@code reject} or {@code renew}; null
 *     when the span has no acknowledgement
 * @param acknowledgeError the simple class name of the error the broker answered the
 *     acknowledgement with, or null when it took it
 */
public record ShareDelivery(
    int deliveryCount, long acknowledgeNanos, String acknowledgeType, String acknowledgeError) {

  /** {@link #acknowledgeNanos()} of a delivery the span says no acknowledgement of. */
  public static final long NOT_ACKNOWLEDGED = Long.MIN_VALUE;

  /**
   * The highest delivery count read: brokers cap it at 10 ({@code
   * group.share.delivery.count.limit}).
   */
  public static final int MAX_DELIVERY_COUNT = 1_000;

  /** The acknowledgement types of KIP-932, as the agent writes them. */
  public static final String ACCEPT = "accept";

  static final String RELEASE = "release";
  static final String REJECT = "reject";
  static final String RENEW = "renew";

  /** The broker's error for an acknowledgement whose acquisition lock had expired. */
  static final String LOCK_LOST = "InvalidRecordStateException";

  /** Whether the application acknowledged this delivery (whatever the broker answered). */
  public boolean acknowledged() {
    return acknowledgeType != null;
  }

  /** Whether the application accepted this delivery and the broker took it. */
  public boolean accepted() {
    return ACCEPT.equals(acknowledgeType) && acknowledgeError == null;
  }

  /** Whether the broker refused the acknowledgement because the record's lock had expired. */
  public boolean lockLost() {
    return acknowledgeError != null
        && (acknowledgeError.equals(LOCK_LOST) || acknowledgeError.endsWith("." + LOCK_LOST));
  }

  /** Whether {@code type} is one of the acknowledgement types the agent writes. */
  public static boolean knownType(String type) {
    return ACCEPT.equals(type) || RELEASE.equals(type) || REJECT.equals(type) || RENEW.equals(type);
  }
}

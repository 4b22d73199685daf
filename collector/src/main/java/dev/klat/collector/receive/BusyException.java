package dev.klat.collector.receive;

/**
 * A sink cannot take a request now: answered with 429 and {@code Retry-After} over HTTP and
 * UNAVAILABLE over gRPC, both of which OTLP senders retry. Without a stack trace, so that a sink
 * may throw one shared instance under load.
 */
public final class BusyException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String reason;

  /**
   * @param reason the short, low-cardinality name the refusal is counted under in {@link
   *     ReceiverStats#requestsRejected()}
   * @param message what the sender is told
   */
  public BusyException(String reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  /** The name the refusal is counted under. */
  public String reason() {
    return reason;
  }
}

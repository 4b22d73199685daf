package dev.klat.collector.correlate.clock;

/**
 * An estimate of {@code clock(to) - clock(from)} between two clock domains, from the bounds of
 * section 5 of the latency model.
 *
 * @param fromHost the reference clock domain
 * @param toHost the other clock domain
 * @param offsetNanos the estimate of {@code clock(to) - clock(from)}; subtract it from a reading of
 *     {@code to} to place it on {@code from}'s timeline
 * @param uncertaintyNanos the half-width of the interval the bounds allow, or {@link #UNBOUNDED}
 *     when the bounds constrain only one side (traffic in one direction only)
 * @param lowerNanos the tightest lower bound, or {@link Long#MIN_VALUE} when there is none
 * @param upperNanos the tightest upper bound, or {@link Long#MAX_VALUE} when there is none
 */
public record ClockOffset(
    String fromHost,
    String toHost,
    long offsetNanos,
    long uncertaintyNanos,
    long lowerNanos,
    long upperNanos) {

  /** The value of {@link #uncertaintyNanos()} when only one side is bounded. */
  public static final long UNBOUNDED = -1;

  /** Whether both sides of the offset are bounded. */
  public boolean bounded() {
    return uncertaintyNanos != UNBOUNDED;
  }

  public static ClockOffset zero(String fromHost, String toHost) {
    return new ClockOffset(fromHost, toHost, 0, UNBOUNDED, Long.MIN_VALUE, Long.MAX_VALUE);
  }
}

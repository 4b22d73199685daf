package dev.klat.agentcore.otlp;

import java.util.function.DoubleSupplier;

/**
 * The exporter's wait after a retryable failure: exponential from {@value #INITIAL_MILLIS} ms to
 * {@value #MAX_MILLIS} ms (or a shorter maximum), with jitter so that the agents of a fleet do not
 * all return at the same instant after a collector restart. A server's {@code Retry-After} wins
 * over the schedule, but never below {@value #INITIAL_MILLIS} ms, so that a server answering {@code
 * Retry-After: 0} cannot make every agent retry in a tight loop. Confined to the exporter thread.
 */
public final class Backoff {

  static final long INITIAL_MILLIS = 1_000;
  static final long MAX_MILLIS = 30_000;

  // A delay of the schedule never above it; a server's Retry-After may be.
  private final long maxMillis;

  // The delay is drawn from [1 - JITTER, 1] times the step.
  private static final double JITTER = 0.2;

  private final DoubleSupplier random;
  private long stepMillis = INITIAL_MILLIS;

  /**
   * @param random uniform in [0, 1)
   */
  public Backoff(DoubleSupplier random) {
    this(random, MAX_MILLIS);
  }

  /**
   * @param random uniform in [0, 1)
   * @param maxMillis the longest step of the schedule, at least {@value #INITIAL_MILLIS}
   */
  public Backoff(DoubleSupplier random, long maxMillis) {
    if (maxMillis < INITIAL_MILLIS) {
      throw new IllegalArgumentException("maxMillis below " + INITIAL_MILLIS + ": " + maxMillis);
    }
    this.random = random;
    this.maxMillis = maxMillis;
  }

  /**
   * Returns how long to wait before the next attempt, and doubles the step for the one after.
   *
   * @param retryAfterMillis the server's {@code Retry-After} in milliseconds, or -1
   */
  public long nextDelayMillis(long retryAfterMillis) {
    long step = stepMillis;
    stepMillis = Math.min(stepMillis * 2, maxMillis);
    if (retryAfterMillis >= 0) {
      return Math.max(retryAfterMillis, INITIAL_MILLIS);
    }
    return (long) (step * (1 - JITTER * random.getAsDouble()));
  }

  /** Starts the schedule over, after a success. */
  public void reset() {
    stepMillis = INITIAL_MILLIS;
  }
}

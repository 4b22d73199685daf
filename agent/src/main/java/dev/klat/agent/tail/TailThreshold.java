package dev.klat.agent.tail;

/**
 * The threshold of one key (a producer's topic, or a consumer's topic and group, or what a consumer
 * side keys its own windows by) that the hot path compares a record's duration with: {@link
 * #thresholdNanos()}, a field read. A record is flagged when its duration is strictly above it;
 * {@link Long#MAX_VALUE} flags nothing (tail capture off, or {@code auto} without enough records
 * yet). Fixed ones never change; {@code auto} ones are set by {@link TailThresholds#refresh}, off
 * the hot path.
 */
public final class TailThreshold {

  /** Never flags: what tail capture off gives every key. */
  public static final TailThreshold NEVER = new TailThreshold(Long.MAX_VALUE, null);

  private volatile long thresholdNanos;
  private final RecentP99 window;

  TailThreshold(long fixedNanos, RecentP99 window) {
    this.thresholdNanos = window == null ? fixedNanos : Long.MAX_VALUE;
    this.window = window;
  }

  /** A fixed threshold, for tests and for sides that build their own. */
  public static TailThreshold fixed(long nanos) {
    return new TailThreshold(nanos, null);
  }

  /**
   * The threshold in nanoseconds: flag a duration strictly above it. {@link Long#MAX_VALUE} flags
   * nothing. A plain (volatile) field read: one per batch or record on the hot path.
   */
  public long thresholdNanos() {
    return thresholdNanos;
  }

  /** Whether it follows the recent p99 ({@code auto}) rather than a fixed duration. */
  public boolean isAuto() {
    return window != null;
  }

  /** The window an {@code auto} threshold follows, or null when fixed. */
  public RecentP99 window() {
    return window;
  }

  /** Moves an {@code auto} threshold's window; one thread at a time ({@link TailThresholds}). */
  void refresh(long nowNanos) {
    if (window != null) {
      thresholdNanos = window.refresh(nowNanos);
    }
  }
}

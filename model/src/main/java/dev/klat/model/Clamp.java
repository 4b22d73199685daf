package dev.klat.model;

/**
 * One adjustment {@link Breakdown#compute} made to an instant so that the instants respect the
 * ordering of the latency model. A negative duration is never reported; it is clamped, and the
 * clamp is kept so that it can be counted and shown. Immutable.
 *
 * <p>The instant is moved exactly onto the bound it violated, so after the adjustment {@code point}
 * and {@code bound} have the same value.
 */
public final class Clamp {
  private final TimePoint point;
  private final TimePoint bound;
  private final long adjustmentNanos;

  Clamp(TimePoint point, TimePoint bound, long adjustmentNanos) {
    this.point = point;
    this.bound = bound;
    this.adjustmentNanos = adjustmentNanos;
  }

  /**
   * Returns the instant that was moved.
   *
   * @return the moved instant, never null
   */
  public TimePoint point() {
    return point;
  }

  /**
   * Returns the instant whose bound the moved instant violated: for a positive adjustment a lower
   * bound (the moved instant was before it), for a negative one an upper bound.
   *
   * @return the bounding instant, never null
   */
  public TimePoint bound() {
    return bound;
  }

  /**
   * Returns how far the instant was moved: the clamped value minus the original one.
   *
   * @return positive when the instant was moved later, negative when it was moved earlier, never 0
   */
  public long adjustmentNanos() {
    return adjustmentNanos;
  }

  /**
   * Two clamps are equal when they moved the same instant to the same bound by the same amount.
   *
   * @param o the object to compare with
   * @return whether {@code o} is equal to this
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Clamp)) {
      return false;
    }
    Clamp that = (Clamp) o;
    return point == that.point && bound == that.bound && adjustmentNanos == that.adjustmentNanos;
  }

  /**
   * Returns a hash code consistent with {@link #equals(Object)}.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return 31 * (31 * point.hashCode() + bound.hashCode())
        + (int) (adjustmentNanos ^ (adjustmentNanos >>> 32));
  }

  /**
   * Returns the clamp in the latency model's notation, for example {@code "H<=R(-1500ns)"}: {@code
   * H} was lowered by 1500 ns to its upper bound {@code R}.
   *
   * @return a compact description for logs and test failures
   */
  @Override
  public String toString() {
    return point.symbol()
        + (adjustmentNanos > 0 ? ">=" : "<=")
        + bound.symbol()
        + (adjustmentNanos > 0 ? "(+" : "(")
        + adjustmentNanos
        + "ns)";
  }
}

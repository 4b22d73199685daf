package dev.klat.agent.metrics;

/**
 * A value sampled at collection time, such as a consumer lag, exported as an OTLP gauge. The last
 * value set wins; {@link Double#NaN}, the initial value, means "no value" and is not exported, so
 * that an owner can withdraw a series it no longer measures (a revoked partition) by setting NaN.
 */
public final class Gauge {

  // volatile write and read: a gauge is set far less often than histograms are recorded.
  private volatile double value = Double.NaN;

  /** Creates a gauge without a value. */
  public Gauge() {}

  /**
   * Sets the value.
   *
   * @param value the new value, or NaN to stop exporting the series
   */
  public void set(double value) {
    this.value = value;
  }

  /**
   * Returns the value.
   *
   * @return the last value set, NaN if none
   */
  public double value() {
    return value;
  }
}

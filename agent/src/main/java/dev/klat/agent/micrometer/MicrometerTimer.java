package dev.klat.agent.micrometer;

import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * One registered Micrometer {@code Timer}, recorded into beside a klat histogram: one call into the
 * timer per duration, through a handle bound once at registration. Never throws; after a failure
 * (here or elsewhere in its bridge) it records nothing more. Thread-safe as the timer is.
 */
public final class MicrometerTimer {

  // Timer.record(long, TimeUnit) bound to the timer: (long, TimeUnit)void.
  private final MethodHandle record;
  private final MicrometerBridge bridge;

  MicrometerTimer(MethodHandle record, MicrometerBridge bridge) {
    this.record = record;
    this.bridge = bridge;
  }

  /**
   * Records one duration; a negative one is skipped (klat counts those as clamped).
   *
   * @param nanos the duration in nanoseconds
   */
  public void recordNanos(long nanos) {
    recordNanos(nanos, 1);
  }

  /**
   * Records the same duration {@code count} times: Micrometer's {@code Timer} has no count, so it
   * is {@code count} calls, one per record.
   *
   * @param nanos the duration in nanoseconds; negative ones are skipped
   * @param count how many records share it
   */
  public void recordNanos(long nanos, int count) {
    if (nanos < 0L || bridge.steppedAside()) {
      return;
    }
    try {
      for (int i = 0; i < count; i++) {
        record.invokeExact(nanos, TimeUnit.NANOSECONDS);
      }
    } catch (Throwable t) {
      bridge.stepAside(t);
    }
  }

  /**
   * Records {@code endNanos - startNanos[i]} for every {@code i} in {@code [from, to)}, skipping
   * negative durations, as {@code LatencyHistogram.recordAll} does.
   *
   * @param endNanos the instant every duration ends
   * @param startNanos the instants the durations start, on the same clock
   * @param from the first index, inclusive
   * @param to the last index, exclusive
   */
  public void recordAll(long endNanos, long[] startNanos, int from, int to) {
    if (bridge.steppedAside()) {
      return;
    }
    try {
      for (int i = from; i < to; i++) {
        long nanos = endNanos - startNanos[i];
        if (nanos >= 0L) {
          record.invokeExact(nanos, TimeUnit.NANOSECONDS);
        }
      }
    } catch (Throwable t) {
      bridge.stepAside(t);
    }
  }
}

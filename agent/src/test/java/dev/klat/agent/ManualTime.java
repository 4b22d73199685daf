package dev.klat.agent;

import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.clock.WallClock;
import java.util.concurrent.TimeUnit;

/**
 * The system clocks, which a test can also move forward at once instead of sleeping: records
 * stamped with {@link System#currentTimeMillis()} stay in the past of every later reading.
 */
public final class ManualTime implements TimeSource {
  private volatile long advancedNanos;

  @Override
  public long epochNanos() {
    return epochNanosAt(nanoTime());
  }

  @Override
  public long nanoTime() {
    return System.nanoTime() + advancedNanos;
  }

  @Override
  public long epochNanosAt(long nanoTime) {
    return WallClock.epochNanos(nanoTime);
  }

  /** Moves both clocks forward by {@code millis}. */
  public void advanceMillis(long millis) {
    advancedNanos += TimeUnit.MILLISECONDS.toNanos(millis);
  }
}

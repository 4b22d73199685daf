package dev.klat.probe;

import dev.klat.agentcore.clock.WallClock;

/**
 * The broker's wall clock in nanoseconds, read with one {@code System.nanoTime()} from an anchor
 * (the JDK's wall clock has microsecond resolution at best and allocates through {@code Instant}):
 * the clock the client agent's instants use, so that both are measured against the collector the
 * same way.
 */
final class ProbeClock {

  private ProbeClock() {}

  static long epochNanos() {
    return WallClock.epochNanos(System.nanoTime());
  }
}

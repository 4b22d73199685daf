package dev.klat.agentcore.clock;

/**
 * Converts {@link System#nanoTime()} readings into epoch nanoseconds of this host's wall clock.
 *
 * <p>Durations inside one JVM are exact differences of the monotonic clock; the wall clock is read
 * once per anchor, so that every instant an agent reports can be placed on a shared timeline while
 * differences between instants stay exact (the latency model, section 2). The wall clock is read
 * once, when this class loads: a later re-read would step every instant by the anchor's own error,
 * and a record sent before the step and polled after it in the same JVM would show the step in its
 * end-to-end latency. A long-running JVM's instants therefore follow the monotonic clock's rate,
 * not NTP's corrections of the wall clock; the collector estimates each host's offset over a
 * sliding window (latency model, section 5), which absorbs that slow drift.
 *
 * <p>{@code klat.test.clock-offset} shifts the anchor, so that every instant the agent reports, and
 * its clock exchange with the collector, look as they would on a host whose clock is off by that
 * much. For tests only.
 */
public final class WallClock {

  private static volatile long offsetNanos;
  private static volatile Anchor anchor = Anchor.now();

  private WallClock() {}

  /** The wall-clock time, in nanoseconds since the epoch, at which nanoTime read {@code nanos}. */
  public static long epochNanos(long nanoTime) {
    Anchor a = anchor;
    return a.epochNanos + (nanoTime - a.nanoTime);
  }

  /**
   * Shifts every later reading by {@code nanos}, as if this host's clock were wrong by that much;
   * {@code klat.test.clock-offset}, for tests only. Set once, at start, before any reading matters.
   */
  public static void setTestOffsetNanos(long nanos) {
    offsetNanos = nanos;
    reanchor();
  }

  /** Re-reads the wall clock (after a test offset is set). */
  static void reanchor() {
    anchor = Anchor.now();
  }

  private static final class Anchor {
    final long epochNanos;
    final long nanoTime;

    private Anchor(long epochNanos, long nanoTime) {
      this.epochNanos = epochNanos;
      this.nanoTime = nanoTime;
    }

    static Anchor now() {
      // java.time.Instant has microsecond resolution on Java 9+ and millisecond on Java 8.
      long before = System.nanoTime();
      java.time.Instant wall = java.time.Instant.now();
      long after = System.nanoTime();
      long epochNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
      return new Anchor(epochNanos + offsetNanos, before + (after - before) / 2);
    }
  }
}

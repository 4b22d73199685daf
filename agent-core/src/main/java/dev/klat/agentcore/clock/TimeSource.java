package dev.klat.agentcore.clock;

/** The clocks of the agents' exporters and instruments, injected so that tests can fix them. */
public interface TimeSource {

  /** The system clocks. */
  TimeSource SYSTEM =
      new TimeSource() {
        @Override
        public long epochNanos() {
          // The clock the spans' instants are on (the wall clock, anchored once, plus any test
          // offset), so that the clock exchange with the collector measures that very clock.
          return WallClock.epochNanos(System.nanoTime());
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public long epochNanosAt(long nanoTime) {
          return WallClock.epochNanos(nanoTime);
        }
      };

  /** Wall-clock nanoseconds since the Unix epoch, for OTLP {@code time_unix_nano} fields. */
  long epochNanos();

  /** Monotonic nanoseconds, for deadlines and intervals; only differences are meaningful. */
  long nanoTime();

  /**
   * The wall-clock instant, in nanoseconds since the epoch, at which {@link #nanoTime()} read
   * {@code nanoTime}: how a hook places an instant it took on the monotonic clock.
   */
  default long epochNanosAt(long nanoTime) {
    return epochNanos() - (nanoTime() - nanoTime);
  }
}

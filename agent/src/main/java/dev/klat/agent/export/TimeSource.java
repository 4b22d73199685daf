package dev.klat.agent.export;

import java.time.Instant;

/** The clocks of the export layer, injected so that tests can fix them. */
interface TimeSource {

  /** The system clocks. */
  TimeSource SYSTEM =
      new TimeSource() {
        @Override
        public long epochNanos() {
          // Instant.now() has microsecond precision from Java 9 on, milliseconds on Java 8.
          Instant now = Instant.now();
          return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }
      };

  /** Wall-clock nanoseconds since the Unix epoch, for OTLP {@code time_unix_nano} fields. */
  long epochNanos();

  /** Monotonic nanoseconds, for deadlines and intervals; only differences are meaningful. */
  long nanoTime();
}

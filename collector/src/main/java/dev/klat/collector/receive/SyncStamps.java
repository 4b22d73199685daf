package dev.klat.collector.receive;

import dev.klat.model.ClockSyncHeaders;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * The collector's side of the clock exchange: its wall clock, written as {@link ClockSyncHeaders}.
 */
final class SyncStamps {

  /** The system's wall clock, in nanoseconds since the epoch (microsecond resolution on Linux). */
  static final LongSupplier SYSTEM_EPOCH_NANOS =
      () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
      };

  private SyncStamps() {}

  /** The header value for {@code epochNanos}: whole microseconds, rounded down. */
  static String micros(long epochNanos) {
    return Long.toString(Math.floorDiv(epochNanos, 1000L));
  }
}

package dev.klat.agentcore.clock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WallClockTest {

  @AfterEach
  void reset() {
    WallClock.setTestOffsetNanos(0);
  }

  private static long systemEpochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Test
  void theTestClockOffsetShiftsEveryReadingBothWays() {
    for (long offsetMs : new long[] {250, -250}) {
      WallClock.setTestOffsetNanos(offsetMs * 1_000_000L);
      long before = systemEpochNanos();
      long reading = WallClock.epochNanos(System.nanoTime());
      long after = systemEpochNanos();
      // The anchor is read with Instant.now(): millisecond resolution on Java 8, so 2 ms of slack.
      assertThat(reading - offsetMs * 1_000_000L)
          .isBetween(before - 2_000_000L, after + 2_000_000L);
    }
  }

  @Test
  void withoutAnOffsetReadingsAreTheWallClock() {
    long before = systemEpochNanos();
    long reading = WallClock.epochNanos(System.nanoTime());
    long after = systemEpochNanos();
    assertThat(reading).isBetween(before - 2_000_000L, after + 2_000_000L);
  }
}

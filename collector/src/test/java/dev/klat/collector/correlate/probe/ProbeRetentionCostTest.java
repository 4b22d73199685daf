package dev.klat.collector.correlate.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What {@code probe.retention} costs for one busy partition: one append and one commit range a
 * millisecond, the probe's most at its 1 ms resolution. The bytes are checked at the default
 * retention; with {@code -Dklat.probe.cost=true} it also times lookups and additions with 4 s (what
 * the former fixed 4,096 ranges a term held at that rate), 60 s and 120 s held, and prints a table.
 */
class ProbeRetentionCostTest {

  private static final long MS = 1_000_000L;
  private static final long T0 = 1_800_000_000_000_000_000L;
  private static final TermKey TERM = new TermKey(1, 0xAAL, 5);
  private static final long DEFAULT_RETENTION_SECONDS = 120;

  // One partition at one range pair a millisecond for twice the retention: its rings' steady size.
  private static ProbeTimelines filled(long retentionSeconds) {
    ProbeTimelines timelines =
        new ProbeTimelines(16, Integer.MAX_VALUE, Long.MAX_VALUE, retentionSeconds * 1_000 * MS);
    for (long ms = 0; ms < 2 * retentionSeconds * 1_000; ms++) {
      addPair(timelines, ms);
    }
    return timelines;
  }

  private static void addPair(ProbeTimelines timelines, long ms) {
    long at = T0 + ms * MS;
    timelines.append(TERM, "topic", 0, 10 * ms, 10 * ms + 9, at, at, 1_000, 2_000);
    timelines.commit(TERM, "topic", 0, 10 * ms, 10 * ms + 9, at + MS, at + MS, 2);
  }

  @Test
  void twoMinutesOfABusyPartitionTakeAboutElevenMegabytes() {
    ProbeTimelines timelines = filled(DEFAULT_RETENTION_SECONDS);
    // 120,001 pairs in rings doubled from 4 to 131,072 slots: 84 bytes a slot (an append's 48, a
    // commit's 36), 92 a pair held.
    assertThat(timelines.estimatedBytes()).isBetween(131_072L * 84, 131_072L * 84 + 1_000);
    long oldestKeptMs =
        2 * DEFAULT_RETENTION_SECONDS * 1_000 - 1 - DEFAULT_RETENTION_SECONDS * 1_000;
    assertThat(timelines.lookup("topic", 0, 10 * oldestKeptMs, 1).hasCommit()).isTrue();
  }

  @Test
  @EnabledIfSystemProperty(named = "klat.probe.cost", matches = "true")
  void printsWhatEachRetentionCosts() {
    System.out.println("| retention | bytes held | bytes a pair | lookup ns | add pair ns |");
    System.out.println("|---|---|---|---|---|");
    for (long seconds : new long[] {4, 60, 120}) {
      ProbeTimelines timelines = filled(seconds);
      long held = seconds * 1_000;
      long next = 2 * held;
      // Lookups spread over the whole history, the order defeating the caches' recency.
      long sink = 0;
      int lookups = 2_000_000;
      long best = Long.MAX_VALUE;
      for (int round = 0; round < 5; round++) {
        long index = 0;
        long start = System.nanoTime();
        for (int i = 0; i < lookups; i++) {
          index = (index + 7_919) % held;
          sink += timelines.lookup("topic", 0, 10 * (next - 1 - index) + 3, 1).appendNanos();
        }
        best = Math.min(best, System.nanoTime() - start);
      }
      double lookupNanos = (double) best / lookups;
      int adds = 1_000_000;
      long addStart = System.nanoTime();
      for (int i = 0; i < adds; i++) {
        addPair(timelines, next++);
      }
      double addNanos = (double) (System.nanoTime() - addStart) / adds;
      System.out.printf(
          "| %d s | %d (%.1f MiB) | %.0f | %.0f | %.0f |%n",
          seconds,
          timelines.estimatedBytes(),
          timelines.estimatedBytes() / (1024.0 * 1024.0),
          (double) timelines.estimatedBytes() / held,
          lookupNanos,
          addNanos);
      assertThat(sink).isNotZero();
    }
  }
}

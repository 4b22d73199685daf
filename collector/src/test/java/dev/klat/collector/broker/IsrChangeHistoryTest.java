package dev.klat.collector.broker;

import static dev.klat.collector.broker.IsrChangeHistory.EXPANDS;
import static dev.klat.collector.broker.IsrChangeHistory.SHRINKS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Changes;
import org.junit.jupiter.api.Test;

/** The ISR changes over a window, from the cumulative counts of the scrapes kept. */
class IsrChangeHistoryTest {
  static final long S = 1_000_000_000L;
  static final long T0 = 1_800_000_000L * S;

  /** Scrapes every 5 s from T0, shrinks as given, expands one less (never below 0). */
  static IsrChangeHistory scraped(long historyNanos, int maxSamples, long... shrinks) {
    IsrChangeHistory h = new IsrChangeHistory(historyNanos, maxSamples);
    for (int i = 0; i < shrinks.length; i++) {
      h.add(T0 + i * 5 * S, shrinks[i], Math.max(0, shrinks[i] - 1));
    }
    return h;
  }

  @Test
  void countsFromTheScrapeAtOrBeforeTheWindowsStart() {
    IsrChangeHistory h = scraped(600 * S, 1000, 2, 2, 3, 5, 5, 9);

    assertThat(h.changes(SHRINKS, T0 + 10 * S)).isEqualTo(new Changes(6, false)); // 3 to 9
    assertThat(h.changes(SHRINKS, T0 + 12 * S)).isEqualTo(new Changes(6, false)); // still from 3
    assertThat(h.changes(SHRINKS, T0 + 15 * S)).isEqualTo(new Changes(4, false)); // 5 to 9
    assertThat(h.changes(SHRINKS, T0)).isEqualTo(new Changes(7, false));
    assertThat(h.changes(EXPANDS, T0 + 10 * S)).isEqualTo(new Changes(6, false)); // 2 to 8
  }

  @Test
  void aHistoryThatStartsAfterTheWindowGivesALowerBound() {
    IsrChangeHistory h = scraped(600 * S, 1000, 2, 2, 3, 5);

    assertThat(h.changes(SHRINKS, T0 - 60 * S)).isEqualTo(new Changes(3, true));
  }

  @Test
  void oneScrapeAloneOrNoneSinceTheWindowsStartIsUnknown() {
    assertThat(scraped(600 * S, 1000, 4).changes(SHRINKS, T0 - 60 * S)).isEqualTo(Changes.UNKNOWN);
    assertThat(scraped(600 * S, 1000).changes(SHRINKS, T0)).isEqualTo(Changes.UNKNOWN);
    // The broker has not been scraped since the window began: nothing is known of the window.
    assertThat(scraped(600 * S, 1000, 1, 2).changes(SHRINKS, T0 + 5 * S))
        .isEqualTo(Changes.UNKNOWN);
  }

  @Test
  void aCountThatWentDownIsARestartAndCountsFromZero() {
    // 10 before the window, 12 at its start, the broker restarts, then 1 and 3 since.
    IsrChangeHistory h = scraped(600 * S, 1000, 10, 12, 1, 3);

    assertThat(h.changes(SHRINKS, T0 + 5 * S)).isEqualTo(new Changes(3, true));
    // The restart before the window's start: only what followed the window's baseline counts.
    assertThat(h.changes(SHRINKS, T0 + 10 * S)).isEqualTo(new Changes(2, false));
    // Both: 10 to 12, then 3 since the restart, at least.
    assertThat(h.changes(SHRINKS, T0)).isEqualTo(new Changes(5, true));
  }

  @Test
  void scrapesWithoutTheCountsAreSkippedAndANewestWithoutThemIsUnknown() {
    IsrChangeHistory h = new IsrChangeHistory(600 * S, 1000);
    h.add(T0, 4, 4);
    h.add(T0 + 5 * S, -1, -1); // the exporter's rules reloaded without them, for one scrape
    h.add(T0 + 10 * S, 6, 5);
    assertThat(h.changes(SHRINKS, T0)).isEqualTo(new Changes(2, false));
    assertThat(h.changes(EXPANDS, T0 + 5 * S)).isEqualTo(new Changes(1, false));
    assertThat(h.newestKnown()).isTrue();

    h.add(T0 + 15 * S, -1, -1);
    assertThat(h.changes(SHRINKS, T0)).isEqualTo(Changes.UNKNOWN);
    assertThat(h.newestKnown()).isFalse();
  }

  @Test
  void keepsTheHistoryAndOneBaselineBeforeIt() {
    // 60 s of history at 5 s a scrape, over 10 minutes: the ring stays small.
    long[] shrinks = new long[121];
    for (int i = 0; i < shrinks.length; i++) {
      shrinks[i] = i / 10; // one shrink every 50 s
    }
    IsrChangeHistory h = scraped(60 * S, 1000, shrinks);
    long newest = T0 + 600 * S;

    assertThat(h.size()).isEqualTo(13); // the scrapes 540 s to 600 s, both ends kept
    assertThat(h.changes(SHRINKS, newest - 60 * S)).isEqualTo(new Changes(2, false)); // 10 to 12
    assertThat(h.changes(SHRINKS, newest - 120 * S)).isEqualTo(new Changes(2, true));

    // At 607 s the history starts at 547 s: 540 s goes, 545 s stays as the baseline.
    h.add(newest + 7 * S, 12, 11);
    assertThat(h.size()).isEqualTo(13);
    assertThat(h.changes(SHRINKS, newest - 53 * S)).isEqualTo(new Changes(2, false)); // 10 to 12
    assertThat(h.changes(SHRINKS, newest - 56 * S)).isEqualTo(new Changes(2, true));
  }

  @Test
  void theCapBoundsTheRingWhateverTheRate() {
    long[] shrinks = new long[100];
    IsrChangeHistory h = scraped(600 * S, 10, shrinks);

    assertThat(h.size()).isEqualTo(10);
    assertThat(h.changes(SHRINKS, T0)).isEqualTo(new Changes(0, true));
  }
}

package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings.Changes;
import java.util.Arrays;

/**
 * A broker's cumulative ISR shrink and expand counts at its recent scrapes, so that a diagnosis can
 * ask how many changes its window saw: the difference between the newest count and the count at or
 * before the window's start. A bounded ring: the scrapes of the last {@code historyNanos}, plus the
 * newest one before them as the baseline of a window as long as the history.
 *
 * <p>Threads: {@link #add} is called by one scraping thread at a time; {@link #changes} by any,
 * without locks, on an immutable array published through a volatile field.
 */
final class IsrChangeHistory {
  static final int SHRINKS = 0;
  static final int EXPANDS = 1;

  private record Sample(long epochNanos, long shrinks, long expands) {
    long count(int counter) {
      return counter == SHRINKS ? shrinks : expands;
    }
  }

  private static final Sample[] EMPTY = new Sample[0];

  private final long historyNanos;
  private final int maxSamples;
  private volatile Sample[] samples = EMPTY;

  /**
   * @param historyNanos how far back scrapes are kept
   * @param maxSamples a hard cap, whatever the scrape rate (at least 2)
   */
  IsrChangeHistory(long historyNanos, int maxSamples) {
    this.historyNanos = historyNanos;
    this.maxSamples = Math.max(2, maxSamples);
  }

  /** Takes a scrape's counts (-1 when it lacked one); epochs must increase. */
  void add(long epochNanos, long shrinks, long expands) {
    Sample[] old = samples;
    long oldest = epochNanos - historyNanos;
    int keepFrom = 0;
    // Drop what is older than the history, except the newest of those: the baseline.
    while (keepFrom + 1 < old.length && old[keepFrom + 1].epochNanos <= oldest) {
      keepFrom++;
    }
    keepFrom = Math.max(keepFrom, old.length + 1 - maxSamples);
    Sample[] next = Arrays.copyOfRange(old, keepFrom, old.length + 1);
    next[next.length - 1] = new Sample(epochNanos, shrinks, expands);
    samples = next;
  }

  /** True when the newest scrape had either count. */
  boolean newestKnown() {
    Sample[] s = samples;
    return s.length > 0 && (s[s.length - 1].shrinks >= 0 || s[s.length - 1].expands >= 0);
  }

  /**
   * How much one count ({@link #SHRINKS} or {@link #EXPANDS}) went up since {@code
   * sinceEpochNanos}: from the newest scrape at or before it (else the oldest kept, a lower bound)
   * to the newest. A count that went down means the broker restarted and counts from 0 again: its
   * new count is what it counted since, and the answer a lower bound. Unknown when the newest
   * scrape lacked the count or is not after {@code sinceEpochNanos}, or no earlier scrape had it.
   */
  Changes changes(int counter, long sinceEpochNanos) {
    Sample[] s = samples;
    int newest = s.length - 1;
    if (newest < 0 || s[newest].count(counter) < 0 || s[newest].epochNanos <= sinceEpochNanos) {
      return Changes.UNKNOWN;
    }
    int base = -1;
    int oldestKnown = -1;
    for (int i = 0; i < newest; i++) {
      if (s[i].count(counter) < 0) {
        continue;
      }
      if (oldestKnown < 0) {
        oldestKnown = i;
      }
      if (s[i].epochNanos <= sinceEpochNanos) {
        base = i;
      }
    }
    boolean atLeast = base < 0;
    if (atLeast) {
      base = oldestKnown;
    }
    if (base < 0) {
      return Changes.UNKNOWN; // the newest scrape alone: no difference to take
    }
    long sum = 0;
    long previous = s[base].count(counter);
    for (int i = base + 1; i <= newest; i++) {
      long count = s[i].count(counter);
      if (count < 0) {
        continue; // a scrape without it: the next one's difference spans the gap
      }
      if (count >= previous) {
        sum += count - previous;
      } else {
        sum += count;
        atLeast = true;
      }
      previous = count;
    }
    return new Changes(sum, atLeast);
  }

  /** Scrapes kept. */
  int size() {
    return samples.length;
  }
}

package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.util.Arrays;

/**
 * One broker's recent request timings: for each request kind, a bounded ring of the intervals
 * between consecutive scrapes in which requests completed, with each phase's mean over the
 * interval; the newest scrape's gauges; and the ISR change counts of the recent scrapes ({@link
 * IsrChangeHistory}).
 *
 * <p>Yammer's {@code Mean} covers all time since the broker started, so a recent mean has to be
 * derived: between scrapes 1 and 2, {@code (mean2 * count2 - mean1 * count1) / (count2 - count1)}
 * is the mean of exactly the requests that completed in between. A count that went down means the
 * broker restarted: that interval mixes two processes and is dropped, and the scrape becomes the
 * new baseline.
 *
 * <p>Threads: {@link #add} is called by one scraping thread at a time (the scheduler never overlaps
 * two scrapes of a broker); {@link #lookup} and {@link #latest} by any thread, without locks: each
 * ring is an immutable array published through a volatile field.
 */
final class BrokerHistory {
  private static final RequestTimings[] EMPTY = new RequestTimings[0];

  private final long historyNanos;
  private final int maxIntervals;
  private final RequestTimings[][] rings;
  private final IsrChangeHistory isrChanges;
  private volatile RequestTimings[][] published;
  private Reading previous;
  private volatile long resets;
  private volatile BrokerTimings.Partitions partitions = BrokerTimings.Partitions.UNKNOWN;
  private volatile long maxLagMessages = -1;

  /**
   * @param historyNanos how far back intervals are kept (by their end)
   * @param maxIntervals a hard cap per request kind, whatever the scrape rate
   */
  BrokerHistory(long historyNanos, int maxIntervals) {
    this.historyNanos = historyNanos;
    this.maxIntervals = maxIntervals;
    rings = new RequestTimings[Phase.REQUESTS.length][];
    Arrays.fill(rings, EMPTY);
    published = rings.clone();
    isrChanges = new IsrChangeHistory(historyNanos, maxIntervals);
  }

  /** Takes a new scrape: derives the interval since the previous one and trims old intervals. */
  synchronized void add(Reading current) {
    partitions = current.partitions(); // gauges: the newest scrape's, whatever the clock did
    maxLagMessages = current.maxLagMessages();
    Reading before = previous;
    if (before != null && current.epochNanos <= before.epochNanos) {
      return; // the wall clock stepped back: wait until it passes the baseline again
    }
    previous = current;
    isrChanges.add(current.epochNanos, current.isrShrinks(), current.isrExpands());
    boolean changed = false;
    for (Request request : Phase.REQUESTS) {
      RequestTimings[] ring = rings[request.ordinal()];
      RequestTimings interval = before == null ? null : interval(before, current, request);
      int keepFrom = 0;
      long oldestEnd = current.epochNanos - historyNanos;
      while (keepFrom < ring.length && ring[keepFrom].intervalEndEpochNanos() < oldestEnd) {
        keepFrom++;
      }
      int size = ring.length - keepFrom + (interval == null ? 0 : 1);
      if (size > maxIntervals) {
        keepFrom += size - maxIntervals;
      }
      if (interval == null && keepFrom == 0) {
        continue;
      }
      RequestTimings[] next =
          Arrays.copyOfRange(ring, keepFrom, ring.length + (interval == null ? 0 : 1));
      if (interval != null) {
        next[next.length - 1] = interval;
      }
      rings[request.ordinal()] = next;
      changed = true;
    }
    if (changed) {
      published = rings.clone();
    }
  }

  /**
   * The interval of one request kind between two scrapes, or null when it had no requests, a value
   * is missing or NaN, or a count went down (a restart).
   */
  private RequestTimings interval(Reading before, Reading after, Request request) {
    if (!before.complete(request) || !after.complete(request)) {
      return null;
    }
    for (Phase phase : Phase.ALL) {
      if (after.count(request, phase) < before.count(request, phase)) {
        resets++;
        return null;
      }
    }
    long requests = after.count(request, Phase.TOTAL) - before.count(request, Phase.TOTAL);
    if (requests <= 0) {
      return null;
    }
    long[] meanNanos = new long[Phase.ALL.length];
    for (Phase phase : Phase.ALL) {
      // Each phase has its own histogram, updated one after another when a request completes, so
      // a scrape can fall between them: each phase uses its own counts.
      long n1 = before.count(request, phase);
      long n2 = after.count(request, phase);
      if (n2 == n1) {
        return null;
      }
      double sumMs = after.meanMs(request, phase) * n2 - before.meanMs(request, phase) * n1;
      double meanMs = sumMs / (n2 - n1);
      if (!Double.isFinite(meanMs)) {
        return null;
      }
      // Rounding in mean * count can leave a tiny negative where every request took 0 ms.
      meanNanos[phase.ordinal()] = Math.max(0, Math.round(meanMs * 1e6));
    }
    return new RequestTimings(
        requests,
        meanNanos[Phase.REQUEST_QUEUE.ordinal()],
        meanNanos[Phase.LOCAL.ordinal()],
        meanNanos[Phase.REMOTE.ordinal()],
        meanNanos[Phase.THROTTLE.ordinal()],
        meanNanos[Phase.RESPONSE_QUEUE.ordinal()],
        meanNanos[Phase.RESPONSE_SEND.ordinal()],
        meanNanos[Phase.TOTAL.ordinal()],
        before.epochNanos,
        after.epochNanos);
  }

  /**
   * The interval containing {@code epochNanos}; else the nearest earlier interval (one without
   * requests in between, or none yet after the newest) if it ended at most {@code staleNanos}
   * before; else null, as for a time before the oldest interval kept.
   */
  RequestTimings lookup(Request request, long epochNanos, long staleNanos) {
    RequestTimings[] ring = published[request.ordinal()];
    int low = 0;
    int high = ring.length;
    while (low < high) { // the first interval that ends at or after epochNanos
      int mid = (low + high) >>> 1;
      if (ring[mid].intervalEndEpochNanos() < epochNanos) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    if (low < ring.length && ring[low].intervalStartEpochNanos() <= epochNanos) {
      return ring[low];
    }
    if (low == 0) {
      return null;
    }
    RequestTimings earlier = ring[low - 1];
    return epochNanos - earlier.intervalEndEpochNanos() <= staleNanos ? earlier : null;
  }

  /** The newest interval of a request kind, or null. */
  RequestTimings latest(Request request) {
    RequestTimings[] ring = published[request.ordinal()];
    return ring.length == 0 ? null : ring[ring.length - 1];
  }

  /** Intervals kept for a request kind. */
  int size(Request request) {
    return published[request.ordinal()].length;
  }

  /** The partition counts of the newest scrape (each -1 when it lacked them). */
  BrokerTimings.Partitions partitions() {
    return partitions;
  }

  /**
   * The ISR changes since {@code sinceEpochNanos} and the newest scrape's replica fetcher lag, or
   * null when the newest scrape had none of them.
   */
  BrokerTimings.Replication replication(long sinceEpochNanos) {
    long lag = maxLagMessages;
    if (lag < 0 && !isrChanges.newestKnown()) {
      return null;
    }
    return new BrokerTimings.Replication(
        isrChanges.changes(IsrChangeHistory.SHRINKS, sinceEpochNanos),
        isrChanges.changes(IsrChangeHistory.EXPANDS, sinceEpochNanos),
        lag);
  }

  /** Restarts seen: scrapes in which a count went down. */
  long resets() {
    return resets;
  }
}

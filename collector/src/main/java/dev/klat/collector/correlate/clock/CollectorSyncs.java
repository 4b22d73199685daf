package dev.klat.collector.correlate.clock;

import dev.klat.collector.correlate.join.Correlator;
import java.util.LinkedHashMap;

/**
 * Each clock domain's latest measurement of its clock against the collector's (section 5 of the
 * latency model): an agent's from the resource of its export, a broker probe's from its export. Two
 * domains that both have a recent one are bounded against each other from both sides, which records
 * flowing one way never do. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
public final class CollectorSyncs {
  // About 13 days: beyond it a clock measurement is garbage, and below it sums cannot overflow.
  static final long MAX_SYNC_NANOS = 1L << 50;

  private final int maxDomains;
  private final long windowNanos;
  // Insertion order kept as measurement order: the eldest measured least recently.
  private final LinkedHashMap<String, Sync> byDomain = new LinkedHashMap<>();

  /**
   * @param maxDomains how many clock domains are kept; beyond it the least recently measured leaves
   *     (forgetting all at once would let a flood of made-up instances wipe the real agents'
   *     measurements, and with them what {@code clock.max-step} checks records against)
   * @param windowNanos how long a measurement is used after it was offered
   */
  public CollectorSyncs(int maxDomains, long windowNanos) {
    this.maxDomains = maxDomains;
    this.windowNanos = windowNanos;
  }

  /**
   * Keeps {@code clock(collector) - clock(domain)} within {@code uncertaintyNanos} of {@code
   * offsetNanos}, measured at {@code nowNanos}; an implausible measurement is ignored.
   */
  public void keep(String domain, long offsetNanos, long uncertaintyNanos, long nowNanos) {
    if (uncertaintyNanos < 0
        || uncertaintyNanos > MAX_SYNC_NANOS
        || offsetNanos > MAX_SYNC_NANOS
        || offsetNanos < -MAX_SYNC_NANOS) {
      return;
    }
    if (byDomain.remove(domain) == null && byDomain.size() >= maxDomains) {
      byDomain.remove(byDomain.keySet().iterator().next());
    }
    byDomain.put(domain, new Sync(offsetNanos, uncertaintyNanos, nowNanos));
  }

  /**
   * Bounds {@code clock(to) - clock(from)} from both sides when both domains measured themselves
   * recently: {@code (clock(col) - clock(from)) - (clock(col) - clock(to))}, within the sum of the
   * two uncertainties.
   */
  public void bound(ClockOffsets offsets, String from, String to, long nowNanos) {
    Sync f = byDomain.get(from);
    Sync t = byDomain.get(to);
    if (f == null
        || t == null
        || nowNanos - f.offeredNanos > windowNanos
        || nowNanos - t.offeredNanos > windowNanos) {
      return;
    }
    long offset = f.offsetNanos - t.offsetNanos;
    long uncertainty = f.uncertaintyNanos + t.uncertaintyNanos;
    offsets.bound(from, to, offset + uncertainty, nowNanos);
    offsets.bound(to, from, uncertainty - offset, nowNanos);
  }

  /**
   * Whether a bound {@code clock(to) - clock(from) <= upperNanos} that a record gives agrees with
   * the two domains' own measurements: they put {@code clock(to) - clock(from)} at least at their
   * offset less both uncertainties, and a record's bound may fall below that by at most {@code
   * maxStepNanos} (drift and clock steps since the measurements). True when either domain has no
   * recent measurement: then nothing contradicts the record.
   */
  public boolean allows(String from, String to, long upperNanos, long nowNanos, long maxStepNanos) {
    Sync f = byDomain.get(from);
    Sync t = byDomain.get(to);
    if (f == null
        || t == null
        || nowNanos - f.offeredNanos > windowNanos
        || nowNanos - t.offeredNanos > windowNanos) {
      return true;
    }
    long lower = f.offsetNanos - t.offsetNanos - f.uncertaintyNanos - t.uncertaintyNanos;
    return upperNanos >= lower - maxStepNanos;
  }

  private record Sync(long offsetNanos, long uncertaintyNanos, long offeredNanos) {}
}

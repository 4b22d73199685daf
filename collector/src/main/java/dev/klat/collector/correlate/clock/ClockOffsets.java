package dev.klat.collector.correlate.clock;

import dev.klat.collector.correlate.join.Correlator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps, for each ordered pair of clock domains {@code (a, b)}, the tightest upper bound on {@code
 * clock(b) - clock(a)} seen over a sliding window, and turns the two directions of a pair into an
 * offset with an uncertainty, the way NTP bounds a clock by the round trip.
 *
 * <p>Every record gives such a bound: an event read on {@code b}'s clock that truly happened after
 * an event read on {@code a}'s clock (for example {@code R} after {@code D}) bounds {@code clock(b)
 * - clock(a) <= reading(b) - reading(a)}. Records flowing from {@code b} to {@code a} bound the
 * other side. With traffic in one direction only, the offset is bounded on one side: the estimate
 * is then the smallest correction that restores causality ({@code min(0, upper)}), and the
 * uncertainty is reported as {@link ClockOffset#UNBOUNDED}, because a skew in the other direction
 * cannot be told apart from latency.
 *
 * <p>Where both sides are bounded, the estimate depends on where the bounds come from. Between two
 * agents, the collector's clock exchanges bound the offset by round trips the way NTP does, so the
 * midpoint is the estimate. A broker's clock is bounded only by records flowing one way through it
 * ({@code D <= L <= A}, {@code L <= R}), and nothing puts the truth in the middle of that interval:
 * with a producer 50 ms away and a consumer next to the broker, the interval was [-3, +50] ms on
 * one machine clock, and its midpoint moved {@code L} 24 ms. For a pair with a broker the estimate
 * is therefore the smallest correction the bounds allow (0 when they allow it), as for one-sided
 * bounds: brokers and clients kept in step by NTP are taken as they read.
 *
 * <p>The window is split into {@value WindowedMinimum#SLOTS} slots that each keep their minimum, so
 * that memory per pair is constant and an old tight bound leaves the window after at most one slot.
 * At most {@code maxPairs} directed pairs are kept; the least recently updated goes first. Not
 * thread-safe: confined to the {@link Correlator}'s lock.
 */
public final class ClockOffsets {

  private static final int MAX_BROKER_DOMAINS = 4096;

  private final long windowNanos;
  private final Map<Pair, WindowedMinimum> bounds;
  private final Set<String> brokerDomains = new HashSet<>();

  public ClockOffsets(long windowNanos, int maxPairs) {
    this.windowNanos = windowNanos;
    this.bounds =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Pair, WindowedMinimum> eldest) {
            return size() > maxPairs;
          }
        };
  }

  /** Records {@code clock(to) - clock(from) <= upperNanos}, observed at {@code nowNanos}. */
  public void bound(String from, String to, long upperNanos, long nowNanos) {
    if (from.equals(to)) {
      return;
    }
    bounds
        .computeIfAbsent(key(from, to), k -> new WindowedMinimum(windowNanos))
        .add(upperNanos, nowNanos);
  }

  /** Marks {@code domain} as a broker's clock, bounded only by one-way record flows. */
  public void brokerDomain(String domain) {
    if (brokerDomains.size() >= MAX_BROKER_DOMAINS && !brokerDomains.contains(domain)) {
      brokerDomains.clear();
    }
    brokerDomains.add(domain);
  }

  /** Returns the current estimate of {@code clock(to) - clock(from)}. */
  public ClockOffset estimate(String from, String to, long nowNanos) {
    if (from.equals(to)) {
      return new ClockOffset(from, to, 0, 0, 0, 0);
    }
    long upper = min(key(from, to), nowNanos);
    long reverse = min(key(to, from), nowNanos);
    boolean hasUpper = upper != Long.MAX_VALUE;
    boolean hasLower = reverse != Long.MAX_VALUE;
    if (hasUpper && hasLower) {
      long lower = -reverse;
      // When the bounds cross (drift, or a clock stepped inside the window) the midpoint is still
      // the best guess, and the gap is reported as its uncertainty.
      long offset = lower / 2 + upper / 2 + ((lower % 2 + upper % 2) / 2);
      if (lower <= upper && (brokerDomains.contains(from) || brokerDomains.contains(to))) {
        offset = Math.max(lower, Math.min(0, upper));
      }
      long uncertainty = Math.abs(upper / 2 - lower / 2);
      return new ClockOffset(from, to, offset, uncertainty, lower, upper);
    }
    if (hasUpper) {
      return new ClockOffset(
          from, to, Math.min(0, upper), ClockOffset.UNBOUNDED, Long.MIN_VALUE, upper);
    }
    if (hasLower) {
      return new ClockOffset(
          from, to, Math.max(0, -reverse), ClockOffset.UNBOUNDED, -reverse, Long.MAX_VALUE);
    }
    return ClockOffset.zero(from, to);
  }

  /** Returns the estimate of every pair with a bound in the window, each unordered pair once. */
  public List<ClockOffset> all(long nowNanos) {
    List<ClockOffset> out = new ArrayList<>();
    Set<Pair> seen = new HashSet<>();
    for (Pair key : new ArrayList<>(bounds.keySet())) {
      String a = key.from();
      String b = key.to();
      Pair canonical = a.compareTo(b) < 0 ? key : new Pair(b, a);
      if (!seen.add(canonical)) {
        continue;
      }
      ClockOffset offset = estimate(a, b, nowNanos);
      if (offset.lowerNanos() != Long.MIN_VALUE || offset.upperNanos() != Long.MAX_VALUE) {
        out.add(offset);
      }
    }
    return out;
  }

  int pairCount() {
    return bounds.size();
  }

  private long min(Pair key, long nowNanos) {
    WindowedMinimum window = bounds.get(key);
    return window == null ? Long.MAX_VALUE : window.min(nowNanos);
  }

  private static Pair key(String from, String to) {
    return new Pair(from, to);
  }

  private record Pair(String from, String to) {}
}

package dev.klat.agentcore.otlp;

import dev.klat.model.ClockSyncHeaders;

/**
 * The agent's side of the NTP-style clock exchange with the klat collector ({@link
 * ClockSyncHeaders}), piggy-backed on the exports: each answer that carries the collector's receive
 * and send times {@code t1, t2} gives, with the agent's {@code t0} (before sending) and {@code t3}
 * (after reading the status), a sample of {@code clock(collector) - clock(agent)} with an
 * uncertainty of half the round trip. Of the last {@value #WINDOW} samples, the one with the
 * shortest round trip is reported, as the resource attributes {@code
 * klat.clock.collector_offset_ns} and {@code klat.clock.collector_uncertainty_ns}.
 *
 * <p>An answer without both headers (another OTLP backend) is no sample; one whose values do not
 * parse or contradict each other is counted in {@link #rejected()} and ignored. Never throws, and
 * allocates nothing. Confined to the exporter thread.
 */
public final class ClockSync {

  /** How many recent samples compete for the shortest round trip, {@value}. */
  static final int WINDOW = 8;

  // The headers are whole microseconds, rounded down: each true value lies in [v, v + 1 us).
  private static final long MICROS_NANOS = 1000;
  // Beyond these a value is garbage: about 13 days of offset, a minute of round trip.
  private static final long MAX_OFFSET_NANOS = 1L << 50;
  private static final long MAX_ROUND_TRIP_NANOS = 60_000_000_000L;
  // The largest epoch in microseconds a header may carry (year 2116), so that * 1000 cannot
  // overflow.
  private static final long MAX_EPOCH_MICROS = (1L << 62) / MICROS_NANOS;

  private final long[] offsets = new long[WINDOW];
  private final long[] uncertainties = new long[WINDOW];
  private int count;
  private int next;
  private long accepted;
  private long rejected;

  /**
   * Takes one exchange.
   *
   * @param t0 the agent's epoch nanos just before the request was written
   * @param receiveMicros the {@link ClockSyncHeaders#RECEIVE_TIME_MICROS} value, or null
   * @param sendMicros the {@link ClockSyncHeaders#SEND_TIME_MICROS} value, or null
   * @param t3 the agent's epoch nanos just after the response status was read
   */
  void record(long t0, String receiveMicros, String sendMicros, long t3) {
    if (receiveMicros == null && sendMicros == null) {
      return;
    }
    long t1Micros = parseMicros(receiveMicros);
    long t2Micros = parseMicros(sendMicros);
    if (t1Micros < 0 || t2Micros < 0 || t2Micros < t1Micros || t3 < t0) {
      rejected++;
      return;
    }
    // The midpoints of the truncated values; the truncation adds at most 1 us of uncertainty.
    long t1 = t1Micros * MICROS_NANOS + MICROS_NANOS / 2;
    long t2 = t2Micros * MICROS_NANOS + MICROS_NANOS / 2;
    long roundTrip = (t3 - t0) - (t2 - t1);
    // A collector that held the request longer than the agent waited for it (beyond what the
    // truncation explains) has a clock that does not run like ours, or lies.
    if (roundTrip < -2 * MICROS_NANOS || roundTrip > MAX_ROUND_TRIP_NANOS) {
      rejected++;
      return;
    }
    long offset = ((t1 - t0) + (t2 - t3)) / 2;
    if (offset > MAX_OFFSET_NANOS || offset < -MAX_OFFSET_NANOS) {
      rejected++;
      return;
    }
    offsets[next] = offset;
    uncertainties[next] = Math.max(0, roundTrip) / 2 + MICROS_NANOS;
    next = (next + 1) % WINDOW;
    count = Math.min(count + 1, WINDOW);
    accepted++;
  }

  /** Whether a sample is there to report. */
  public boolean hasSample() {
    return count > 0;
  }

  /** {@code clock(collector) - clock(agent)} of the best recent sample; 0 without one. */
  public long offsetNanos() {
    int best = best();
    return best < 0 ? 0 : offsets[best];
  }

  /** The uncertainty of {@link #offsetNanos()}, at least 1 us; 0 without a sample. */
  public long uncertaintyNanos() {
    int best = best();
    return best < 0 ? 0 : uncertainties[best];
  }

  /** Exchanges that gave a sample. */
  long accepted() {
    return accepted;
  }

  /** Answers with clock headers that did not parse or contradicted each other. */
  long rejected() {
    return rejected;
  }

  private int best() {
    int best = -1;
    for (int i = 0; i < count; i++) {
      if (best < 0 || uncertainties[i] < uncertainties[best]) {
        best = i;
      }
    }
    return best;
  }

  /** A non-negative decimal of at most 18 digits, trimmed; -1 for anything else. */
  static long parseMicros(String value) {
    if (value == null) {
      return -1;
    }
    int start = 0;
    int end = value.length();
    while (start < end && value.charAt(start) == ' ') {
      start++;
    }
    while (end > start && value.charAt(end - 1) == ' ') {
      end--;
    }
    if (end == start || end - start > 18) {
      return -1;
    }
    long v = 0;
    for (int i = start; i < end; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v <= MAX_EPOCH_MICROS ? v : -1;
  }
}

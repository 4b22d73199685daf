package dev.klat.collector.correlate.join;

import java.util.Arrays;

/**
 * The producer span contexts a consumer span of an OpenTelemetry instrumentation names (section 10
 * of the latency model): its parent, when the instrumentation makes the producer the parent (same
 * trace), and its span links, when it links to the producer (another trace), in that order, at most
 * {@link #MAX} of them. Which one is the producer is for the join to find: a parent may be a poll
 * span of the consumer's own. Immutable.
 */
public final class ProducerRefs {
  /** The most contexts kept: {@link RecordLinks#MAX_LINKS}, as many links as a span has read. */
  public static final int MAX = RecordLinks.MAX_LINKS;

  /** No context: a producer span's, or a consumer span with neither parent nor links. */
  public static final ProducerRefs EMPTY = new ProducerRefs(new long[0], new long[0], new long[0]);

  private final long[] traceIdHigh;
  private final long[] traceIdLow;
  private final long[] spanId;

  private ProducerRefs(long[] traceIdHigh, long[] traceIdLow, long[] spanId) {
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.spanId = spanId;
  }

  /**
   * The first {@code count} contexts of the arrays, copied; contexts with a zero trace or span id
   * are left out.
   *
   * @throws IllegalArgumentException if {@code count} is negative, above {@link #MAX} or beyond an
   *     array
   */
  public static ProducerRefs of(long[] traceIdHigh, long[] traceIdLow, long[] spanId, int count) {
    if (count < 0
        || count > MAX
        || count > traceIdHigh.length
        || count > traceIdLow.length
        || count > spanId.length) {
      throw new IllegalArgumentException("producer contexts: count " + count);
    }
    int kept = 0;
    long[] high = new long[count];
    long[] low = new long[count];
    long[] span = new long[count];
    for (int i = 0; i < count; i++) {
      if ((traceIdHigh[i] != 0 || traceIdLow[i] != 0) && spanId[i] != 0) {
        high[kept] = traceIdHigh[i];
        low[kept] = traceIdLow[i];
        span[kept] = spanId[i];
        kept++;
      }
    }
    return kept == 0
        ? EMPTY
        : new ProducerRefs(
            Arrays.copyOf(high, kept), Arrays.copyOf(low, kept), Arrays.copyOf(span, kept));
  }

  /** How many contexts, at most {@link #MAX}. */
  public int count() {
    return spanId.length;
  }

  /** Whether there is none. */
  public boolean isEmpty() {
    return spanId.length == 0;
  }

  /** The high 64 bits of context {@code i}'s trace id. */
  public long traceIdHigh(int i) {
    return traceIdHigh[i];
  }

  /** The low 64 bits of context {@code i}'s trace id. */
  public long traceIdLow(int i) {
    return traceIdLow[i];
  }

  /** The span id of context {@code i}: the producer span's, if it is one. */
  public long spanId(int i) {
    return spanId[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProducerRefs r
        && Arrays.equals(traceIdHigh, r.traceIdHigh)
        && Arrays.equals(traceIdLow, r.traceIdLow)
        && Arrays.equals(spanId, r.spanId);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(spanId);
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("ProducerRefs[");
    for (int i = 0; i < count(); i++) {
      out.append(i == 0 ? "" : ", ")
          .append(String.format("%016x%016x/%016x", traceIdHigh[i], traceIdLow[i], spanId[i]));
    }
    return out.append(']').toString();
  }
}

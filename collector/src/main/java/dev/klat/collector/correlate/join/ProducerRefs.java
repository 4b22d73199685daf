package dev.klat.collector.correlate.join;

import java.util.Arrays;

/**
 * The producer span contexts a consumer record span of an OpenTelemetry instrumentation names
 * (section 10 of the latency model): its parent, when it is in the producer's trace, and its span
 * links, each a trace id and a span id; at most {@link #MAX} of them. The join places a producer
 * span that carries no offset through them. Immutable.
 */
public final class ProducerRefs {
  /** The most contexts kept from one span. */
  public static final int MAX = 16;

  /** No context named. */
  public static final ProducerRefs NONE = new ProducerRefs(new long[0]);

  // Three words per context: trace id high, trace id low, span id.
  private final long[] words;

  private ProducerRefs(long[] words) {
    this.words = words;
  }

  /**
   * The contexts in {@code words}, three words each (trace id high, trace id low, span id); a
   * context whose trace id or span id is zero is left out, and so is any beyond {@link #MAX}.
   */
  public static ProducerRefs of(long... words) {
    if (words.length % 3 != 0) {
      throw new IllegalArgumentException("three words per context");
    }
    long[] kept = new long[Math.min(words.length, 3 * MAX)];
    int n = 0;
    for (int i = 0; i + 2 < words.length && n < kept.length; i += 3) {
      if ((words[i] == 0 && words[i + 1] == 0) || words[i + 2] == 0) {
        continue;
      }
      kept[n++] = words[i];
      kept[n++] = words[i + 1];
      kept[n++] = words[i + 2];
    }
    return n == 0 ? NONE : new ProducerRefs(Arrays.copyOf(kept, n));
  }

  /** How many contexts. */
  public int size() {
    return words.length / 3;
  }

  public long traceIdHigh(int i) {
    return words[3 * i];
  }

  public long traceIdLow(int i) {
    return words[3 * i + 1];
  }

  public long spanId(int i) {
    return words[3 * i + 2];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProducerRefs r && Arrays.equals(words, r.words);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(words);
  }

  @Override
  public String toString() {
    return "ProducerRefs" + Arrays.toString(words);
  }
}

package dev.klat.model;

/**
 * The bucket layout of every klat latency histogram, agent and collector. Bounds are log-linear:
 * the power of two {@code [2^e, 2^(e+1))} ns is cut into 16 sub-buckets, sub-bucket {@code s}
 * ending at {@link #upperNanos(int, int) (17 + s) * 2^(e - 4)} ns, inclusive (OTLP's and
 * Prometheus' semantics).
 *
 * <ul>
 *   <li><b>Agent layout</b>, where every record is counted: a first bucket up to 1 us, then all 16
 *       sub-buckets per power of two up to {@code 2^37} ns (137 s), then the overflow bucket; 435
 *       buckets, each at most 1/16 of its lower bound wide.
 *   <li><b>Exposed layout</b>, what the collector's {@code /metrics} shows: every other agent bound
 *       ({@code s} odd) from {@code 2^19 * 18/16} ns (0.59 ms) to {@code 2^36} ns (68.7 s), then
 *       {@code +Inf}; 8 buckets per power of two, at most 1/8 wide. Every exposed bound is an agent
 *       bound, so the agents' histograms fold into it exactly.
 * </ul>
 *
 * Bounds in seconds are {@code nanos / 1e9}, correctly rounded, in both layouts, so that equal
 * bounds compare equal after travelling as OTLP doubles.
 */
public final class LatencyBuckets {

  /** {@value} ns: the upper bound of the agent layout's first bucket. */
  public static final long AGENT_FIRST_BOUND_NANOS = 1000;

  /** The agent layout's last finite bound, {@code 2^37} ns; larger values overflow. */
  public static final long AGENT_LAST_BOUND_NANOS = 1L << 37;

  // k = 16 * e + s of the agent layout's first log-linear bucket (e = 9, s = 15), minus its index.
  private static final int AGENT_KEY_OFFSET = 16 * 9 + 15 - 1;

  /** The agent layout's bucket count, the first and the overflow bucket included. */
  public static final int AGENT_BUCKET_COUNT = 16 * 36 + 15 - AGENT_KEY_OFFSET + 2;

  private static final int EXPOSED_FIRST_EXPONENT = 19;
  private static final int EXPOSED_LAST_EXPONENT = 35;

  private LatencyBuckets() {}

  /**
   * The inclusive upper bound, in ns, of sub-bucket {@code sub} (0 to 15) of {@code 2^exponent}.
   */
  public static long upperNanos(int exponent, int sub) {
    return (17L + sub) << (exponent - 4);
  }

  /** The agent layout's finite upper bounds in ns, increasing; a new array. */
  public static long[] agentUpperNanos() {
    long[] bounds = new long[AGENT_BUCKET_COUNT - 1];
    bounds[0] = AGENT_FIRST_BOUND_NANOS;
    for (int i = 1; i < bounds.length; i++) {
      int k = i + AGENT_KEY_OFFSET;
      bounds[i] = upperNanos(k >>> 4, k & 15);
    }
    return bounds;
  }

  /**
   * The agent layout's bucket of a duration, computed from its bits (no search): what the agents'
   * hot path calls once per record.
   *
   * @param nanos a non-negative duration
   * @return the index, in {@code [0, AGENT_BUCKET_COUNT)}
   */
  public static int agentIndex(long nanos) {
    if (nanos <= AGENT_FIRST_BOUND_NANOS) {
      return 0;
    }
    if (nanos > AGENT_LAST_BOUND_NANOS) {
      return AGENT_BUCKET_COUNT - 1;
    }
    // Upper bounds are inclusive: (lo, hi] in v is [lo, hi) in v - 1, where the log-linear
    // bucket is read from the exponent and the next four bits.
    long u = nanos - 1;
    int exponent = 63 - Long.numberOfLeadingZeros(u);
    int sub = (int) (u >>> (exponent - 4)) & 15;
    return (exponent << 4) + sub - AGENT_KEY_OFFSET;
  }

  /** The exposed layout's finite upper bounds in ns, increasing; a new array. */
  public static long[] exposedUpperNanos() {
    long[] bounds = new long[(EXPOSED_LAST_EXPONENT - EXPOSED_FIRST_EXPONENT + 1) * 8];
    int i = 0;
    for (int e = EXPOSED_FIRST_EXPONENT; e <= EXPOSED_LAST_EXPONENT; e++) {
      for (int s = 1; s < 16; s += 2) {
        bounds[i++] = upperNanos(e, s);
      }
    }
    return bounds;
  }

  /** Bounds in seconds, {@code nanos / 1e9} each: the one conversion both layouts use. */
  public static double[] seconds(long[] nanos) {
    double[] seconds = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      seconds[i] = nanos[i] / 1e9;
    }
    return seconds;
  }
}

package dev.klat.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The five-segment breakdown of one record's end-to-end latency for one consumer group, computed
 * from its {@link Instants} by {@link #compute(Instants)}. Immutable and thread-safe.
 *
 * <h2>Clamping</h2>
 *
 * <p>Estimates and clock alignment can put instants out of order. A negative duration is never
 * reported (sections 4 and 5 of the latency model): before any segment is computed, the instants
 * are moved onto the nearest bound of the ordering {@code S <= D <= L <= H <= R <= P}, {@code D <=
 * A}, {@code L <= A} and {@code F <= R}, and every move is recorded as a {@link Clamp}. Segments
 * are then computed from the clamped instants, so the identity below holds by construction. The
 * bounds are applied in this order, each to values already clamped, a bound on an instant that is
 * not known being left out:
 *
 * <ol>
 *   <li>{@code S} is the origin and never moves.
 *   <li>{@code P >= S}.
 *   <li>{@code S <= D <= P}.
 *   <li>{@code D <= R <= P}.
 *   <li>{@code F <= R}; {@code F} has no lower bound, since the consumer may ask for a record long
 *       before it is produced (long-poll).
 *   <li>{@code A >= D}, when {@code A} is known; {@code A} has no upper bound ({@code P} may come
 *       first).
 *   <li>{@code D <= L <= min(A, R)}, when {@code L} is known. The bound is named {@code A} when
 *       {@code A <= R}, or when {@code R} is unknown.
 *   <li>{@code L <= H <= R}, or {@code D <= H <= R} when {@code L} is unknown.
 * </ol>
 *
 * <p>A tail record seen by its consumer alone (section 8 of the latency model) has no {@code D} and
 * no {@code A}: its consumer's instants are the frame, and {@code S}, when it is known, comes from
 * a {@code CreateTime} timestamp on a clock klat could not align, so it is the instant that gives
 * way:
 *
 * <ol>
 *   <li>{@code P} is the origin and never moves.
 *   <li>{@code R <= P}.
 *   <li>{@code F <= R}.
 *   <li>{@code L <= R}, when {@code L} is known.
 *   <li>{@code L <= H <= R}, or {@code H <= R} when {@code L} is unknown.
 *   <li>{@code S <= L}, or {@code S <= H} when {@code L} is unknown, when {@code S} is known.
 * </ol>
 *
 * <p>The client instants ({@code S, D, A, F, R, P}) form the frame and the broker instants ({@code
 * L, H}) are fitted into it: the broker instants are estimated or read on a third clock, while the
 * differences {@code D - S} and {@code P - R} are exact readings of one monotonic clock that an
 * estimate should not distort. A client instant moves only when client instants contradict each
 * other, except a {@code create-timestamp} {@code S}. Each lower bound is never above its upper
 * bound, so an instant is clamped at most once, and an input that is already ordered comes back
 * unchanged with no clamp.
 *
 * <h2>Segments</h2>
 *
 * <p>From the clamped instants: produce {@code D - S}, publish {@code L - D}, commit {@code H - L},
 * catch-up {@code max(0, F - H) + (P - R)}, fetch {@code R - max(F, H)}. A segment is known when
 * the instants it is computed from are. Every known segment is {@code >= 0}, and
 *
 * <pre>
 * produce + publish + commit + catch-up + fetch == P - S                 (L known)
 * produce + publishAndCommit + catch-up + fetch == P - S                 (L unknown)
 * produceAndPublish + commit + catch-up + fetch == P - S                 (D unknown)
 * producePublishAndCommit + catch-up + fetch    == P - S                 (D and L unknown)
 * ... + commit + catchUpAndFetch                == P - S                 (F or R unknown)
 * </pre>
 *
 * <p>exactly, in {@code long} arithmetic, where {@code P} is the clamped poll instant. Around an
 * unknown instant the segments on either side cannot be separated: {@link #isKnown(Segment)} is
 * false for them, and a combined segment carries their sum ({@link #publishAndCommitNanos()} {@code
 * H - D}, {@link #produceAndPublishNanos()} {@code L - S}, {@link #producePublishAndCommitNanos()}
 * {@code H - S}; {@link #catchUpAndFetchNanos()} {@code P - H} for a consumer seen through an
 * OpenTelemetry instrumentation, section 10 of the latency model, whose {@code F} and {@code R} are
 * unknown: {@code H} and {@code L} are then bounded by {@code P} where they would be by {@code R}).
 * With {@code S} and {@code P} and none of {@code D, L, H}, the end to end is the only figure.
 * Without {@code S} or {@code P} the end-to-end latency is not known ({@link #isEndToEndKnown()}),
 * and the known and combined segments add up to the time from the first to the last known instant
 * of {@code S, D, L, H, P} ({@link #sumOfSegmentsNanos()}).
 *
 * <h2>Transactions</h2>
 *
 * <p>When the instants carry {@code V} (a {@code read_committed} group reading a record written in
 * a transaction, section 9 of the latency model), it is clamped into {@code [H, R]} after the other
 * instants ({@link #wasVisibleClamped()}; not one of {@link #clamps()}, whose instants are the
 * eight), and the record is readable at {@code V}, not {@code H}: commit is {@code V - L}, in two
 * parts, replication {@code H - L} ({@link #replicationNanos()}) and the transaction wait {@code V
 * - H} ({@link #transactionWaitNanos()}); catch-up is {@code max(0, F - V) + (P - R)}, fetch {@code
 * R - max(F, V)}, and the combined segments that end at {@code H} end at {@code V}. The identities
 * above hold unchanged. Commit's quality is the worst of {@code L, H, V}, catch-up's and fetch's
 * take {@code V}'s in place of {@code H}'s. Without {@code V} every number is as without
 * transactions: {@code V = H}, a transaction wait of 0.
 *
 * <h2>Quality</h2>
 *
 * <p>An instant's quality is that of its {@link EstimationMethod}, kept through clamping. A
 * segment's quality is the worst quality of the instants it is computed from (produce: {@code S,
 * D}; publish: {@code D, L}; commit: {@code L, H}; catch-up: {@code H, F, R, P}; fetch: {@code H,
 * F, R}), and its method is the method of the instant that gave that quality, the latest in {@link
 * TimePoint} order on a tie. The breakdown's quality is the worst over its known and combined
 * segments' instants.
 */
public final class Breakdown {

  private static final Segment[] SEGMENTS = Segment.values();

  private final Instants original;
  private final Instants clamped;
  private final List<Clamp> clamps;
  // Indexed by Segment.ordinal(); -1, NONE and UNKNOWN for a segment that is not known. The
  // combined segments and e2e are -1 when not known.
  private final long[] segmentNanos;
  private final Quality[] qualities;
  private final EstimationMethod[] methods;
  private final long publishAndCommitNanos;
  private final long e2eNanos;
  private final Quality quality;
  // V - H, 0 without V; whether V was moved into [H, R].
  private final long transactionWaitNanos;
  private final boolean visibleClamped;
  // Section 11: max(0, F(n) - R(1)) of a redelivered share-group record, else -1.
  private final long redeliveryNanos;

  private Breakdown(
      Instants original,
      Instants clamped,
      List<Clamp> clamps,
      long[] segmentNanos,
      Quality[] qualities,
      EstimationMethod[] methods,
      long publishAndCommitNanos,
      long e2eNanos,
      Quality quality,
      long transactionWaitNanos,
      boolean visibleClamped,
      long redeliveryNanos) {
    this.redeliveryNanos = redeliveryNanos;
    this.transactionWaitNanos = transactionWaitNanos;
    this.visibleClamped = visibleClamped;
    this.original = original;
    this.clamped = clamped;
    this.clamps = clamps;
    this.segmentNanos = segmentNanos;
    this.qualities = qualities;
    this.methods = methods;
    this.publishAndCommitNanos = publishAndCommitNanos;
    this.e2eNanos = e2eNanos;
    this.quality = quality;
  }

  /**
   * Clamps the instants into order and computes the segments, their quality and method, as
   * described in the class documentation. Never throws for non-null instants: every {@link
   * Instants} that can be built lies in the supported range, in which no computation overflows.
   *
   * @param instants the instants of one record and one consumer group, not null
   * @return the breakdown
   * @throws NullPointerException if {@code instants} is null
   */
  public static Breakdown compute(Instants instants) {
    long[] t = instants.copyOfNanos();
    boolean[] known = instants.copyOfPresent();
    // Two clamps at most in the usual case; the list is read-only once published.
    List<Clamp> clamps = new ArrayList<Clamp>(2);
    if (known[TimePoint.DRAIN.ordinal()]) {
      clampFromProducer(t, known, clamps);
    } else {
      clampFromConsumer(t, known, clamps);
    }

    // Section 9: V, when known, is fitted into [H, R] after the eight.
    boolean visible = instants.hasVisible() && known[TimePoint.COMMIT.ordinal()];
    long h = at(t, TimePoint.COMMIT);
    long v = visible ? instants.visibleNanos() : h;
    boolean visibleClamped = false;
    if (visible) {
      long fitted = Math.max(v, h);
      if (known[TimePoint.FETCH_RESPONSE.ordinal()]) {
        fitted = Math.min(fitted, at(t, TimePoint.FETCH_RESPONSE));
      } else if (known[TimePoint.POLL.ordinal()]) {
        fitted = Math.min(fitted, at(t, TimePoint.POLL));
      }
      visibleClamped = fitted != v;
      v = fitted;
    }
    Instants clampedInstants =
        visible
            ? new Instants(t, known, instants.copyOfMethods(), v, instants.visibleMethod())
            : new Instants(t, known, instants.copyOfMethods());
    long[] segmentNanos = new long[SEGMENTS.length];
    Quality[] qualities = new Quality[SEGMENTS.length];
    EstimationMethod[] methods = new EstimationMethod[SEGMENTS.length];
    Quality overall = Quality.EXACT;
    for (Segment segment : SEGMENTS) {
      int i = segment.ordinal();
      if (!allKnown(known, segment.inputs())) {
        segmentNanos[i] = -1;
        qualities[i] = Quality.NONE;
        methods[i] = EstimationMethod.UNKNOWN;
        continue;
      }
      segmentNanos[i] = segmentNanos(segment, t, v);
      EstimationMethod worstMethod = worstMethod(clampedInstants, segment, visible);
      methods[i] = worstMethod;
      qualities[i] = worstMethod.quality();
      overall = Quality.worst(overall, qualities[i]);
    }
    // The combined segments' ends enter the breakdown's quality too (a create-time S does).
    for (TimePoint point : COMBINED_ENDS) {
      if (known[point.ordinal()] && enters(point, known)) {
        overall = Quality.worst(overall, clampedInstants.method(point).quality());
      }
    }

    return new Breakdown(
        instants,
        clampedInstants,
        Collections.unmodifiableList(clamps),
        segmentNanos,
        qualities,
        methods,
        known[TimePoint.DRAIN.ordinal()] && known[TimePoint.COMMIT.ordinal()]
            ? v - at(t, TimePoint.DRAIN)
            : -1,
        span(t, known, TimePoint.SEND, TimePoint.POLL),
        overall,
        v - h,
        visibleClamped,
        -1);
  }

  /**
   * The breakdown of a record read by a share group whose counted delivery {@code n > 1} is not its
   * first (section 11 of the latency model): {@code instants} are the counted delivery's, and the
   * first delivery's {@code R(1)} (the record acquired) takes the place of {@code H} where the
   * record's availability is meant. {@code R(1)} is first fitted into {@code [H, R(n)]} ({@code V}
   * for {@code H} with a transaction); then, with {@code X = max(F(n), R(1))},
   *
   * <pre>
   * catch-up   = (X - H) + (P(n) - R(n))      holding redelivery = max(0, F(n) - R(1))
   * fetch      = R(n) - X
   * </pre>
   *
   * <p>so that catch-up + fetch is {@code P(n) - H} as in section 3 and every identity of the class
   * documentation holds; the other segments, qualities and clamps are those of {@link
   * #compute(Instants)}. When catch-up or fetch is not known, the breakdown is {@link
   * #compute(Instants)}'s, with no redelivery part.
   *
   * @param instants the counted delivery's instants with the producer's and broker's, not null
   * @param firstAcquiredNanos the first delivery's {@code R(1)}, on the same clock as {@code
   *     instants}
   * @return the breakdown, with {@link #redeliveryNanos()}
   */
  public static Breakdown computeRedelivered(Instants instants, long firstAcquiredNanos) {
    Breakdown b = compute(instants);
    if (!b.isKnown(Segment.CATCH_UP) || !b.isKnown(Segment.FETCH)) {
      return b;
    }
    long h = b.readableNanos();
    long f = b.clamped.nanos(TimePoint.FETCH_REQUEST);
    long r = b.clamped.nanos(TimePoint.FETCH_RESPONSE);
    long p = b.clamped.nanos(TimePoint.POLL);
    long acquired = Math.max(h, Math.min(r, firstAcquiredNanos));
    long x = Math.max(f, acquired);
    long[] segments = b.segmentNanos.clone();
    segments[Segment.CATCH_UP.ordinal()] = (x - h) + (p - r);
    segments[Segment.FETCH.ordinal()] = r - x;
    return new Breakdown(
        b.original,
        b.clamped,
        b.clamps,
        segments,
        b.qualities,
        b.methods,
        b.publishAndCommitNanos,
        b.e2eNanos,
        b.quality,
        b.transactionWaitNanos,
        b.visibleClamped,
        Math.max(0, f - acquired));
  }

  /**
   * Returns the redelivery part of catch-up (section 11 of the latency model): {@code max(0, F(n) -
   * R(1))}, the time of a share-group record's earlier deliveries that failed, from the first
   * delivery's acquisition to the counted delivery's fetch. Inside catch-up, never added to it.
   *
   * @return the duration in nanoseconds, {@code >= 0} and {@code <=} catch-up; or -1 when the
   *     breakdown was not computed by {@link #computeRedelivered} (a consumer group's record, one
   *     delivered once, or one whose first delivery was not seen), or catch-up is not known
   */
  public long redeliveryNanos() {
    return redeliveryNanos;
  }

  private static final TimePoint[] COMBINED_ENDS = {
    TimePoint.SEND, TimePoint.APPEND, TimePoint.POLL
  };

  // Whether a known S, L or P is an end of a combined segment (it is of a known segment otherwise).
  private static boolean enters(TimePoint point, boolean[] known) {
    if (point == TimePoint.POLL) {
      // Section 10: without R, P ends catch-up+fetch (or, without H, the end to end alone).
      return !known[TimePoint.FETCH_RESPONSE.ordinal()];
    }
    boolean drain = known[TimePoint.DRAIN.ordinal()];
    if (point == TimePoint.SEND) {
      return !drain && (known[TimePoint.APPEND.ordinal()] || known[TimePoint.COMMIT.ordinal()]);
    }
    return !drain && known[TimePoint.SEND.ordinal()];
  }

  // Sections 3 to 5: the producer's instants are the frame (both sides, or the producer only).
  private static void clampFromProducer(long[] t, boolean[] known, List<Clamp> clamps) {
    boolean consumer = known[TimePoint.POLL.ordinal()];
    boolean ack = known[TimePoint.ACK.ordinal()];
    TimePoint poll = consumer ? TimePoint.POLL : null;
    // The consumer's first instant: R, or P for a consumer without R (section 10).
    TimePoint received =
        !consumer
            ? null
            : known[TimePoint.FETCH_RESPONSE.ordinal()] ? TimePoint.FETCH_RESPONSE : poll;
    if (consumer) {
      fit(t, TimePoint.POLL, TimePoint.SEND, null, clamps);
    }
    fit(t, TimePoint.DRAIN, TimePoint.SEND, poll, clamps);
    if (received == TimePoint.FETCH_RESPONSE) {
      fit(t, TimePoint.FETCH_RESPONSE, TimePoint.DRAIN, TimePoint.POLL, clamps);
      fit(t, TimePoint.FETCH_REQUEST, null, TimePoint.FETCH_RESPONSE, clamps);
    }
    if (ack) {
      fit(t, TimePoint.ACK, TimePoint.DRAIN, null, clamps);
    }
    boolean append = known[TimePoint.APPEND.ordinal()];
    if (append) {
      TimePoint upper;
      if (ack && (!consumer || at(t, TimePoint.ACK) <= at(t, received))) {
        upper = TimePoint.ACK;
      } else {
        upper = received;
      }
      fit(t, TimePoint.APPEND, TimePoint.DRAIN, upper, clamps);
    }
    if (known[TimePoint.COMMIT.ordinal()]) {
      fit(t, TimePoint.COMMIT, append ? TimePoint.APPEND : TimePoint.DRAIN, received, clamps);
    }
  }

  // Section 8: a record seen by its consumer alone; P is the origin and S gives way.
  // Section 10: a consumer without R (an instrumentation's span) bounds L and H by P instead.
  // An instrumented producer seen alone (section 10: S, perhaps A, without D) has no consumer
  // instant at all: then nothing bounds L, H and S from above.
  private static void clampFromConsumer(long[] t, boolean[] known, List<Clamp> clamps) {
    TimePoint received = known[TimePoint.POLL.ordinal()] ? TimePoint.POLL : null;
    if (known[TimePoint.FETCH_RESPONSE.ordinal()]) {
      received = TimePoint.FETCH_RESPONSE;
      fit(t, TimePoint.FETCH_RESPONSE, null, TimePoint.POLL, clamps);
      fit(t, TimePoint.FETCH_REQUEST, null, TimePoint.FETCH_RESPONSE, clamps);
    }
    boolean append = known[TimePoint.APPEND.ordinal()];
    if (append) {
      fit(t, TimePoint.APPEND, null, received, clamps);
    }
    if (known[TimePoint.COMMIT.ordinal()]) {
      fit(t, TimePoint.COMMIT, append ? TimePoint.APPEND : null, received, clamps);
    }
    if (known[TimePoint.SEND.ordinal()]) {
      TimePoint upper =
          append
              ? TimePoint.APPEND
              : known[TimePoint.COMMIT.ordinal()] ? TimePoint.COMMIT : received;
      fit(t, TimePoint.SEND, null, upper, clamps);
      if (known[TimePoint.ACK.ordinal()]) {
        // Section 10: an instrumented producer's A, without D; it gives way like S.
        fit(t, TimePoint.ACK, append ? TimePoint.APPEND : TimePoint.SEND, null, clamps);
      }
    }
  }

  private static boolean allKnown(boolean[] known, TimePoint[] points) {
    for (TimePoint point : points) {
      if (!known[point.ordinal()]) {
        return false;
      }
    }
    return true;
  }

  // v is V (section 9) or, without a transaction, H: the instant the record became readable.
  private static long segmentNanos(Segment segment, long[] t, long v) {
    long h = v;
    long f = at(t, TimePoint.FETCH_REQUEST);
    long r = at(t, TimePoint.FETCH_RESPONSE);
    switch (segment) {
      case PRODUCE:
        return at(t, TimePoint.DRAIN) - at(t, TimePoint.SEND);
      case PUBLISH:
        return at(t, TimePoint.APPEND) - at(t, TimePoint.DRAIN);
      case COMMIT:
        return h - at(t, TimePoint.APPEND);
      case CATCH_UP:
        // F - H may be negative (consumer waiting in long-poll) but fits: all instants lie within
        // the supported span, and F was only ever lowered to R.
        return Math.max(0, f - h) + (at(t, TimePoint.POLL) - r);
      case FETCH:
        return r - Math.max(f, h);
      default:
        throw new AssertionError(segment);
    }
  }

  // With V (section 9), commit's quality takes V's too, and catch-up's and fetch's V's for H's.
  private static EstimationMethod worstMethod(Instants instants, Segment segment, boolean visible) {
    EstimationMethod worst = null;
    for (TimePoint input : segment.inputs()) {
      EstimationMethod method =
          visible && input == TimePoint.COMMIT && segment != Segment.COMMIT
              ? instants.visibleMethod()
              : instants.method(input);
      // >= so that a tie goes to the later instant: inputs are in TimePoint order.
      if (worst == null || method.quality().ordinal() >= worst.quality().ordinal()) {
        worst = method;
      }
    }
    if (visible && segment == Segment.COMMIT) {
      EstimationMethod method = instants.visibleMethod();
      if (method.quality().ordinal() >= worst.quality().ordinal()) {
        worst = method;
      }
    }
    return worst;
  }

  // to - from when both are known, else -1.
  private static long span(long[] t, boolean[] known, TimePoint from, TimePoint to) {
    return known[from.ordinal()] && known[to.ordinal()] ? at(t, to) - at(t, from) : -1;
  }

  // Moves t[point] into [t[lower], t[upper]]; a null bound is open. Callers guarantee lower <=
  // upper, so at most one side applies.
  private static void fit(
      long[] t, TimePoint point, TimePoint lower, TimePoint upper, List<Clamp> clamps) {
    long value = at(t, point);
    TimePoint bound = null;
    if (lower != null && value < at(t, lower)) {
      bound = lower;
    } else if (upper != null && value > at(t, upper)) {
      bound = upper;
    }
    if (bound != null) {
      long target = at(t, bound);
      t[point.ordinal()] = target;
      clamps.add(new Clamp(point, bound, target - value));
    }
  }

  private static long at(long[] t, TimePoint point) {
    return t[point.ordinal()];
  }

  /**
   * Returns the duration of a segment, computed from the clamped instants.
   *
   * @param segment which segment, not null
   * @return the duration in nanoseconds, {@code >= 0}; or {@code -1} when the segment is not known
   *     (an instant it is computed from is not)
   */
  public long nanos(Segment segment) {
    return segmentNanos[segment.ordinal()];
  }

  /**
   * Returns the duration of a segment in seconds, the base unit of klat's metrics.
   *
   * @param segment which segment, not null
   * @return the duration in seconds, {@code >= 0}; or {@link Double#NaN} when the segment is not
   *     known
   */
  public double seconds(Segment segment) {
    long nanos = segmentNanos[segment.ordinal()];
    return nanos < 0 ? Double.NaN : nanos / 1e9;
  }

  /**
   * Returns whether a segment could be computed.
   *
   * @param segment which segment, not null
   * @return whether every instant the segment is computed from is known: false for {@link
   *     Segment#PUBLISH} and {@link Segment#COMMIT} when {@code L} is unknown, and for the segments
   *     of the side a tail record was not seen by
   */
  public boolean isKnown(Segment segment) {
    return segmentNanos[segment.ordinal()] >= 0;
  }

  /**
   * Returns publish and commit together, {@code H - D}, which is known even when {@code L} is not.
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when {@code D} or {@code H} is unknown
   *     (a tail record seen by one side only)
   */
  public long publishAndCommitNanos() {
    return publishAndCommitNanos;
  }

  /**
   * Returns produce and publish together, {@code L - S}, which a tail record flagged by its
   * consumer alone has even though {@code D} is unknown (section 8 of the latency model).
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when {@code S} or {@code L} is unknown
   */
  public long produceAndPublishNanos() {
    return has(TimePoint.SEND) && has(TimePoint.APPEND)
        ? clamped.nanos(TimePoint.APPEND) - clamped.nanos(TimePoint.SEND)
        : -1;
  }

  /**
   * Returns produce, publish and commit together, {@code H - S}: what a tail record flagged by its
   * consumer alone on a {@code CreateTime} topic has when no source knows its {@code L}.
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when {@code S} or {@code H} is unknown
   */
  public long producePublishAndCommitNanos() {
    return has(TimePoint.SEND) && has(TimePoint.COMMIT)
        ? readableNanos() - clamped.nanos(TimePoint.SEND)
        : -1;
  }

  /**
   * Returns catch-up and fetch together, {@code P - H} ({@code P - V} with a transaction): what a
   * consumer seen through an OpenTelemetry instrumentation has, whose {@code F} and {@code R} are
   * unknown (section 10 of the latency model).
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when {@code H} or {@code P} is
   *     unknown, or when catch-up and fetch are known apart
   */
  public long catchUpAndFetchNanos() {
    return has(TimePoint.COMMIT) && has(TimePoint.POLL) && !isKnown(Segment.FETCH)
        ? clamped.nanos(TimePoint.POLL) - readableNanos()
        : -1;
  }

  // V with a transaction (section 9), else H.
  private long readableNanos() {
    return clamped.hasVisible() ? clamped.visibleNanos() : clamped.nanos(TimePoint.COMMIT);
  }

  /**
   * Returns the replication part of commit, {@code H - L}: equal to commit without a transaction.
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when commit is not known
   */
  public long replicationNanos() {
    return isKnown(Segment.COMMIT) ? nanos(Segment.COMMIT) - transactionWaitNanos : -1;
  }

  /**
   * Returns the transaction part of commit, {@code V - H} (section 9 of the latency model): how
   * long the record, committed, waited for its transaction's marker before a {@code read_committed}
   * group could read it.
   *
   * @return the duration in nanoseconds, {@code >= 0}; 0 without {@code V} (a record without a
   *     transaction, or a {@code read_uncommitted} group)
   */
  public long transactionWaitNanos() {
    return transactionWaitNanos;
  }

  /**
   * Returns how {@code V} was obtained.
   *
   * @return its method; {@link EstimationMethod#UNKNOWN} without {@code V}
   */
  public EstimationMethod visibleMethod() {
    return clamped.visibleMethod();
  }

  /**
   * Returns whether {@code V} was moved into {@code [H, R]}.
   *
   * @return true when the given {@code V} was before {@code H} or after {@code R}
   */
  public boolean wasVisibleClamped() {
    return visibleClamped;
  }

  private boolean has(TimePoint point) {
    return clamped.has(point);
  }

  /**
   * Returns whether the end-to-end latency is known: false for a tail record that lacks {@code S}
   * or {@code P} (section 8 of the latency model).
   *
   * @return whether {@link #e2eNanos()} is a latency
   */
  public boolean isEndToEndKnown() {
    return e2eNanos >= 0;
  }

  /**
   * Returns the end-to-end latency {@code P - S}, from the clamped instants.
   *
   * @return the duration in nanoseconds, {@code >= 0}; or -1 when {@code S} or {@code P} is unknown
   *     ({@link #isEndToEndKnown()})
   */
  public long e2eNanos() {
    return e2eNanos;
  }

  /**
   * Returns the sum of the known segments and of the combined segments that stand for the unknown
   * ones: {@code produce + publish + commit + catch-up + fetch}, or with {@code publishAndCommit},
   * {@code produceAndPublish} or {@code producePublishAndCommit} in place of the segments around an
   * unknown {@code D} or {@code L} (see the class documentation). Equal to {@link #e2eNanos()} when
   * the end to end is known, and otherwise to the time from the first to the last known instant of
   * {@code S, D, L, H, P}; provided so that callers and tests can check the identity.
   *
   * @return the sum in nanoseconds
   */
  public long sumOfSegmentsNanos() {
    boolean send = has(TimePoint.SEND);
    boolean drain = has(TimePoint.DRAIN);
    boolean append = has(TimePoint.APPEND);
    boolean commit = has(TimePoint.COMMIT);
    long sum = 0;
    if (drain) {
      sum += nanos(Segment.PRODUCE);
      if (append) {
        sum += nanos(Segment.PUBLISH);
      } else if (commit) {
        sum += publishAndCommitNanos;
      }
    } else if (send && append) {
      sum += produceAndPublishNanos();
    } else if (send && commit) {
      sum += producePublishAndCommitNanos();
    }
    if (append && commit) {
      sum += nanos(Segment.COMMIT);
    }
    if (has(TimePoint.POLL)) {
      if (isKnown(Segment.FETCH)) {
        sum += nanos(Segment.CATCH_UP) + nanos(Segment.FETCH);
      } else if (commit) {
        sum += catchUpAndFetchNanos();
      } else {
        // Section 10 without H: P less the last known instant before it (with S alone, the end to
        // end is the only figure).
        TimePoint last =
            append ? TimePoint.APPEND : drain ? TimePoint.DRAIN : send ? TimePoint.SEND : null;
        if (last != null) {
          sum += clamped.nanos(TimePoint.POLL) - clamped.nanos(last);
        }
      }
    }
    return sum;
  }

  /**
   * Returns the quality of a segment: the worst quality of the instants it is computed from.
   *
   * @param segment which segment, not null
   * @return the quality; {@link Quality#NONE} when the segment is not known
   */
  public Quality quality(Segment segment) {
    return qualities[segment.ordinal()];
  }

  /**
   * Returns how a segment was obtained: the method of the instant that determines its {@linkplain
   * #quality(Segment) quality}, the latest in {@link TimePoint} order on a tie.
   *
   * @param segment which segment, not null
   * @return the method; {@link EstimationMethod#UNKNOWN} when the segment is not known
   */
  public EstimationMethod method(Segment segment) {
    return methods[segment.ordinal()];
  }

  /**
   * Returns the quality of the whole breakdown: the worst quality over the known segments.
   *
   * @return the quality, never null
   */
  public Quality quality() {
    return quality;
  }

  /**
   * Returns the clamped instants the segments were computed from.
   *
   * @return the clamped instants, with the methods of the input
   */
  public Instants instants() {
    return clamped;
  }

  /**
   * Returns the instants as given to {@link #compute(Instants)}, before clamping.
   *
   * @return the original instants
   */
  public Instants original() {
    return original;
  }

  /**
   * Returns every adjustment made to the instants, in the order they were made (the order of the
   * class documentation's list of bounds).
   *
   * @return an unmodifiable list, empty when the input was already ordered
   */
  public List<Clamp> clamps() {
    return clamps;
  }

  /**
   * Returns the number of adjustments made to the instants, the value the agent and the collector
   * count.
   *
   * @return the size of {@link #clamps()}, at most 7 since one instant never moves
   */
  public int clampCount() {
    return clamps.size();
  }

  /**
   * Returns whether an instant was moved.
   *
   * @param point which instant, not null
   * @return whether {@link #clamps()} holds a clamp of {@code point}
   */
  public boolean wasClamped(TimePoint point) {
    for (int i = 0; i < clamps.size(); i++) {
      if (clamps.get(i).point() == point) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the segments in nanoseconds with their quality, the clamps and the input, for example
   * {@code Breakdown{e2e=4700ns produce=1200 publish=? commit=? publish+commit=2900
   * catch-up=200(fetch-response-bound) fetch=400(fetch-response-bound) quality=estimated
   * clamps=[H<=R(-300ns)] input=Instants{...}}}; a segment that is not exact shows its method.
   *
   * @return a compact description for logs and test failures
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("Breakdown{e2e=");
    appendKnown(out, e2eNanos);
    out.append("ns");
    for (Segment segment : SEGMENTS) {
      out.append(' ').append(segment.id()).append('=');
      if (isKnown(segment)) {
        out.append(nanos(segment));
        if (quality(segment) != Quality.EXACT) {
          out.append('(').append(method(segment).id()).append(')');
        }
      } else {
        out.append('?');
      }
      if (segment == Segment.COMMIT && clamped.hasVisible()) {
        out.append(" transaction=").append(transactionWaitNanos);
      }
      if (segment == Segment.COMMIT) {
        out.append(" publish+commit=");
        appendKnown(out, publishAndCommitNanos);
        if (!has(TimePoint.DRAIN)) {
          out.append(" produce+publish=");
          appendKnown(out, produceAndPublishNanos());
        }
      }
    }
    return out.append(" quality=")
        .append(quality.id())
        .append(" clamps=")
        .append(clamps)
        .append(" input=")
        .append(original)
        .append('}')
        .toString();
  }

  private static void appendKnown(StringBuilder out, long nanos) {
    if (nanos < 0) {
      out.append('?');
    } else {
      out.append(nanos);
    }
  }
}

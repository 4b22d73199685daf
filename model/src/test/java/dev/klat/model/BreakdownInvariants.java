package dev.klat.model;

import static org.assertj.core.api.Assertions.fail;

import java.util.function.Supplier;

/**
 * The properties every breakdown must have, checked with exact arithmetic so that an overflow
 * inside {@link Breakdown#compute} shows up as a failure rather than as a wrapped value.
 */
final class BreakdownInvariants {

  private BreakdownInvariants() {}

  static void check(Breakdown b) {
    check(b, () -> "");
  }

  /** Fails with {@code context} (for example the seed) and the breakdown when a property breaks. */
  static void check(Breakdown b, Supplier<String> context) {
    Instants in = b.original();
    Instants out = b.instants();
    boolean appendKnown = in.has(TimePoint.APPEND);
    boolean ackKnown = in.has(TimePoint.ACK);

    long s = out.nanos(TimePoint.SEND);
    long d = out.nanos(TimePoint.DRAIN);
    long a = out.nanos(TimePoint.ACK);
    long l = out.nanos(TimePoint.APPEND);
    long h = out.nanos(TimePoint.COMMIT);
    long f = out.nanos(TimePoint.FETCH_REQUEST);
    long r = out.nanos(TimePoint.FETCH_RESPONSE);
    long p = out.nanos(TimePoint.POLL);

    // Ordering of the clamped instants.
    require(s <= d, "S <= D", b, context);
    require(d <= h, "D <= H", b, context);
    if (appendKnown) {
      require(d <= l && l <= h, "D <= L <= H", b, context);
    }
    require(h <= r, "H <= R", b, context);
    require(r <= p, "R <= P", b, context);
    require(f <= r, "F <= R", b, context);
    if (ackKnown) {
      require(d <= a, "D <= A", b, context);
      if (appendKnown) {
        require(l <= a, "L <= A", b, context);
      }
    }
    require(s == in.nanos(TimePoint.SEND), "S never moves", b, context);

    // Segments, recomputed independently with exact arithmetic.
    long produce = Math.subtractExact(d, s);
    long publishAndCommit = Math.subtractExact(h, d);
    long catchUp = Math.addExact(Math.max(0, Math.subtractExact(f, h)), Math.subtractExact(p, r));
    long fetch = Math.subtractExact(r, Math.max(f, h));
    long e2e = Math.subtractExact(p, s);
    require(b.nanos(Segment.PRODUCE) == produce, "produce = D - S", b, context);
    require(b.nanos(Segment.CATCH_UP) == catchUp, "catch-up formula", b, context);
    require(b.nanos(Segment.FETCH) == fetch, "fetch formula", b, context);
    require(b.publishAndCommitNanos() == publishAndCommit, "publishAndCommit = H - D", b, context);
    require(b.e2eNanos() == e2e, "e2e = P - S", b, context);
    long sum;
    if (appendKnown) {
      long publish = Math.subtractExact(l, d);
      long commit = Math.subtractExact(h, l);
      require(b.nanos(Segment.PUBLISH) == publish, "publish = L - D", b, context);
      require(b.nanos(Segment.COMMIT) == commit, "commit = H - L", b, context);
      sum = Math.addExact(Math.addExact(Math.addExact(produce, publish), commit), catchUp);
    } else {
      require(b.nanos(Segment.PUBLISH) == -1, "publish unknown is -1", b, context);
      require(b.nanos(Segment.COMMIT) == -1, "commit unknown is -1", b, context);
      require(!b.isKnown(Segment.PUBLISH) && !b.isKnown(Segment.COMMIT), "unknown", b, context);
      sum = Math.addExact(Math.addExact(produce, publishAndCommit), catchUp);
    }
    sum = Math.addExact(sum, fetch);
    require(sum == e2e, "segments sum to P - S", b, context);
    require(b.sumOfSegmentsNanos() == e2e, "sumOfSegmentsNanos() == e2eNanos()", b, context);
    for (Segment segment : Segment.values()) {
      if (b.isKnown(segment)) {
        require(b.nanos(segment) >= 0, "no negative segment: " + segment, b, context);
        require(
            b.quality(segment) == b.method(segment).quality(),
            "quality follows method: " + segment,
            b,
            context);
      } else {
        require(b.quality(segment) == Quality.NONE, "unknown has NONE", b, context);
        require(b.method(segment) == EstimationMethod.UNKNOWN, "unknown has UNKNOWN", b, context);
      }
    }
    require(publishAndCommit >= 0 && e2e >= 0, "no negative duration", b, context);

    // Every moved instant has exactly one clamp that explains the move, and nothing else moved.
    for (TimePoint point : TimePoint.values()) {
      require(in.has(point) == out.has(point), "presence kept: " + point, b, context);
      require(in.method(point) == out.method(point), "method kept: " + point, b, context);
      if (!in.has(point)) {
        continue;
      }
      Clamp clamp = null;
      for (Clamp c : b.clamps()) {
        if (c.point() == point) {
          require(clamp == null, "at most one clamp per instant: " + point, b, context);
          clamp = c;
        }
      }
      long before = in.nanos(point);
      long after = out.nanos(point);
      require(b.wasClamped(point) == (clamp != null), "wasClamped: " + point, b, context);
      if (clamp == null) {
        require(before == after, "unclamped instant unchanged: " + point, b, context);
      } else {
        require(clamp.adjustmentNanos() != 0, "clamp moves: " + point, b, context);
        require(
            Math.subtractExact(after, before) == clamp.adjustmentNanos(),
            "adjustment = clamped - original: " + point,
            b,
            context);
        require(after == out.nanos(clamp.bound()), "moved onto its bound: " + point, b, context);
      }
    }
    require(b.clampCount() == b.clamps().size(), "clampCount", b, context);
  }

  private static void require(
      boolean condition, String property, Breakdown b, Supplier<String> context) {
    if (!condition) {
      fail("violated: " + property + "\n" + context.get() + "\n" + b);
    }
  }
}

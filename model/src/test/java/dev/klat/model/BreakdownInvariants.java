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
    boolean drainKnown = in.has(TimePoint.DRAIN);

    // Ordering of the clamped instants, between every two that are known.
    TimePoint[] chain = {
      TimePoint.SEND,
      TimePoint.DRAIN,
      TimePoint.APPEND,
      TimePoint.COMMIT,
      TimePoint.FETCH_RESPONSE,
      TimePoint.POLL
    };
    for (int i = 0; i < chain.length; i++) {
      for (int j = i + 1; j < chain.length; j++) {
        if (out.has(chain[i]) && out.has(chain[j])) {
          require(
              out.nanos(chain[i]) <= out.nanos(chain[j]),
              chain[i].symbol() + " <= " + chain[j].symbol(),
              b,
              context);
        }
      }
    }
    orderedIfKnown(out, TimePoint.FETCH_REQUEST, TimePoint.FETCH_RESPONSE, b, context);
    orderedIfKnown(out, TimePoint.DRAIN, TimePoint.ACK, b, context);
    orderedIfKnown(out, TimePoint.APPEND, TimePoint.ACK, b, context);
    // The frame's origin never moves: S with the producer's instants, P without them.
    TimePoint origin = drainKnown ? TimePoint.SEND : TimePoint.POLL;
    require(out.nanos(origin) == in.nanos(origin), "the origin never moves", b, context);

    // Segments, recomputed independently with exact arithmetic.
    long s = out.nanos(TimePoint.SEND);
    long d = out.nanos(TimePoint.DRAIN);
    long l = out.nanos(TimePoint.APPEND);
    long h = out.nanos(TimePoint.COMMIT);
    long f = out.nanos(TimePoint.FETCH_REQUEST);
    long r = out.nanos(TimePoint.FETCH_RESPONSE);
    long p = out.nanos(TimePoint.POLL);
    boolean sk = out.has(TimePoint.SEND);
    boolean dk = out.has(TimePoint.DRAIN);
    boolean lk = out.has(TimePoint.APPEND);
    boolean hk = out.has(TimePoint.COMMIT);
    boolean pk = out.has(TimePoint.POLL);
    // Section 10: a consumer seen through an instrumentation has P without F and R.
    boolean rk = out.has(TimePoint.FETCH_RESPONSE);
    // Section 9: with V the record is readable at V, fitted into [H, R]; without it, at H.
    long v = out.hasVisible() ? out.visibleNanos() : h;
    if (out.hasVisible()) {
      require(in.hasVisible(), "V kept", b, context);
      require(h <= v && (!pk || v <= (rk ? r : p)), "H <= V <= R (P without R)", b, context);
      require(b.wasVisibleClamped() == (in.visibleNanos() != v), "wasVisibleClamped", b, context);
      require(out.visibleMethod() == in.visibleMethod(), "method of V kept", b, context);
    }
    require(
        b.transactionWaitNanos() == Math.subtractExact(v, h), "transaction = V - H", b, context);
    require(
        b.replicationNanos() == (lk && hk ? Math.subtractExact(h, l) : -1),
        "replication = H - L",
        b,
        context);
    h = v;
    segment(b, Segment.PRODUCE, sk && dk, sk && dk ? Math.subtractExact(d, s) : 0, context);
    segment(b, Segment.PUBLISH, dk && lk, dk && lk ? Math.subtractExact(l, d) : 0, context);
    segment(b, Segment.COMMIT, lk && hk, lk && hk ? Math.subtractExact(h, l) : 0, context);
    boolean fetchKnown = pk && rk;
    long catchUp =
        fetchKnown
            ? Math.addExact(Math.max(0, Math.subtractExact(f, h)), Math.subtractExact(p, r))
            : 0;
    long fetch = fetchKnown ? Math.subtractExact(r, Math.max(f, h)) : 0;
    segment(b, Segment.CATCH_UP, fetchKnown, catchUp, context);
    segment(b, Segment.FETCH, fetchKnown, fetch, context);
    long catchUpAndFetch = pk && !rk && hk ? Math.subtractExact(p, h) : -1;
    require(b.catchUpAndFetchNanos() == catchUpAndFetch, "catchUpAndFetch = P - V", b, context);
    long publishAndCommit = dk && hk ? Math.subtractExact(h, d) : -1;
    long produceAndPublish = sk && lk ? Math.subtractExact(l, s) : -1;
    long producePublishAndCommit = sk && hk ? Math.subtractExact(h, s) : -1;
    long e2e = sk && pk ? Math.subtractExact(p, s) : -1;
    require(b.publishAndCommitNanos() == publishAndCommit, "publishAndCommit = H - D", b, context);
    require(
        b.produceAndPublishNanos() == produceAndPublish, "produceAndPublish = L - S", b, context);
    require(
        b.producePublishAndCommitNanos() == producePublishAndCommit,
        "producePublishAndCommit = H - S",
        b,
        context);
    require(b.e2eNanos() == e2e, "e2e = P - S", b, context);
    require(b.isEndToEndKnown() == (sk && pk), "e2e known with S and P", b, context);

    // The identity: the known and combined segments add up, exactly, to the time from the first
    // to the last known instant of S, D, L, H, P.
    long sum = 0;
    if (dk) {
      sum = Math.addExact(sum, Math.subtractExact(d, s));
      if (lk) {
        sum = Math.addExact(sum, Math.subtractExact(l, d));
      } else if (hk) {
        sum = Math.addExact(sum, publishAndCommit);
      }
    } else if (sk && lk) {
      sum = Math.addExact(sum, produceAndPublish);
    } else if (sk && hk) {
      sum = Math.addExact(sum, producePublishAndCommit);
    }
    if (lk && hk) {
      sum = Math.addExact(sum, Math.subtractExact(h, l));
    }
    if (fetchKnown) {
      sum = Math.addExact(Math.addExact(sum, catchUp), fetch);
    } else if (pk && hk) {
      sum = Math.addExact(sum, catchUpAndFetch);
    } else if (pk && (lk || dk || sk)) {
      sum = Math.addExact(sum, Math.subtractExact(p, lk ? l : dk ? d : s));
    }
    TimePoint first = null;
    TimePoint last = null;
    for (TimePoint point :
        new TimePoint[] {
          TimePoint.SEND, TimePoint.DRAIN, TimePoint.APPEND, TimePoint.COMMIT, TimePoint.POLL
        }) {
      if (out.has(point)) {
        first = first == null ? point : first;
        last = point;
      }
    }
    long covered =
        Math.subtractExact(
            last == TimePoint.COMMIT ? h : out.nanos(last),
            first == TimePoint.COMMIT ? h : out.nanos(first));
    require(sum == covered, "segments sum to the covered time", b, context);
    if (e2e >= 0) {
      require(sum == e2e, "segments sum to P - S", b, context);
    }
    require(b.sumOfSegmentsNanos() == covered, "sumOfSegmentsNanos()", b, context);
    Quality worst = Quality.EXACT;
    for (Segment segment : Segment.values()) {
      if (b.isKnown(segment)) {
        require(b.nanos(segment) >= 0, "no negative segment: " + segment, b, context);
        require(
            b.quality(segment) == b.method(segment).quality(),
            "quality follows method: " + segment,
            b,
            context);
        worst = Quality.worst(worst, b.quality(segment));
      } else {
        require(b.nanos(segment) == -1, "unknown is -1: " + segment, b, context);
        require(b.quality(segment) == Quality.NONE, "unknown has NONE", b, context);
        require(b.method(segment) == EstimationMethod.UNKNOWN, "unknown has UNKNOWN", b, context);
      }
    }
    if (!dk && sk && (lk || hk)) {
      worst = Quality.worst(worst, out.method(TimePoint.SEND).quality());
    }
    if (!dk && sk && lk) {
      worst = Quality.worst(worst, out.method(TimePoint.APPEND).quality());
    }
    if (pk && !rk) {
      worst = Quality.worst(worst, out.method(TimePoint.POLL).quality());
    }
    require(b.quality() == worst, "overall quality is the worst entering", b, context);
    require(
        publishAndCommit >= -1
            && produceAndPublish >= -1
            && producePublishAndCommit >= -1
            && e2e >= -1,
        "no negative duration",
        b,
        context);

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

  private static void orderedIfKnown(
      Instants out, TimePoint earlier, TimePoint later, Breakdown b, Supplier<String> context) {
    if (out.has(earlier) && out.has(later)) {
      require(
          out.nanos(earlier) <= out.nanos(later),
          earlier.symbol() + " <= " + later.symbol(),
          b,
          context);
    }
  }

  private static void segment(
      Breakdown b, Segment segment, boolean known, long nanos, Supplier<String> context) {
    require(b.isKnown(segment) == known, "known: " + segment, b, context);
    if (known) {
      require(b.nanos(segment) == nanos, segment.id() + " formula", b, context);
    }
  }

  private static void require(
      boolean condition, String property, Breakdown b, Supplier<String> context) {
    if (!condition) {
      fail("violated: " + property + "\n" + context.get() + "\n" + b);
    }
  }
}

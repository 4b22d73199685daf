package dev.klat.collector.correlate.join;

import dev.klat.model.Capture;

/**
 * Brings the record spans of OpenTelemetry instrumentations into the join (section 10 of the
 * latency model): each {@link OtelRecordSpan} becomes a {@link ProducerSpan} or {@link
 * ConsumerSpan} with the capture {@link Capture#OPENTELEMETRY} and its client host's id as its
 * instance id, and joins on {@code (topic, partition, offset)} in the {@link Correlator}'s table
 * with klat's spans and other instrumentations' alike. A producer span without an offset waits in
 * {@link ProducerPlacements} until a consumer span names it as its parent or in a span link.
 *
 * <p>Where klat's agent and an instrumentation report the same side of a record (a JVM running both
 * agents: the same record's producer span, or the same group's consumer span), klat's span is used
 * and the instrumentation's is counted as superseded ({@link #side}); spans are joined as they
 * arrive, so an agent's span that arrives after the instrumentation's span of its side has joined
 * leaves that breakdown as it is, and is counted apart. Confined to the correlator's lock.
 */
final class InstrumentedJoin {

  /** Where a producer span goes once it has a record: the correlator's join. */
  interface ProducerOffer {
    void offer(ProducerSpan span, long source, long nowNanos);
  }

  /**
   * Where a consumer span goes: the correlator's join, which says whether its record has a producer
   * span.
   */
  interface ConsumerOffer {
    boolean offer(ConsumerSpan span, long source, long nowNanos);
  }

  /** What to do with a span that meets a span of its side (producer, or group) in its record. */
  enum Side {
    /** The same side from the same kind of reporter: a duplicate, ignored. */
    DUPLICATE,
    /** An instrumentation's span where klat's is there: ignored, counted as superseded. */
    SUPERSEDED,
    /** klat's span where an instrumentation's waits: it takes that span's place. */
    REPLACES,
    /** klat's span where the instrumentation's span of its side has joined: ignored, counted. */
    AFTER_INSTRUMENTED
  }

  private final ProducerPlacements placements;
  private long producerSpans;
  private long consumerSpans;
  private long duplicates;
  private long superseded;
  private long agentAfterInstrumented;
  private long unplaceable;
  private long joined;
  private long producerOnly;
  private long consumerOnly;

  InstrumentedJoin(ProducerPlacements placements) {
    this.placements = placements;
  }

  /**
   * Takes one span: a producer span with a record, or placed by a consumer span before, goes to
   * {@code producers} at once, one without waits for a consumer span to name it; a consumer span
   * first places the waiting producer spans it names, then goes to {@code consumers}.
   */
  void accept(
      OtelRecordSpan span,
      long source,
      long nowNanos,
      ProducerOffer producers,
      ConsumerOffer consumers) {
    if (span.role() == OtelRecordSpan.Role.PRODUCER) {
      producerSpans++;
      RecordKey key = span.key() != null ? span.key() : placements.placed(span);
      if (key != null) {
        producers.offer(producer(span, key), source, nowNanos);
      } else if (!placements.hold(span, source, nowNanos)) {
        duplicates++;
      }
      return;
    }
    consumerSpans++;
    RecordKey key = span.key();
    if (key == null || span.group() == null) {
      unplaceable++; // the receiver lets none through: a consumer span names its record
      return;
    }
    ProducerRefs refs = span.producers();
    for (int i = 0; i < refs.count(); i++) {
      ProducerPlacements.Held held =
          placements.take(refs.traceIdHigh(i), refs.traceIdLow(i), refs.spanId(i), key, nowNanos);
      if (held != null) {
        producers.offer(producer(held.span(), key), held.source(), nowNanos);
      }
    }
    if (!consumers.offer(consumer(span), source, nowNanos)) {
      // Its producer span may still come without an offset: what the consumer span names places
      // it then. A record whose producer span is there needs no such memory.
      for (int i = 0; i < refs.count(); i++) {
        placements.remember(refs.traceIdHigh(i), refs.traceIdLow(i), refs.spanId(i), key, nowNanos);
      }
    }
  }

  /** Ends the window of the producer spans that wait to be placed. */
  void expire(long nowNanos) {
    placements.expire(nowNanos);
  }

  /**
   * What a span does that meets {@code there}, a span of its side of the record (or of its group)
   * that is still waiting (or, with {@code joined}, has joined), and counts it.
   */
  Side side(boolean thereInstrumented, boolean arrivingInstrumented, boolean joined) {
    if (thereInstrumented == arrivingInstrumented) {
      if (arrivingInstrumented) {
        duplicates++;
      }
      return Side.DUPLICATE;
    }
    if (arrivingInstrumented) {
      superseded++;
      return Side.SUPERSEDED;
    }
    if (joined) {
      agentAfterInstrumented++;
      return Side.AFTER_INSTRUMENTED;
    }
    superseded++;
    return Side.REPLACES;
  }

  /** An instrumentation's producer span as the join's, with its record. */
  static ProducerSpan producer(OtelRecordSpan s, RecordKey key) {
    return new ProducerSpan(
        key,
        s.traceIdHigh(),
        s.traceIdLow(),
        s.spanId(),
        s.hostId(),
        s.startNanos(),
        Long.MIN_VALUE, // D: never known
        s.ackNanos(),
        -1,
        -1, // the leader: the probe's term that holds the offset answers
        s.clientId(),
        ProducerEvidence.UNKNOWN,
        Capture.OPENTELEMETRY,
        -1,
        s.parentSpanId(),
        null);
  }

  /** An instrumentation's consumer span as the join's. */
  static ConsumerSpan consumer(OtelRecordSpan s) {
    return new ConsumerSpan(
        s.key(),
        s.group(),
        s.traceIdHigh(),
        s.traceIdLow(),
        s.spanId(),
        s.parentSpanId(),
        s.hostId(),
        Long.MIN_VALUE, // F and R: never known
        Long.MIN_VALUE,
        s.startNanos(),
        -1,
        s.clientId(),
        ConsumerEvidence.UNKNOWN,
        false,
        0,
        -1,
        Capture.OPENTELEMETRY,
        -1);
  }

  /** Counts a breakdown of a joined pair with an instrumentation's span. */
  void joined() {
    joined++;
  }

  /** Counts a one-sided breakdown of an instrumentation's span alone at its window's end. */
  void aloneAtWindowEnd(boolean producerSide) {
    if (producerSide) {
      producerOnly++;
    } else {
      consumerOnly++;
    }
  }

  /**
   * The counts, with the breakdowns' and the join table's ({@code droppedSpans}: instrumentations'
   * spans of records evicted unjoined).
   */
  InstrumentedStats stats(InstrumentedBreakdowns breakdowns, long droppedSpans) {
    return new InstrumentedStats(
        producerSpans,
        consumerSpans,
        joined,
        producerOnly,
        consumerOnly,
        breakdowns.withoutBrokerData(),
        breakdowns.invalid(),
        duplicates,
        superseded,
        agentAfterInstrumented,
        placements.placedAfterWaiting(),
        placements.unplaced(),
        placements.evicted(),
        droppedSpans,
        unplaceable,
        placements.topicMismatches(),
        breakdowns.implausibleClockBounds(),
        placements.held(),
        placements.estimatedBytes());
  }

  long producerSpans() {
    return producerSpans;
  }

  long consumerSpans() {
    return consumerSpans;
  }

  long duplicates() {
    return duplicates;
  }

  long superseded() {
    return superseded;
  }

  long agentAfterInstrumented() {
    return agentAfterInstrumented;
  }

  long unplaceable() {
    return unplaceable;
  }

  ProducerPlacements placements() {
    return placements;
  }
}

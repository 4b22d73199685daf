package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.clock.CollectorSyncs;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.BrokerLookup;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TimePoint;

/**
 * Computes the breakdowns of records with a side seen through an OpenTelemetry instrumentation
 * (section 10 of the latency model), beside {@link PairBreakdowns} and {@link OneSidedBreakdowns}:
 * a joined pair of which either span is an instrumentation's, and an instrumentation's span left
 * alone at its window's end.
 *
 * <p>The instrumentation's side gives {@code S} (and {@code A} where its span ends at the
 * acknowledgement) or {@code P}, with the method {@code opentelemetry-span}; klat's side, if any,
 * gives all its instants. {@code L} and {@code H} come from the broker probe alone, by offset
 * ({@link BrokerInstants#probedAppend}); a klat consumer keeps its own bound {@code H <= R} without
 * them. No request-metric estimate, no ack bound: the spans carry no {@code acks}.
 *
 * <p>Clocks: an instrumented client takes part in no clock exchange, so its host (its own clock
 * domain, {@code otel-<host id>}) is placed against the leader's clock by the bounds its records
 * give and nothing else: {@code S <= L} and {@code L <= A} for a producer (both sides when its span
 * ends at the ack), {@code H <= P} for a consumer (one side only). {@link ClockOffsets} takes a
 * broker pair as it reads unless the bounds require a correction, moved no further than they
 * require. A pair's instants are on the producer's clock; the consumer's offset against it is the
 * sum of both offsets against the leader, bounded only when both are. A span alone is on its own
 * clock. Confined to the {@link Correlator}'s lock, whose clock state it shares.
 */
final class InstrumentedBreakdowns {
  private static final int MAX_CLIENT_HOSTS = 65_536;
  private static final EstimationMethod SPAN = EstimationMethod.OPENTELEMETRY_SPAN;

  private final HostNames agents;
  private final HostNames clients = new HostNames(MAX_CLIENT_HOSTS, "otel-");
  private final ClockOffsets offsets;
  private final CollectorSyncs collectorSyncs;
  private final BrokerInstants brokerInstants;
  private final long clockMaxStepNanos;
  private long withoutBrokerData;
  private long invalid;
  private long implausibleClockBounds;

  InstrumentedBreakdowns(
      HostNames agents,
      ClockOffsets offsets,
      CollectorSyncs collectorSyncs,
      BrokerInstants brokerInstants,
      long clockMaxStepNanos) {
    this.agents = agents;
    this.offsets = offsets;
    this.collectorSyncs = collectorSyncs;
    this.brokerInstants = brokerInstants;
    this.clockMaxStepNanos = clockMaxStepNanos;
  }

  /** The breakdown of a joined pair with an instrumentation's span, or null (counted invalid). */
  JoinedBreakdown pair(ProducerSpan p, ConsumerSpan c, long now) {
    String producerHost = domain(p.instrumented(), p.instanceId());
    String consumerHost = domain(c.instrumented(), c.instanceId());
    BrokerLookup record = new BrokerLookup(p, c, Long.MIN_VALUE);
    BrokerInstant append = brokerInstants.probedAppend(record);
    record.append(append);
    // The probe's instants are readings on the leader's clock: they need no offset to be found.
    BrokerInstant commit = append == null ? null : brokerInstants.probedCommit(record);
    String broker = append == null ? null : append.brokerHost();
    ClockOffset brokerOffset = null;
    ClockOffset consumerOffset;
    if (broker != null) {
      offsets.brokerDomain(broker);
      boundProducer(p, producerHost, append, now);
      boundConsumer(c, consumerHost, append, commit, now);
      brokerOffset = estimate(producerHost, broker, now);
      consumerOffset =
          viaBroker(producerHost, consumerHost, brokerOffset, estimate(broker, consumerHost, now));
    } else {
      consumerOffset =
          ClockOffset.zero(BrokerOffsets.nameOr(producerHost), BrokerOffsets.nameOr(consumerHost));
    }
    long brokerNanos = brokerOffset == null ? 0 : brokerOffset.offsetNanos();
    record.offsets(consumerOffset.offsetNanos(), host -> brokerNanos);
    if (commit == null && !c.instrumented()) {
      // klat's consumer bounds H by its own R (section 4), as without broker data.
      commit =
          BrokerInstant.onConsumer(
              c.fetchResponseNanos(), null, EstimationMethod.FETCH_RESPONSE_BOUND);
    }

    Instants.Builder b = Instants.builder();
    producerInstants(b, p);
    brokerInstants(b, record, append, commit);
    long consumerShift = consumerOffset.offsetNanos();
    if (c.instrumented()) {
      b.set(TimePoint.POLL, c.pollNanos() - consumerShift, SPAN);
    } else {
      b.fetchRequest(c.fetchRequestNanos() - consumerShift)
          .fetchResponse(c.fetchResponseNanos() - consumerShift)
          .poll(c.pollNanos() - consumerShift);
    }
    Breakdown breakdown = compute(b);
    if (breakdown == null) {
      return null;
    }
    ClockFlags flags = new ClockFlags(consumerOffset, brokerOffset, append, commit);
    boolean producerTrace = p.traceIdHigh() != 0 || p.traceIdLow() != 0;
    return new JoinedBreakdown(
        p.key(),
        c.group(),
        producerTrace ? p.traceIdHigh() : c.traceIdHigh(),
        producerTrace ? p.traceIdLow() : c.traceIdLow(),
        p.spanId(),
        c.spanId(),
        breakdown,
        consumerOffset,
        brokerOffset,
        flags.flagged(breakdown),
        flags.e2eFlagged(breakdown),
        p.leaderNodeId() >= 0 ? p.leaderNodeId() : brokerId(append),
        record.commitFollowerId(),
        record.requestQueueNanos(),
        record.requestLocalNanos(),
        p.evidence(),
        c.evidence(),
        p.tail() || c.tail() ? Capture.TAIL : Capture.OPENTELEMETRY);
  }

  /**
   * The breakdown of an instrumentation's producer span (with its record) that no group joined, on
   * its own clock: produce+publish and commit, or null without the probe's {@code L} (counted).
   */
  JoinedBreakdown producerOnly(ProducerSpan p, long now) {
    String host = domain(true, p.instanceId());
    BrokerLookup record = BrokerLookup.producerOnly(p);
    BrokerInstant append = brokerInstants.probedAppend(record);
    if (append == null) {
      withoutBrokerData++;
      return null;
    }
    record.append(append);
    BrokerInstant commit = brokerInstants.probedCommit(record);
    offsets.brokerDomain(append.brokerHost());
    boundProducer(p, host, append, now);
    ClockOffset brokerOffset = estimate(host, append.brokerHost(), now);
    record.offsets(0, h -> brokerOffset.offsetNanos());
    Instants.Builder b = Instants.builder();
    producerInstants(b, p);
    brokerInstants(b, record, append, commit);
    Breakdown breakdown = compute(b);
    if (breakdown == null) {
      return null;
    }
    return oneSided(
        p.key(),
        null,
        p.traceIdHigh(),
        p.traceIdLow(),
        p.spanId(),
        0,
        breakdown,
        host,
        brokerOffset,
        append,
        commit,
        record);
  }

  /**
   * The breakdown of an instrumentation's consumer span whose producer span did not come, on its
   * own clock: commit and catch-up+fetch (no end to end), or null without the probe's {@code L}
   * (counted).
   */
  JoinedBreakdown consumerOnly(ConsumerSpan c, long now) {
    String host = domain(true, c.instanceId());
    BrokerLookup record = BrokerLookup.consumerOnly(c);
    BrokerInstant append = brokerInstants.probedAppend(record);
    if (append == null) {
      withoutBrokerData++;
      return null;
    }
    record.append(append);
    BrokerInstant commit = brokerInstants.probedCommit(record);
    offsets.brokerDomain(append.brokerHost());
    boundConsumer(c, host, append, commit, now);
    ClockOffset brokerOffset = estimate(host, append.brokerHost(), now);
    record.offsets(0, h -> brokerOffset.offsetNanos());
    Instants.Builder b = Instants.builder().set(TimePoint.POLL, c.pollNanos(), SPAN);
    brokerInstants(b, record, append, commit);
    Breakdown breakdown = compute(b);
    if (breakdown == null) {
      return null;
    }
    return oneSided(
        c.key(),
        c.group(),
        c.traceIdHigh(),
        c.traceIdLow(),
        0,
        c.spanId(),
        breakdown,
        host,
        brokerOffset,
        append,
        commit,
        record);
  }

  // A one-sided record's breakdown on its own clock: no evidence, capture opentelemetry.
  private JoinedBreakdown oneSided(
      RecordKey key,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long producerSpanId,
      long consumerSpanId,
      Breakdown breakdown,
      String host,
      ClockOffset brokerOffset,
      BrokerInstant append,
      BrokerInstant commit,
      BrokerLookup record) {
    ClockOffset own = ownClock(host);
    ClockFlags flags = new ClockFlags(own, brokerOffset, append, commit);
    return new JoinedBreakdown(
        key,
        group,
        traceIdHigh,
        traceIdLow,
        producerSpanId,
        consumerSpanId,
        breakdown,
        own,
        brokerOffset,
        flags.flagged(breakdown),
        false,
        brokerId(append),
        record.commitFollowerId(),
        record.requestQueueNanos(),
        record.requestLocalNanos(),
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN,
        Capture.OPENTELEMETRY);
  }

  /** Spans alone at their window's end without the probe's data: no breakdown (only P, or S). */
  long withoutBrokerData() {
    return withoutBrokerData;
  }

  /** Instants that could not form a breakdown. */
  long invalid() {
    return invalid;
  }

  /** Records whose bound contradicted an agent's and a probe's own clock measurements. */
  long implausibleClockBounds() {
    return implausibleClockBounds;
  }

  // S (and A) as the instrumentation read them, or klat's S, D (and A).
  private static void producerInstants(Instants.Builder b, ProducerSpan p) {
    if (p.instrumented()) {
      b.set(TimePoint.SEND, p.sendNanos(), SPAN);
      if (p.hasAck()) {
        b.set(TimePoint.ACK, p.ackNanos(), SPAN);
      }
      return;
    }
    b.send(p.sendNanos()).drain(p.drainNanos());
    if (p.hasAck()) {
      b.ack(p.ackNanos());
    }
  }

  private static void brokerInstants(
      Instants.Builder b, BrokerLookup record, BrokerInstant append, BrokerInstant commit) {
    if (append != null) {
      b.append(record.onProducerClock(append), append.method());
    }
    if (commit != null) {
      b.commit(record.onProducerClock(commit), commit.method());
    }
  }

  // S <= L (klat's D <= L) and, with the span's end at the ack, L <= A; L's resolution widens both.
  private void boundProducer(ProducerSpan p, String host, BrokerInstant append, long now) {
    if (host == null) {
      return;
    }
    String broker = append.brokerHost();
    long half = append.resolutionNanos() / 2;
    long before = p.instrumented() ? p.sendNanos() : p.drainNanos();
    long upper = append.nanos() + half - before;
    long reverse = p.hasAck() ? p.ackNanos() - (append.nanos() - half) : Long.MAX_VALUE;
    collectorSyncs.bound(offsets, host, broker, now);
    if (!plausible(host, broker, upper, now)
        || (p.hasAck() && !plausible(broker, host, reverse, now))) {
      implausibleClockBounds++;
      return;
    }
    offsets.bound(host, broker, upper, now);
    if (p.hasAck()) {
      offsets.bound(broker, host, reverse, now);
    }
  }

  // H <= P for an instrumentation's consumer (H <= R for klat's): a bound on one side only.
  private void boundConsumer(
      ConsumerSpan c, String host, BrokerInstant append, BrokerInstant commit, long now) {
    if (host == null) {
      return;
    }
    BrokerInstant readable =
        commit != null && commit.clock() == BrokerInstant.Clock.BROKER ? commit : append;
    String broker = append.brokerHost();
    long after = c.instrumented() ? c.pollNanos() : c.fetchResponseNanos();
    long upper = after - (readable.nanos() - readable.resolutionNanos() / 2);
    collectorSyncs.bound(offsets, broker, host, now);
    if (!plausible(broker, host, upper, now)) {
      implausibleClockBounds++;
      return;
    }
    offsets.bound(broker, host, upper, now);
  }

  private boolean plausible(String from, String to, long upperNanos, long now) {
    return collectorSyncs.allows(from, to, upperNanos, now, clockMaxStepNanos);
  }

  private ClockOffset estimate(String from, String to, long now) {
    return from == null || to == null
        ? ClockOffset.zero(BrokerOffsets.nameOr(from), BrokerOffsets.nameOr(to))
        : offsets.estimate(from, to, now);
  }

  // clock(consumer) - clock(producer) = (clock(broker) - clock(producer)) + (clock(consumer) -
  // clock(broker)): bounded only where both are.
  private static ClockOffset viaBroker(
      String producerHost, String consumerHost, ClockOffset toBroker, ClockOffset fromBroker) {
    boolean bounded = toBroker.bounded() && fromBroker.bounded();
    return new ClockOffset(
        BrokerOffsets.nameOr(producerHost),
        BrokerOffsets.nameOr(consumerHost),
        toBroker.offsetNanos() + fromBroker.offsetNanos(),
        bounded
            ? toBroker.uncertaintyNanos() + fromBroker.uncertaintyNanos()
            : ClockOffset.UNBOUNDED,
        sum(toBroker.lowerNanos(), fromBroker.lowerNanos(), Long.MIN_VALUE),
        sum(toBroker.upperNanos(), fromBroker.upperNanos(), Long.MAX_VALUE));
  }

  // A sum of two bounds, open (the marker) when either is.
  private static long sum(long a, long b, long open) {
    if (a == open || b == open) {
      return open;
    }
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? open : s;
  }

  private String domain(boolean instrumented, long id) {
    return instrumented ? clients.name(id) : agents.name(id);
  }

  private Breakdown compute(Instants.Builder b) {
    try {
      return Breakdown.compute(b.build());
    } catch (IllegalArgumentException e) {
      invalid++;
      return null;
    }
  }

  // "broker-<id>" as the probe names its leader's clock domain.
  private static int brokerId(BrokerInstant append) {
    if (append == null || append.brokerHost() == null) {
      return -1;
    }
    try {
      return Integer.parseInt(append.brokerHost().substring(append.brokerHost().indexOf('-') + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }

  // The timeline's own clock against itself: an exact zero.
  private static ClockOffset ownClock(String host) {
    String name = BrokerOffsets.nameOr(host);
    return new ClockOffset(name, name, 0, 0, 0, 0);
  }
}

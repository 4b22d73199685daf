package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.clock.CollectorSyncs;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.BrokerLookup;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.Instants;
import dev.klat.model.TailTraceIds;

/**
 * Computes a joined pair's breakdown (sections 3 to 7 of the latency model): finds its broker
 * instants, bounds and estimates the clock offsets between the hosts the record passed through, and
 * puts every instant on the producer's clock. Confined to the {@link Correlator}'s lock, whose
 * clock state it shares.
 */
final class PairBreakdowns {
  private final HostNames hostNames;
  private final ClockOffsets offsets;
  private final CollectorSyncs collectorSyncs;
  private final BrokerInstants brokerInstants;
  private final long clockMaxStepNanos;
  private long implausibleClockBounds;

  PairBreakdowns(
      HostNames hostNames,
      ClockOffsets offsets,
      CollectorSyncs collectorSyncs,
      BrokerInstants brokerInstants,
      long clockMaxStepNanos) {
    this.hostNames = hostNames;
    this.offsets = offsets;
    this.collectorSyncs = collectorSyncs;
    this.brokerInstants = brokerInstants;
    this.clockMaxStepNanos = clockMaxStepNanos;
  }

  /** Records whose clock bounds contradicted their hosts' own clock measurements, not used. */
  long implausibleClockBounds() {
    return implausibleClockBounds;
  }

  /** The breakdown of a joined pair, or null when its instants cannot form one. */
  JoinedBreakdown compute(JoinTable.Entry entry, ProducerSpan p, ConsumerSpan c, long now) {
    String producerHost = hostNames.name(p.instanceId());
    String consumerHost = hostNames.name(c.instanceId());
    BrokerLookup record = new BrokerLookup(p, c, entry.waitedCommitNanos);
    BrokerInstant append = brokerInstants.append(record);
    record.append(append);

    // Section 5: every record bounds the offsets of the hosts it passed through. Record first,
    // then estimate, so that a pair's first record is already aligned by its own bounds.
    if (producerHost != null && consumerHost != null) {
      collectorSyncs.bound(offsets, producerHost, consumerHost, now);
    }
    boolean plausible =
        producerHost == null
            || consumerHost == null
            || plausible(producerHost, consumerHost, c.fetchResponseNanos() - p.drainNanos(), now);
    if (append != null && append.readOnBrokerClock() && producerHost != null && plausible) {
      plausible = boundBroker(append, p, c, producerHost, consumerHost, now);
    } else if (plausible && producerHost != null && consumerHost != null) {
      offsets.bound(producerHost, consumerHost, c.fetchResponseNanos() - p.drainNanos(), now);
    }
    if (!plausible) {
      implausibleClockBounds++;
    }
    ClockOffset consumerOffset =
        producerHost != null && consumerHost != null
            ? offsets.estimate(producerHost, consumerHost, now)
            : ClockOffset.zero(
                BrokerOffsets.nameOr(producerHost), BrokerOffsets.nameOr(consumerHost));
    BrokerOffsets brokerOffsets = new BrokerOffsets(offsets, producerHost, now);
    record.offsets(consumerOffset.offsetNanos(), brokerOffsets::offsetNanos);
    BrokerInstant commit = brokerInstants.commit(record);
    entry.waitedCommitNanos = record.waitedCommitNanos();

    Instants.Builder b =
        Instants.builder()
            .send(p.sendNanos())
            .drain(p.drainNanos())
            .fetchRequest(record.fetchRequestNanos())
            .fetchResponse(record.fetchResponseNanos())
            .poll(c.pollNanos() - consumerOffset.offsetNanos());
    if (p.hasAck()) {
      b.ack(p.ackNanos());
    }
    if (append != null) {
      b.append(record.onProducerClock(append), append.method());
    }
    b.commit(record.onProducerClock(commit), commit.method());
    BrokerInstant visible = brokerInstants.visible(record, commit);
    if (visible != null) {
      b.visible(record.onProducerClock(visible), visible.method());
    }
    Breakdown breakdown;
    try {
      breakdown = Breakdown.compute(b.build());
    } catch (IllegalArgumentException e) {
      return null;
    }

    ClockOffset brokerOffset = brokerOffsets.applied(append, commit);
    ClockFlags flags = new ClockFlags(consumerOffset, brokerOffset, append, commit);
    // The producer's trace id, unless it is absent or derived and the consumer's is real: a
    // sampled record's own trace id wins over one derived for a tail span (section 8).
    boolean producerTrace =
        hasTrace(p.traceIdHigh(), p.traceIdLow())
            && (!TailTraceIds.isDerived(p.traceIdHigh())
                || !hasTrace(c.traceIdHigh(), c.traceIdLow())
                || TailTraceIds.isDerived(c.traceIdHigh()));
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
        p.leaderNodeId(),
        record.commitFollowerId(),
        record.requestQueueNanos(),
        record.requestLocalNanos(),
        p.evidence(),
        c.evidence(),
        p.tail() || c.tail() ? Capture.TAIL : Capture.SAMPLED,
        ChainContext.of(p, c));
  }

  private static boolean hasTrace(long high, long low) {
    return high != 0 || low != 0;
  }

  // D <= L <= A on the producer's clock and L <= R on the consumer's, widened by L's resolution;
  // with R - D between producer and consumer. None is kept unless all are plausible.
  private boolean boundBroker(
      BrokerInstant append,
      ProducerSpan p,
      ConsumerSpan c,
      String producerHost,
      String consumerHost,
      long now) {
    String broker = append.brokerHost();
    long half = append.resolutionNanos() / 2;
    long earliest = append.nanos() - half;
    long latest = append.nanos() + half;
    offsets.brokerDomain(broker);
    collectorSyncs.bound(offsets, producerHost, broker, now);
    boolean consumerKnown = consumerHost != null;
    if (!plausible(producerHost, broker, latest - p.drainNanos(), now)
        || (p.hasAck() && !plausible(broker, producerHost, p.ackNanos() - earliest, now))
        || (consumerKnown
            && !plausible(broker, consumerHost, c.fetchResponseNanos() - earliest, now))) {
      return false;
    }
    if (consumerKnown) {
      offsets.bound(producerHost, consumerHost, c.fetchResponseNanos() - p.drainNanos(), now);
    }
    offsets.bound(producerHost, broker, latest - p.drainNanos(), now);
    if (p.hasAck()) {
      offsets.bound(broker, producerHost, p.ackNanos() - earliest, now);
    }
    if (consumerKnown) {
      offsets.bound(broker, consumerHost, c.fetchResponseNanos() - earliest, now);
    }
    return true;
  }

  // Whether a record's bound clock(to) - clock(from) <= upperNanos agrees, within clock.max-step,
  // with what both domains measured against the collector (true when either has not).
  private boolean plausible(String from, String to, long upperNanos, long now) {
    return collectorSyncs.allows(from, to, upperNanos, now, clockMaxStepNanos);
  }
}

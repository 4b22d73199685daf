package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.BrokerLookup;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TimePoint;
import java.util.Set;

/**
 * Computes the breakdown of a tail record seen by one side only (section 8 of the latency model),
 * beside {@link PairBreakdowns}: a producer tail span that no consumer group joined, or a consumer
 * tail span whose producer span never came. The broker instants come from the same {@link
 * BrokerInstants} chain, whose sources answer what they can without the missing side.
 *
 * <p>A producer-only breakdown is on the producer's clock: {@code S, D, A} and {@code L, H} where
 * known, no consumer instants, no group. A consumer-only breakdown is on the consumer's clock:
 * {@code F, R, P}, {@code L, H} placed with the broker's offset against the consumer where the
 * collector knows it, and on a {@code CreateTime} topic {@code S} from the record timestamp (method
 * {@code create-timestamp}: the producer host's clock, taken as the consumer's, since without the
 * producer's span klat cannot tell which host it was). One-sided records use the clock offsets but
 * add no bound to them: the bounds of section 5 come from records with both sides. Confined to the
 * {@link Correlator}'s lock, whose clock state it shares.
 */
final class OneSidedBreakdowns {
  private static final long MS = 1_000_000L;

  private final HostNames hostNames;
  private final ClockOffsets offsets;
  private final BrokerInstants brokerInstants;

  OneSidedBreakdowns(HostNames hostNames, ClockOffsets offsets, BrokerInstants brokerInstants) {
    this.hostNames = hostNames;
    this.offsets = offsets;
    this.brokerInstants = brokerInstants;
  }

  /** The breakdown of a producer tail span no group joined, or null when it cannot form one. */
  JoinedBreakdown producerOnly(ProducerSpan p, long now) {
    String host = hostNames.name(p.instanceId());
    BrokerLookup record = BrokerLookup.producerOnly(p);
    BrokerInstant append = brokerInstants.append(record);
    record.append(append);
    BrokerOffsets brokerOffsets = new BrokerOffsets(offsets, host, now);
    record.offsets(0, brokerOffsets::offsetNanos);
    BrokerInstant commit = brokerInstants.commit(record);

    Instants.Builder b = Instants.builder().send(p.sendNanos()).drain(p.drainNanos());
    if (p.hasAck()) {
      b.ack(p.ackNanos());
    }
    if (append != null) {
      b.append(record.onProducerClock(append), append.method());
    }
    if (commit != null) {
      b.commit(record.onProducerClock(commit), commit.method());
    }
    Breakdown breakdown = compute(b);
    if (breakdown == null) {
      return null;
    }
    ClockOffset own = ownClock(host);
    ClockOffset brokerOffset = brokerOffsets.applied(append, commit);
    ClockFlags flags = new ClockFlags(own, brokerOffset, append, commit);
    return new JoinedBreakdown(
        p.key(),
        null,
        p.traceIdHigh(),
        p.traceIdLow(),
        p.spanId(),
        0,
        breakdown,
        own,
        brokerOffset,
        flags.flagged(breakdown),
        false,
        p.leaderNodeId(),
        record.commitFollowerId(),
        record.requestQueueNanos(),
        record.requestLocalNanos(),
        p.evidence(),
        ConsumerEvidence.UNKNOWN,
        Capture.TAIL);
  }

  /**
   * The breakdown of a consumer tail span whose producer span did not come, or null when it cannot
   * form one.
   */
  JoinedBreakdown consumerOnly(ConsumerSpan c, long now) {
    String host = hostNames.name(c.instanceId());
    BrokerLookup record = BrokerLookup.consumerOnly(c);
    BrokerInstant append = brokerInstants.append(record);
    record.append(append);
    // The consumer's clock is the timeline: the broker's offset is taken against it.
    BrokerOffsets brokerOffsets = new BrokerOffsets(offsets, host, now);
    record.offsets(0, brokerOffsets::offsetNanos);
    BrokerInstant commit = brokerInstants.commit(record);

    Instants.Builder b =
        Instants.builder()
            .fetchRequest(c.fetchRequestNanos())
            .fetchResponse(c.fetchResponseNanos())
            .poll(c.pollNanos());
    boolean createTime = c.createTimeMs() >= 0;
    if (createTime) {
      // The producer truncates S to its millisecond: the middle halves the worst error.
      b.set(TimePoint.SEND, c.createTimeMs() * MS + MS / 2, EstimationMethod.CREATE_TIMESTAMP);
    }
    if (append != null) {
      b.append(record.onProducerClock(append), append.method());
    }
    b.commit(record.onProducerClock(commit), commit.method());
    Breakdown breakdown = compute(b);
    if (breakdown == null) {
      return null;
    }
    ClockOffset own = ownClock(host);
    ClockOffset brokerOffset = brokerOffsets.applied(append, commit);
    ClockFlags flags = new ClockFlags(own, brokerOffset, append, commit);
    Set<dev.klat.model.Segment> flagged = flags.flagged(breakdown);
    return new JoinedBreakdown(
        c.key(),
        c.group(),
        c.traceIdHigh(),
        c.traceIdLow(),
        0,
        c.spanId(),
        breakdown,
        own,
        brokerOffset,
        flagged,
        // S is on a clock no bound relates to the consumer's: the end to end's uncertainty is
        // unbounded, as section 5 flags it.
        breakdown.isEndToEndKnown(),
        record.leaderNodeId(),
        record.commitFollowerId(),
        record.requestQueueNanos(),
        record.requestLocalNanos(),
        ProducerEvidence.UNKNOWN,
        c.evidence(),
        Capture.TAIL);
  }

  private static Breakdown compute(Instants.Builder b) {
    try {
      return Breakdown.compute(b.build());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  // The timeline's own clock against itself: an exact zero.
  private static ClockOffset ownClock(String host) {
    String name = BrokerOffsets.nameOr(host);
    return new ClockOffset(name, name, 0, 0, 0, 0);
  }
}

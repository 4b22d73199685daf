package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.collector.correlate.instants.BrokerInstant.Clock;
import dev.klat.model.Breakdown;
import dev.klat.model.Segment;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which segments of one breakdown are smaller than the uncertainty of the clock offsets they depend
 * on (section 5 of the latency model), so that a reader does not trust them. Which clock each input
 * of a segment was read on decides which offsets its value depends on: a segment read on one clock
 * is exact whatever the offsets; one spanning clocks carries the uncertainty of each clock it
 * spans, relative to the producer's.
 */
final class ClockFlags {
  private final long consumerUncertaintyNanos;
  private final long brokerUncertaintyNanos;
  private final Clock appendClock;
  private final Clock commitClock;

  /**
   * @param consumerOffset the consumer's offset against the producer
   * @param brokerOffset the broker's offset against the producer, or null when no broker source
   *     placed an instant
   * @param append {@code L}, or null when unknown
   * @param commit {@code H}, or null when unknown (a producer-only tail record, section 8)
   */
  ClockFlags(
      ClockOffset consumerOffset,
      ClockOffset brokerOffset,
      BrokerInstant append,
      BrokerInstant commit) {
    this.consumerUncertaintyNanos = uncertainty(consumerOffset, 0);
    this.brokerUncertaintyNanos =
        brokerOffset == null
            ? 0
            : uncertainty(brokerOffset, append == null ? 0 : append.resolutionNanos() / 2);
    // Without L, publish and commit are unknown and the clock of L enters no segment.
    this.appendClock = append == null ? Clock.BROKER : append.clock();
    this.commitClock = commit == null ? Clock.BROKER : commit.clock();
  }

  /** The known segments of {@code breakdown} smaller than their uncertainty. */
  Set<Segment> flagged(Breakdown breakdown) {
    Set<Segment> flagged = EnumSet.noneOf(Segment.class);
    for (Segment segment : Segment.values()) {
      if (!breakdown.isKnown(segment)) {
        continue;
      }
      long u = segmentUncertainty(segment);
      if (u == ClockOffset.UNBOUNDED || u > breakdown.nanos(segment)) {
        flagged.add(segment);
      }
    }
    return flagged;
  }

  /** Whether the end-to-end latency, {@code P - S} across two clocks, is below its uncertainty. */
  boolean e2eFlagged(Breakdown breakdown) {
    if (!breakdown.isEndToEndKnown()) {
      return false;
    }
    return consumerUncertaintyNanos == ClockOffset.UNBOUNDED
        || consumerUncertaintyNanos > breakdown.e2eNanos();
  }

  private static long uncertainty(ClockOffset offset, long extraNanos) {
    return offset.bounded() ? offset.uncertaintyNanos() + extraNanos : ClockOffset.UNBOUNDED;
  }

  private long segmentUncertainty(Segment segment) {
    Clock[] clocks =
        switch (segment) {
          case PRODUCE -> new Clock[] {Clock.PRODUCER, Clock.PRODUCER};
          case PUBLISH -> new Clock[] {Clock.PRODUCER, appendClock};
          case COMMIT -> new Clock[] {appendClock, commitClock};
          case CATCH_UP, FETCH -> new Clock[] {commitClock, Clock.CONSUMER};
        };
    if (clocks[0] == clocks[1]) {
      return 0;
    }
    long total = 0;
    for (Clock clock : clocks) {
      long u =
          switch (clock) {
            case PRODUCER -> 0;
            case CONSUMER -> consumerUncertaintyNanos;
            case BROKER -> brokerUncertaintyNanos;
          };
      if (u == ClockOffset.UNBOUNDED) {
        return ClockOffset.UNBOUNDED;
      }
      total += u;
    }
    return total;
  }
}

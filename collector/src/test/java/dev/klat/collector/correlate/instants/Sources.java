package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/** Asks hand-picked {@link BrokerInstantSource}s about one record, with every clock aligned. */
final class Sources {
  private Sources() {}

  /**
   * What the sources, best first and without the bounds that close a real chain, say of {@code L}
   * and {@code H}; each instant null when none knows it.
   */
  record Found(BrokerInstant append, BrokerInstant commit) {
    static final Found NONE = new Found(null, null);

    boolean producerClock() {
      return append.clock() == BrokerInstant.Clock.PRODUCER;
    }

    String brokerHost() {
      return append.brokerHost();
    }

    long appendNanos() {
      return append.nanos();
    }

    EstimationMethod appendMethod() {
      return append.method();
    }

    boolean hasCommit() {
      return commit != null;
    }

    long commitNanos() {
      return commit.nanos();
    }

    EstimationMethod commitMethod() {
      return commit.method();
    }
  }

  static Found lookup(ProducerSpan p, ConsumerSpan c, BrokerInstantSource... bestFirst) {
    BrokerLookup record = record(p, c);
    BrokerInstant append = append(record, bestFirst, 0);
    record.append(append);
    return new Found(append, commit(record, bestFirst, 0));
  }

  /** A record whose clocks all read alike, as the correlator would pass it. */
  static BrokerLookup record(ProducerSpan p, ConsumerSpan c) {
    BrokerLookup record = new BrokerLookup(p, c, Long.MIN_VALUE);
    record.offsets(0, host -> 0);
    return record;
  }

  static Supplier<BrokerInstant> nothing() {
    return () -> null;
  }

  private static BrokerInstant append(BrokerLookup r, BrokerInstantSource[] sources, int i) {
    return i == sources.length ? null : sources[i].append(r, () -> append(r, sources, i + 1));
  }

  private static BrokerInstant commit(BrokerLookup r, BrokerInstantSource[] sources, int i) {
    return i == sources.length ? null : sources[i].commit(r, () -> commit(r, sources, i + 1));
  }
}

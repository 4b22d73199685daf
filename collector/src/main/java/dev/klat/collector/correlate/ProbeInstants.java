package dev.klat.collector.correlate;

import dev.klat.model.EstimationMethod;

/**
 * {@code L} and {@code H} from the broker probe of the record's leader (section 4 of the latency
 * model, quality {@code exact}), where it covers the record's offset; the estimate otherwise. An
 * offset the probe saw appended but not yet committed keeps the probe's {@code L} and takes the
 * estimate's commit, moved to start at that {@code L}: the estimate's own split of the time from
 * append to commit, its method saying so. Not thread-safe: confined to the {@link Correlator}'s
 * lock.
 */
final class ProbeInstants implements BrokerInstants {

  /** A probe that reported within this long is alive, and worth waiting for. */
  static final long PROBE_ALIVE_NANOS = 5_000_000_000L;

  private final ProbeTimelines probes;
  private final BrokerInstants estimates;

  ProbeInstants(ProbeTimelines probes, BrokerInstants estimates) {
    this.probes = probes;
    this.estimates = estimates;
  }

  @Override
  public Times lookup(ProducerSpan producer, ConsumerSpan consumer) {
    Times estimate = estimates.lookup(producer, consumer);
    RecordKey key = producer.key();
    ProbeTimelines.Instants probed =
        probes.lookup(key.topic(), key.partition(), key.offset(), producer.leaderNodeId());
    if (!probed.hasAppend()) {
      return estimate;
    }
    long append = probed.appendNanos();
    long commit = Long.MIN_VALUE;
    EstimationMethod commitMethod = EstimationMethod.UNKNOWN;
    long commitBeforeAck = Long.MIN_VALUE;
    if (probed.hasCommit()) {
      // With the leader alone in the ISR, the append itself advances the high watermark, a few
      // microseconds before the append hook reads its clock: commit is then 0, as it is.
      commit = Math.max(append, probed.commitNanos());
      commitMethod = EstimationMethod.BROKER_PROBE;
    } else if (estimate.commitFromAck()) {
      commitBeforeAck = estimate.commitBeforeAckNanos();
      commitMethod = estimate.commitMethod();
    } else if (estimate.hasAppend() && estimate.commitNanos() != Long.MIN_VALUE) {
      commit = append + Math.max(0, estimate.commitNanos() - estimate.appendNanos());
      commitMethod = estimate.commitMethod();
    }
    return new Times(
        "broker-" + probed.brokerId(),
        append,
        probed.appendWidthNanos(),
        EstimationMethod.BROKER_PROBE,
        commit,
        commitMethod,
        false,
        commitBeforeAck);
  }

  /**
   * Waits while the record's leader has a live probe (one that reported in the last {@value
   * #PROBE_ALIVE_NANOS} ns) that has not yet reported up to the record's fetch response {@code R}:
   * the record's append and commit, both before {@code R}, may be in its next export.
   */
  @Override
  public boolean awaitingData(ProducerSpan producer, ConsumerSpan consumer, long nowNanos) {
    int leader = producer.leaderNodeId();
    if (leader < 0) {
      return false;
    }
    long covered = probes.coveredUntilNanos(leader, nowNanos - PROBE_ALIVE_NANOS);
    if (covered == Long.MIN_VALUE || covered >= consumer.fetchResponseNanos()) {
      return false;
    }
    RecordKey key = producer.key();
    ProbeTimelines.Instants probed =
        probes.lookup(key.topic(), key.partition(), key.offset(), leader);
    return !probed.hasAppend() || !probed.hasCommit();
  }

  @Override
  public long fetchResponseNanos(int leader, long epochNanos) {
    return estimates.fetchResponseNanos(leader, epochNanos);
  }
}

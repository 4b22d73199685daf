package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code L} and {@code H} from the broker probe of the record's leader (section 4 of the latency
 * model, quality {@code exact}), where its reports cover the record's offset in the leader's
 * current term. An offset the probe saw appended but not yet committed keeps the probe's {@code L}
 * and leaves {@code H} to the worse sources, which place it from that {@code L}. Not thread-safe:
 * confined to the {@link Correlator}'s lock.
 */
final class ProbeSource implements BrokerInstantSource {

  private final ProbeTimelines probes;
  // L and H are asked for separately: the lookup of the record asked about last.
  private BrokerLookup memoRecord;
  private ProbeTimelines.Instants memo;

  ProbeSource(ProbeTimelines probes) {
    this.probes = probes;
  }

  @Override
  public BrokerInstant append(BrokerLookup record, Supplier<BrokerInstant> worse) {
    ProbeTimelines.Instants probed = probed(record);
    if (!probed.hasAppend()) {
      return worse.get();
    }
    // Only with the probe's L: its request is the one that appended the record.
    record.requestNanos(probed.requestQueueNanos(), probed.requestLocalNanos());
    record.probedLeaderId(probed.brokerId());
    return BrokerInstant.onBroker(
        probed.appendNanos(),
        "broker-" + probed.brokerId(),
        probed.appendWidthNanos(),
        EstimationMethod.BROKER_PROBE);
  }

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    ProbeTimelines.Instants probed = probed(record);
    BrokerInstant append = record.append();
    if (!probed.hasCommit() || append == null || append.method() != EstimationMethod.BROKER_PROBE) {
      return worse.get();
    }
    record.commitFollowerId(probed.commitFollowerId());
    // With the leader alone in the ISR the append itself advances the high watermark, a few
    // microseconds before the append hook reads its clock: commit is then 0, as it is.
    return BrokerInstant.onBroker(
        Math.max(append.nanos(), probed.commitNanos()),
        append.brokerHost(),
        0,
        EstimationMethod.BROKER_PROBE);
  }

  /**
   * Waits while the record's leader has a live probe (one that reported in the last {@link
   * ProbeTimelines#PROBE_ALIVE_NANOS}) that has not yet reported up to the record's fetch response
   * {@code R}: the record's append and commit, both before {@code R}, may be in its next export;
   * and so may {@code V} of a transactional record read by a {@code read_committed} group. A pair
   * with an instrumentation's span knows neither the leader nor {@code R}: it waits while any probe
   * is alive and the record's append or commit is not yet known.
   */
  @Override
  public boolean awaitingData(ProducerSpan producer, ConsumerSpan consumer, long nowNanos) {
    int leader = producer.leaderNodeId();
    if (leader < 0) {
      // An instrumentation's pair (section 10 of the latency model) names no leader and no fetch
      // response: while a probe is alive and the latest term that holds the offset has not reported
      // the record's append and commit, the pair waits (at most the join's longest broker-data
      // wait). Otherwise a record consumed within a probe's export interval gets no L or H.
      if (!producer.instrumented() && !consumer.instrumented()) {
        return false;
      }
      RecordKey key = producer.key();
      ProbeTimelines.Instants probed =
          probes.lookup(key.topic(), key.partition(), key.offset(), -1);
      return probes.liveBrokers(nowNanos) > 0 && (!probed.hasAppend() || !probed.hasCommit());
    }
    long covered = probes.coveredUntilNanos(leader, nowNanos - ProbeTimelines.PROBE_ALIVE_NANOS);
    if (covered == Long.MIN_VALUE || covered >= consumer.fetchResponseNanos()) {
      return false;
    }
    RecordKey key = producer.key();
    ProbeTimelines.Instants probed =
        probes.lookup(key.topic(), key.partition(), key.offset(), leader);
    // Section 9: a transactional record read_committed waits for V too, before R like the others.
    boolean needsVisible = producer.transaction().transactional() && consumer.readCommitted();
    return !probed.hasAppend() || !probed.hasCommit() || (needsVisible && !probed.hasVisible());
  }

  private ProbeTimelines.Instants probed(BrokerLookup record) {
    if (record != memoRecord) {
      RecordKey key = record.key();
      // A consumer-only record has no leader id: the latest term that holds the offset answers.
      memo = probes.lookup(key.topic(), key.partition(), key.offset(), record.leaderNodeId());
      memoRecord = record;
    }
    return memo;
  }
}

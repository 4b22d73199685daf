package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.model.EstimationMethod;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the broker instants {@code L} and {@code H} of a record come from: {@link
 * BrokerInstantSource}s asked in order of quality, best first, each instant separately (section 4
 * of the latency model). Every chain ends with the bounds that need no broker data, {@link
 * AckBound} ({@code H <= A}, {@code acks=all}) and {@link FetchResponseBound} ({@code H <= R}), so
 * {@code H} always has a value; {@code L} may stay unknown. The {@link Correlator} aligns, flags
 * and clamps whatever the sources return.
 *
 * <p>The broker probe ({@code broker-probe}, exact) is the first source where it runs: {@link
 * #probeFirst}.
 *
 * <p>Not thread-safe (sources keep windows): confined to the correlator's lock.
 */
public final class BrokerInstants {
  private final List<BrokerInstantSource> sources;
  // Section 10: the sources of a record seen through an OpenTelemetry instrumentation, whose spans
  // carry no acks, timestamp type or fetch evidence: the probe, and H = L without a follower.
  private List<BrokerInstantSource> probeOnly = List.of();
  // Section 9: the probes' last stable offsets, null without a probe.
  private ProbeTimelines probes;

  private BrokerInstants(List<BrokerInstantSource> bestFirst) {
    List<BrokerInstantSource> all = new ArrayList<>(bestFirst);
    all.add(new AckBound());
    all.add(new FetchResponseBound());
    this.sources = List.copyOf(all);
  }

  /**
   * The sources, best first; the two bounds are appended.
   *
   * @param bestFirst the sources in order of quality, best first
   */
  static BrokerInstants of(List<BrokerInstantSource> bestFirst) {
    return new BrokerInstants(bestFirst);
  }

  /**
   * {@code L} from the record timestamp of a {@code LogAppendTime} topic, the leader's clock at
   * millisecond resolution; {@code H} only bounded.
   *
   * @return the sources klat uses without broker data
   */
  public static BrokerInstants logAppendTime() {
    return of(List.of(new LogAppendTimeSource()));
  }

  /**
   * {@code L} from the record timestamp of a {@code LogAppendTime} topic, else estimated from the
   * leader broker's request metrics; {@code H} from a consumer fetch that waited for the record,
   * else from the request metrics, else bounded.
   *
   * @param timings the brokers' request timings
   * @param networkWindowNanos how long the smallest network round trip of a producer-leader path is
   *     remembered
   * @return the sources for a collector that reads broker metrics
   */
  public static BrokerInstants requestMetrics(BrokerTimings timings, long networkWindowNanos) {
    return requestMetrics(timings, Replicas.UNKNOWN, networkWindowNanos);
  }

  /**
   * As {@link #requestMetrics(BrokerTimings, long)}, and {@code H = L} on a partition with no
   * follower.
   *
   * @param timings the brokers' request timings
   * @param replicas the partitions' replica counts
   * @param networkWindowNanos how long the smallest network round trip of a producer-leader path is
   *     remembered
   * @return the sources for a collector that reads broker metrics and the cluster's metadata
   */
  public static BrokerInstants requestMetrics(
      BrokerTimings timings, Replicas replicas, long networkWindowNanos) {
    return of(standardSources(timings, replicas, networkWindowNanos));
  }

  /**
   * The sources of {@link #requestMetrics}, best first, before the bounds: for a caller that puts a
   * better one (a broker probe) in front.
   */
  static List<BrokerInstantSource> standardSources(
      BrokerTimings timings, Replicas replicas, long networkWindowNanos) {
    return List.of(
        new LogAppendTimeSource(),
        // H = L is exact given L: before the estimates of H, which would find a replication.
        new NoFollowerSource(replicas),
        new ConsumerFetchWait(timings),
        new RequestMetricsEstimates(timings, networkWindowNanos));
  }

  /**
   * {@code L} and {@code H} from the broker probes where they cover the record ({@code exact}),
   * else as {@link #requestMetrics(BrokerTimings, Replicas, long)}.
   *
   * @param probes what the broker probes reported
   * @param timings the brokers' request timings
   * @param replicas the partitions' replica counts
   * @param networkWindowNanos how long the smallest network round trip of a producer-leader path is
   *     remembered
   * @return the sources for a collector that receives broker probe data
   */
  public static BrokerInstants probeFirst(
      ProbeTimelines probes, BrokerTimings timings, Replicas replicas, long networkWindowNanos) {
    ProbeSource probe = new ProbeSource(probes);
    List<BrokerInstantSource> sources = new ArrayList<>();
    sources.add(probe);
    sources.addAll(standardSources(timings, replicas, networkWindowNanos));
    BrokerInstants instants = of(sources);
    instants.probes = probes;
    instants.probeOnly = List.of(probe, new NoFollowerSource(replicas));
    return instants;
  }

  /**
   * {@code L} of a record with a side seen through an OpenTelemetry instrumentation (section 10 of
   * the latency model): from the broker probe alone, found by offset (the leader's term when the
   * producer said which broker answered, else the latest term that holds the offset); null without
   * the probe's data. The estimates and bounds of section 4 need instants and settings such spans
   * do not carry, so none applies.
   */
  public BrokerInstant probedAppend(BrokerLookup record) {
    return probed(0, record, true);
  }

  /**
   * {@code H} of such a record, given the {@code L} set on it: the probe's, or {@code L} itself on
   * a partition without a follower; null otherwise.
   */
  public BrokerInstant probedCommit(BrokerLookup record) {
    return probed(0, record, false);
  }

  private BrokerInstant probed(int index, BrokerLookup record, boolean append) {
    if (index == probeOnly.size()) {
      return null;
    }
    BrokerInstantSource source = probeOnly.get(index);
    return append
        ? source.append(record, () -> probed(index + 1, record, true))
        : source.commit(record, () -> probed(index + 1, record, false));
  }

  /**
   * {@code V} of a record written in a transaction and read by a {@code read_committed} group
   * (section 9 of the latency model), best first: the leader's probe, where it saw the last stable
   * offset pass the offset (exact; {@code V = H} where it reports no lag there); else the
   * producer's {@code C} ({@code transaction-commit}, which the breakdown fits into {@code [H,
   * R]}); else the bound {@code V <= R}. Null when the record needs no {@code V}: not
   * transactional, a {@code read_uncommitted} group (or an agent that does not say), or no
   * consumer.
   *
   * @param commit the record's {@code H} as chosen
   */
  public BrokerInstant visible(BrokerLookup record, BrokerInstant commit) {
    ProducerSpan producer = record.producer();
    ConsumerSpan consumer = record.consumer();
    if (producer == null
        || consumer == null
        || !producer.transaction().transactional()
        || !consumer.readCommitted()) {
      return null;
    }
    if (probes != null) {
      RecordKey key = record.key();
      ProbeTimelines.Instants probed =
          probes.lookup(key.topic(), key.partition(), key.offset(), record.leaderNodeId());
      if (probed.hasVisible()) {
        // The probe's H may have been moved up to its L (the leader alone in the ISR): V follows.
        boolean sameClock =
            commit != null
                && commit.method() == EstimationMethod.BROKER_PROBE
                && commit.clock() == BrokerInstant.Clock.BROKER;
        return BrokerInstant.onBroker(
            sameClock ? Math.max(commit.nanos(), probed.visibleNanos()) : probed.visibleNanos(),
            "broker-" + probed.brokerId(),
            probed.visibleWidthNanos(),
            EstimationMethod.BROKER_PROBE);
      }
    }
    if (producer.transaction().hasCommit()) {
      return BrokerInstant.onProducer(
          producer.transaction().commitNanos(), null, EstimationMethod.TRANSACTION_COMMIT);
    }
    return BrokerInstant.onConsumer(
        consumer.fetchResponseNanos(), null, EstimationMethod.FETCH_RESPONSE_BOUND);
  }

  /**
   * Whether a source expects data about the record that has not arrived yet, so that its breakdown
   * is better computed a little later.
   */
  public boolean awaitingData(ProducerSpan producer, ConsumerSpan consumer, long nowNanos) {
    for (BrokerInstantSource source : sources) {
      if (source.awaitingData(producer, consumer, nowNanos)) {
        return true;
      }
    }
    return false;
  }

  /** {@code L} of the record, or null when no source knows it. */
  public BrokerInstant append(BrokerLookup record) {
    return append(0, record);
  }

  /**
   * {@code H} of the record, given the {@code L} set on it; never null when a consumer read the
   * record, null for a producer-only tail record that no source places.
   */
  public BrokerInstant commit(BrokerLookup record) {
    return commit(0, record);
  }

  private BrokerInstant append(int index, BrokerLookup record) {
    if (index == sources.size()) {
      return null;
    }
    return sources.get(index).append(record, () -> append(index + 1, record));
  }

  private BrokerInstant commit(int index, BrokerLookup record) {
    if (index == sources.size()) {
      return null; // not reached: the last source always answers
    }
    return sources.get(index).commit(record, () -> commit(index + 1, record));
  }
}

package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.clock.WindowedMinimum;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EstimationMethod;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Estimates {@code L} and {@code H} of a record from the leader broker's request metrics, following
 * section 4 of the latency model.
 *
 * <p>The record's produce round trip {@code A - D} is exact. The leader's Produce metrics of that
 * moment say how its mean request divides into queue and append ({@code RequestQueueTimeMs +
 * LocalTimeMs}, before {@code L}), the wait for the in-sync replicas ({@code RemoteTimeMs}, from
 * {@code L} to {@code H} with {@code acks=all}) and the response ({@code ResponseQueueTimeMs +
 * ResponseSendTimeMs}). What the broker did not see is network. That residual has two parts: the
 * path's steady round trip, taken as the smallest residual of the producer-leader path over a
 * window (the way NTP trusts its fastest exchange), and this record's own deviation from the
 * broker's means. The steady part is split evenly between the two directions. The deviation goes
 * where such deviations come from: with {@code acks=all}, into the replica wait, which varies the
 * most; with {@code acks=1}, into the network, half each way. A record faster than the means takes
 * its shortfall from the replica wait first, then from the queue and append.
 *
 * <p>With {@code acks=all} the replica wait taken as the mean is the leader's quietest interval
 * mean {@code RemoteTimeMs} over the window, not the mean of the record's own interval: one slow
 * replica fetch raises an interval's mean for every request in it, a quick request of that interval
 * then left a residual below the path's true network, and the floor kept it for its whole window
 * (the accuracy suite saw a 100 ms path taken for about 20 ms).
 *
 * <p>With {@code acks=1} the produce response says nothing about replication, so {@code H - L} is
 * taken from the leader's follower fetch metrics: a follower's fetch waiting at the leader is
 * answered on the append, and the next fetch, which carries the follower's new position, moves the
 * high watermark; the leader sees both fetches' queue, local and response times, not the network
 * between brokers nor the follower's own append. That unseen part is learnt from the same leader's
 * {@code acks=all} records, whose produce response waited for the replication: per record, the
 * replica wait less the follower fetch turnaround of that moment. Their median over the window is
 * added to every {@code acks=1} record's turnaround (none without {@value
 * #MIN_UNSEEN_REPLICATION_SAMPLES} such records in the window): the typical replication, though not
 * this record's own deviation from it.
 *
 * <p>As a {@link BrokerInstantSource}: {@code L} on the producer's clock ({@code
 * produce-request-metrics}); {@code H} on the producer's clock with it, or, when a better source
 * gave {@code L}, placed from that {@code L} (or back from the ack with {@code acks=all}).
 *
 * <p>Only the partition leader's metrics are used: a broker quantile is never averaged or summed
 * across brokers. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
final class RequestMetricsEstimates implements BrokerInstantSource {

  private static final int MAX_PATHS = 10_000;

  /** Fewer {@code acks=all} records than this in the window teach nothing about replication. */
  static final int MIN_UNSEEN_REPLICATION_SAMPLES = 20;

  private final BrokerTimings timings;
  private final long networkWindowNanos;
  private final Map<Path, WindowedMinimum> networkFloors = new HashMap<>();
  private final Map<Integer, WindowedMinimum> quietReplicaWaits = new HashMap<>();
  private final Map<Integer, WindowedMedian> unseenReplications = new HashMap<>();
  // L and H are asked for separately, and an estimate learns from its record: computed once per
  // record, for the record asked about last.
  private BrokerLookup memoRecord;
  private Placed memo;

  RequestMetricsEstimates(BrokerTimings timings, long networkWindowNanos) {
    this.timings = timings;
    this.networkWindowNanos = networkWindowNanos;
  }

  /**
   * The estimate of one record, with what placing {@code H} from a better {@code L} needs.
   *
   * @param estimate {@code L} and {@code H} on the producer's clock
   * @param brokerHost the leader's clock domain
   * @param commitBeforeAckNanos with {@code acks=all} and an ack, how long before {@code A} the
   *     record was committed (the response's time and half the steady network), else {@link
   *     Long#MIN_VALUE}
   */
  record Placed(Estimate estimate, String brokerHost, long commitBeforeAckNanos) {}

  @Override
  public BrokerInstant append(BrokerLookup record, Supplier<BrokerInstant> worse) {
    Placed placed = placed(record);
    if (placed == null) {
      return worse.get();
    }
    return BrokerInstant.onProducer(
        placed.estimate().appendNanos,
        placed.brokerHost(),
        EstimationMethod.PRODUCE_REQUEST_METRICS);
  }

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    Placed placed = placed(record);
    BrokerInstant append = record.append();
    if (placed == null || append == null) {
      return worse.get();
    }
    Estimate estimate = placed.estimate();
    if (append.method() == EstimationMethod.PRODUCE_REQUEST_METRICS) {
      return estimate.commitNanos == Long.MIN_VALUE
          ? worse.get()
          : BrokerInstant.onProducer(
              estimate.commitNanos, placed.brokerHost(), estimate.commitMethod);
    }
    // L itself is known from a better source. With acks=all, H is placed back from the ack by the
    // response's time: what came between D and L (a request waiting unread behind another on the
    // same connection, say) then stays out of commit. Otherwise H keeps its distance from L.
    if (placed.commitBeforeAckNanos() != Long.MIN_VALUE) {
      return BrokerInstant.onProducer(
          record.producer().ackNanos() - placed.commitBeforeAckNanos(),
          placed.brokerHost(),
          estimate.commitMethod);
    }
    if (estimate.commitNanos == Long.MIN_VALUE) {
      return worse.get();
    }
    return append.shifted(estimate.commitNanos - estimate.appendNanos, estimate.commitMethod);
  }

  // Null without a producer span: the estimates split the producer's own round trip.
  private Placed placed(BrokerLookup record) {
    if (record != memoRecord) {
      memoRecord = record;
      memo = record.producer() == null ? null : lookup(record.producer());
    }
    return memo;
  }

  /**
   * Estimates {@code L} and {@code H} of one record and learns from it (network floor, quiet
   * replica wait, unseen replication).
   *
   * @return the estimate, or null when the leader or its Produce metrics are unknown
   */
  Placed lookup(ProducerSpan producer) {
    int leader = producer.leaderNodeId();
    if (leader < 0) {
      return null;
    }
    // A broker records a request's phases when it completes, so the interval holding the ack is
    // the one that counted this record's request.
    long at = producer.hasAck() ? producer.ackNanos() : producer.drainNanos();
    RequestTimings produce = timings.lookup(leader, Request.PRODUCE, at);
    if (produce == null) {
      return null;
    }
    RequestTimings follower = timings.lookup(leader, Request.FETCH_FOLLOWER, at);
    long quietReplicaWait = 0;
    if (producer.acksAll()) {
      WindowedMinimum waits = quietReplicaWait(leader);
      waits.add(produce.remoteNanos(), at);
      quietReplicaWait = waits.min(at);
    }
    long networkFloor = Long.MAX_VALUE;
    if (producer.hasAck()) {
      long residual =
          residualNanos(
              producer.ackNanos() - producer.drainNanos(),
              produce,
              producer.acksAll(),
              quietReplicaWait);
      WindowedMinimum floor = networkFloor(producer.instanceId(), leader);
      floor.add(residual, producer.drainNanos());
      networkFloor = floor.min(producer.drainNanos());
    }
    Estimate estimate =
        estimate(
            producer.drainNanos(),
            producer.hasAck() ? producer.ackNanos() : Long.MIN_VALUE,
            producer.acksAll(),
            produce,
            quietReplicaWait,
            producer.acksAll() ? null : follower,
            networkFloor);
    estimate = learnOrApplyUnseenReplication(producer, leader, at, follower, estimate);
    long beforeAck =
        producer.acksAll() && producer.hasAck()
            ? responseNanos(produce) + estimate.networkNanos / 2
            : Long.MIN_VALUE;
    return new Placed(estimate, "broker-" + leader, beforeAck);
  }

  private Estimate learnOrApplyUnseenReplication(
      ProducerSpan producer, int leader, long at, RequestTimings follower, Estimate estimate) {
    if (follower == null || estimate.commitNanos == Long.MIN_VALUE) {
      return estimate;
    }
    WindowedMedian unseen = unseenReplication(leader);
    long turnaround = followerLagNanos(follower);
    if (producer.acksAll()) {
      if (producer.hasAck()) {
        unseen.add((estimate.commitNanos - estimate.appendNanos) - turnaround, at);
      }
      return estimate;
    }
    long typical = unseen.median(at);
    if (typical <= 0) {
      return estimate;
    }
    return new Estimate(
        estimate.appendNanos,
        estimate.commitNanos + typical,
        estimate.commitMethod,
        estimate.networkNanos);
  }

  private WindowedMedian unseenReplication(int leader) {
    WindowedMedian unseen = unseenReplications.get(leader);
    if (unseen == null) {
      if (unseenReplications.size() >= MAX_PATHS) {
        unseenReplications.clear();
      }
      unseen = new WindowedMedian(networkWindowNanos, MIN_UNSEEN_REPLICATION_SAMPLES);
      unseenReplications.put(leader, unseen);
    }
    return unseen;
  }

  private static long responseNanos(RequestTimings t) {
    return t.throttleNanos() + t.responseQueueNanos() + t.responseSendNanos();
  }

  private WindowedMinimum quietReplicaWait(int leader) {
    WindowedMinimum waits = quietReplicaWaits.get(leader);
    if (waits == null) {
      if (quietReplicaWaits.size() >= MAX_PATHS) {
        quietReplicaWaits.clear();
      }
      waits = new WindowedMinimum(networkWindowNanos);
      quietReplicaWaits.put(leader, waits);
    }
    return waits;
  }

  private WindowedMinimum networkFloor(long producerInstance, int leader) {
    Path path = new Path(producerInstance, leader);
    WindowedMinimum floor = networkFloors.get(path);
    if (floor == null) {
      if (networkFloors.size() >= MAX_PATHS) {
        networkFloors.clear();
      }
      floor = new WindowedMinimum(networkWindowNanos);
      networkFloors.put(path, floor);
    }
    return floor;
  }

  // What the broker's means leave of the round trip: network, and with acks=all this record's
  // deviation from the quiet replica wait. The mean RemoteTimeMs is never used: an acks=1 request
  // waits for no replica (the mean on a leader that also serves acks=all producers is theirs).
  private static long residualNanos(
      long roundTripNanos, RequestTimings t, boolean acksAll, long quietReplicaWaitNanos) {
    return roundTripNanos
        - t.requestQueueNanos()
        - t.localNanos()
        - t.throttleNanos()
        - t.responseQueueNanos()
        - t.responseSendNanos()
        - (acksAll ? quietReplicaWaitNanos : 0);
  }

  /**
   * {@code L} and {@code H} on the producer's clock ({@code H} is MIN_VALUE when unknown), and the
   * steady network round trip the split assumed (0 without an ack).
   */
  record Estimate(
      long appendNanos, long commitNanos, EstimationMethod commitMethod, long networkNanos) {}

  /**
   * The estimate for one record, on the producer's clock.
   *
   * @param drainNanos {@code D}
   * @param ackNanos {@code A}, or {@link Long#MIN_VALUE} when the producer saw no response
   * @param acksAll whether the producer used {@code acks=all}
   * @param produce the leader's Produce timings around {@code D}
   * @param quietReplicaWaitNanos with {@code acks=all}, the replica wait of a request at the mean
   *     (the leader's quietest interval mean {@code RemoteTimeMs} in the window)
   * @param follower the leader's FetchFollower timings around {@code D}, or null
   * @param networkFloorNanos the smallest network residual of this producer-leader path in the
   *     window, or {@link Long#MAX_VALUE} when unknown
   */
  static Estimate estimate(
      long drainNanos,
      long ackNanos,
      boolean acksAll,
      RequestTimings produce,
      long quietReplicaWaitNanos,
      RequestTimings follower,
      long networkFloorNanos) {
    long beforeAppend = produce.requestQueueNanos() + produce.localNanos();
    long remote = produce.remoteNanos();
    long replication = follower == null ? Long.MIN_VALUE : followerLagNanos(follower);
    if (ackNanos == Long.MIN_VALUE) {
      long append = drainNanos + beforeAppend;
      return commit(append, acksAll, remote, replication, Long.MAX_VALUE, 0);
    }
    if (acksAll) {
      remote = quietReplicaWaitNanos;
    }
    long residual = residualNanos(ackNanos - drainNanos, produce, acksAll, quietReplicaWaitNanos);
    long network = Math.max(0, Math.min(networkFloorNanos, residual));
    long deviation = residual - network;
    long upstream = network / 2;
    if (acksAll) {
      remote += deviation;
    } else if (deviation > 0) {
      upstream += deviation / 2;
    } else {
      beforeAppend += deviation;
    }
    if (remote < 0) {
      beforeAppend += remote;
      remote = 0;
    }
    beforeAppend = Math.max(0, beforeAppend);
    long append = Math.min(ackNanos, drainNanos + upstream + beforeAppend);
    return commit(append, acksAll, remote, replication, ackNanos, network);
  }

  private static Estimate commit(
      long append, boolean acksAll, long remote, long replication, long ackNanos, long network) {
    if (acksAll) {
      // The leader answered only once the record was committed, so H <= A as well.
      return new Estimate(
          append,
          Math.min(ackNanos, append + remote),
          EstimationMethod.PRODUCE_REMOTE_TIME,
          network);
    }
    if (replication == Long.MIN_VALUE) {
      return new Estimate(append, Long.MIN_VALUE, EstimationMethod.UNKNOWN, network);
    }
    return new Estimate(
        append, append + replication, EstimationMethod.FOLLOWER_FETCH_METRICS, network);
  }

  // The fetch answered on the append (its response queue and send) and the next fetch, whose
  // handling moves the high watermark (its request queue and local time); the wait in purgatory
  // (RemoteTimeMs) is the follower idling before the append, not part of the lag.
  private static long followerLagNanos(RequestTimings follower) {
    return follower.responseQueueNanos()
        + follower.responseSendNanos()
        + follower.requestQueueNanos()
        + follower.localNanos();
  }

  private record Path(long producerInstance, int leader) {}
}

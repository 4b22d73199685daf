package dev.klat.collector.correlate.instants;

import java.util.Map;

/**
 * The brokers' own request timings ({@code kafka.network:type=RequestMetrics}), as the estimates of
 * section 4 of the latency model need them: for one broker and one request kind, the mean of each
 * phase of a request over a recent scrape interval. A broker quantile is never averaged or summed
 * across brokers, so every lookup names the one broker (the partition leader) it is for.
 */
public interface BrokerTimings {

  /** The request kinds whose timings klat reads. */
  enum Request {
    /** {@code request=Produce}. */
    PRODUCE,
    /** {@code request=FetchConsumer}. */
    FETCH_CONSUMER,
    /** {@code request=FetchFollower}. */
    FETCH_FOLLOWER
  }

  /** No broker timings at all: every lookup answers null. */
  BrokerTimings NONE = (nodeId, request, epochNanos) -> null;

  /**
   * Returns the mean timings of broker {@code nodeId}'s requests of one kind over the scrape
   * interval that contains {@code epochNanos} (the broker-clock-free wall time of the collector's
   * scrapes), or over the newest interval when {@code epochNanos} is later than the last scrape;
   * only intervals in which at least one request completed count. Called under the correlator's
   * lock: must not block and must not do I/O.
   *
   * @param nodeId the broker's node id
   * @param request the request kind
   * @param epochNanos when the request of interest happened, epoch nanoseconds
   * @return the timings, or null when the broker's metrics are missing, stale or unreachable
   */
  RequestTimings lookup(int nodeId, Request request, long epochNanos);

  /**
   * The partition counts of every broker whose last successful scrape had them, by node id: the
   * newest values, whatever their age (gauges, not intervals). Called by the diagnosis; must not
   * block and must not do I/O.
   */
  default Map<Integer, Partitions> partitions() {
    return Map.of();
  }

  /** Broker {@code nodeId}'s partition counts, or null when unknown. */
  default Partitions partitions(int nodeId) {
    return partitions().get(nodeId);
  }

  /**
   * A broker's partition counts ({@code kafka.server:type=ReplicaManager}), each -1 when the scrape
   * did not have it.
   *
   * @param leaders {@code LeaderCount}: the partitions it leads
   * @param partitions {@code PartitionCount}: the partitions it hosts, as leader or follower
   * @param underMinIsr {@code UnderMinIsrPartitionCount}: the partitions it leads whose ISR is
   *     smaller than {@code min.insync.replicas}
   */
  record Partitions(long leaders, long partitions, long underMinIsr) {
    /** No count known. */
    public static final Partitions UNKNOWN = new Partitions(-1, -1, -1);

    /** True when any count is known. */
    public boolean any() {
      return leaders >= 0 || partitions >= 0 || underMinIsr >= 0;
    }
  }

  /**
   * Broker {@code nodeId}'s ISR shrinks and expands (counted by the leader of the partition) since
   * {@code sinceEpochNanos}, from the counts of the scrapes kept, and its replica fetchers' largest
   * lag at the newest scrape; null when the broker is unknown or its newest scrape had none of
   * them. Called by the diagnosis; must not block and must not do I/O.
   */
  default Replication replication(int nodeId, long sinceEpochNanos) {
    return replication(sinceEpochNanos).get(nodeId);
  }

  /** {@link #replication(int, long)} of every broker that has an answer, by node id. */
  default Map<Integer, Replication> replication(long sinceEpochNanos) {
    return Map.of();
  }

  /**
   * A broker's replication health, as {@link #replication} answers it.
   *
   * @param isrShrinks ReplicaManager {@code IsrShrinksPerSec}: partitions it leads whose ISR lost a
   *     follower
   * @param isrExpands ReplicaManager {@code IsrExpandsPerSec}: partitions it leads whose ISR took a
   *     follower back
   * @param maxLagMessages ReplicaFetcherManager {@code MaxLag}: how many messages the partition it
   *     follows that lags most is behind its leader; -1 when unknown
   */
  record Replication(Changes isrShrinks, Changes isrExpands, long maxLagMessages) {}

  /**
   * How much a cumulative broker count went up since a moment.
   *
   * @param count the increase, or -1 when unknown (no scrape since the moment, or too few kept)
   * @param atLeast true when {@code count} is a lower bound: the scrapes kept start after the
   *     moment, or the broker restarted in between (what it counted between the last scrape before
   *     the restart and the restart is lost)
   */
  record Changes(long count, boolean atLeast) {
    /** Nothing known. */
    public static final Changes UNKNOWN = new Changes(-1, false);
  }

  /**
   * Mean time per phase of a request over one interval, in nanoseconds, as the broker measured it
   * (from the moment its network thread finished reading the request).
   *
   * @param requests how many requests completed in the interval (at least 1)
   * @param requestQueueNanos mean {@code RequestQueueTimeMs}
   * @param localNanos mean {@code LocalTimeMs}: for Produce, the leader's log append
   * @param remoteNanos mean {@code RemoteTimeMs}: for Produce with {@code acks=all}, the wait for
   *     the in-sync replicas; for fetches, the long-poll wait in purgatory
   * @param throttleNanos mean {@code ThrottleTimeMs}
   * @param responseQueueNanos mean {@code ResponseQueueTimeMs}
   * @param responseSendNanos mean {@code ResponseSendTimeMs}
   * @param totalNanos mean {@code TotalTimeMs}
   * @param intervalStartEpochNanos the start of the interval (the earlier scrape)
   * @param intervalEndEpochNanos the end of the interval (the later scrape)
   */
  record RequestTimings(
      long requests,
      long requestQueueNanos,
      long localNanos,
      long remoteNanos,
      long throttleNanos,
      long responseQueueNanos,
      long responseSendNanos,
      long totalNanos,
      long intervalStartEpochNanos,
      long intervalEndEpochNanos) {}
}

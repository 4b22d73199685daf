package dev.klat.collector.correlate;

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

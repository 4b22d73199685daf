package dev.klat.collector.correlate;

import dev.klat.model.EstimationMethod;

/**
 * Where the broker instants {@code L} and {@code H} of a record come from. Sources: the record
 * timestamp of a {@code LogAppendTime} topic ({@link #logAppendTime()}), and the leader broker's
 * request metrics ({@link #requestMetrics}), and the broker probe ({@link #probeFirst}). The {@link
 * Correlator} aligns and clamps whatever they return.
 */
public interface BrokerInstants {

  /**
   * Returns what is known of {@code L} and {@code H} for one joined record, on the leader broker's
   * clock, or {@link Times#NONE}. Called under the correlator's lock: must not block.
   *
   * @param producer the producer span
   * @param consumer the consumer span
   * @return the broker instants, never null
   */
  Times lookup(ProducerSpan producer, ConsumerSpan consumer);

  /**
   * Whether this source expects data for the record that has not arrived yet, so that the breakdown
   * is better computed a little later (a broker probe that is alive but has not yet reported the
   * record's moments). Called under the correlator's lock: must not block.
   *
   * @param producer the producer span
   * @param consumer the consumer span
   * @param nowNanos the correlator's monotonic clock
   * @return true to wait
   */
  default boolean awaitingData(ProducerSpan producer, ConsumerSpan consumer, long nowNanos) {
    return false;
  }

  /**
   * Returns how long broker {@code leader} took, on average around {@code epochNanos}, from
   * completing a consumer's fetch to having sent its response ({@code FetchConsumer} {@code
   * ThrottleTimeMs + ResponseQueueTimeMs + ResponseSendTimeMs}), or -1 when unknown. Called under
   * the correlator's lock: must not block.
   *
   * @param leader the broker's node id
   * @param epochNanos when the response was received
   * @return nanoseconds, or -1
   */
  default long fetchResponseNanos(int leader, long epochNanos) {
    return -1;
  }

  /**
   * Broker instants in epoch nanoseconds on the broker's clock.
   *
   * @param brokerHost the clock domain of the broker, for example {@code "broker-1"}, or null when
   *     no broker instant is known
   * @param appendNanos {@code L}, or {@link Long#MIN_VALUE} when unknown
   * @param appendResolutionNanos how coarse {@code L} is: the true instant lies in {@code
   *     [appendNanos - resolution/2, appendNanos + resolution/2]}
   * @param appendMethod how {@code L} was obtained
   * @param commitNanos {@code H}, or {@link Long#MIN_VALUE} when unknown (then the correlator uses
   *     the bound {@code H <= R})
   * @param commitMethod how {@code H} was obtained
   * @param producerClock true when both instants are on the producer's clock (estimated from the
   *     producer's own {@code D} and {@code A}), false when they are on the broker's clock
   * @param commitBeforeAckNanos when not {@link Long#MIN_VALUE}, {@code H} is this long before the
   *     producer's {@code A}, on the producer's clock, and {@code commitNanos} is ignored: with
   *     {@code acks=all} the leader answers as soon as the record is committed, so the time after
   *     {@code H} is the response alone
   */
  record Times(
      String brokerHost,
      long appendNanos,
      long appendResolutionNanos,
      EstimationMethod appendMethod,
      long commitNanos,
      EstimationMethod commitMethod,
      boolean producerClock,
      long commitBeforeAckNanos) {

    /** Nothing known about the broker instants. */
    public static final Times NONE =
        new Times(
            null,
            Long.MIN_VALUE,
            0,
            EstimationMethod.UNKNOWN,
            Long.MIN_VALUE,
            EstimationMethod.UNKNOWN,
            false,
            Long.MIN_VALUE);

    boolean hasAppend() {
      return appendNanos != Long.MIN_VALUE;
    }

    boolean hasCommit() {
      return commitNanos != Long.MIN_VALUE || commitBeforeAckNanos != Long.MIN_VALUE;
    }

    boolean commitFromAck() {
      return commitBeforeAckNanos != Long.MIN_VALUE;
    }
  }

  /**
   * {@code L} from the record timestamp of a {@code LogAppendTime} topic, the leader's clock at
   * millisecond resolution; {@code H} unknown.
   *
   * @return the source klat uses until broker data is collected
   */
  static BrokerInstants logAppendTime() {
    return (producer, consumer) -> {
      long ms =
          producer.logAppendTimeMs() >= 0 ? producer.logAppendTimeMs() : consumer.logAppendTimeMs();
      if (ms < 0) {
        return Times.NONE;
      }
      String broker =
          producer.leaderNodeId() >= 0 ? "broker-" + producer.leaderNodeId() : "broker-unknown";
      // The broker truncates to the millisecond: the true L lies in [ms, ms + 1 ms), so the middle
      // halves the worst error.
      return new Times(
          broker,
          ms * 1_000_000L + 500_000L,
          1_000_000L,
          EstimationMethod.LOG_APPEND_TIMESTAMP,
          Long.MIN_VALUE,
          EstimationMethod.UNKNOWN,
          false,
          Long.MIN_VALUE);
    };
  }

  /**
   * {@code L} and {@code H} estimated from the leader broker's request metrics (section 4 of the
   * latency model), with {@code L} taken from the record timestamp instead wherever the topic uses
   * {@code LogAppendTime}; {@link #logAppendTime()} alone where the leader's metrics are missing.
   *
   * @param timings the brokers' request timings
   * @param networkWindowNanos how long the smallest network round trip of a producer-leader path is
   *     remembered
   * @return the source for a collector that reads broker metrics
   */
  static BrokerInstants requestMetrics(BrokerTimings timings, long networkWindowNanos) {
    return new RequestMetricsEstimates(timings, networkWindowNanos);
  }

  /**
   * {@code L} and {@code H} from the broker probes where they cover the record ({@code exact}),
   * {@code estimates} otherwise.
   *
   * @param probes what the broker probes reported
   * @param estimates the source for brokers without a probe
   * @return the source for a collector that receives broker probe data
   */
  static BrokerInstants probeFirst(ProbeTimelines probes, BrokerInstants estimates) {
    return new ProbeInstants(probes, estimates);
  }
}

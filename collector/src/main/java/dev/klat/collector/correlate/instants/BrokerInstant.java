package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.Correlator;
import dev.klat.model.EstimationMethod;

/**
 * One broker instant of a record, {@code L} or {@code H}, as a {@link BrokerInstantSource} found
 * it: a reading in epoch nanoseconds on the clock it was read on, which the {@link Correlator}
 * places on the producer's timeline with the clock offsets of section 5.
 *
 * @param nanos the instant, epoch nanoseconds on {@code clock}
 * @param clock the host whose clock {@code nanos} is on
 * @param brokerHost the clock domain of the partition leader the instant is about ({@code
 *     "broker-<id>"}), or null for a bound read from the clients alone ({@code H <= A}, {@code H <=
 *     R}): a broker-clock instant is converted with this domain's offset
 * @param resolutionNanos how coarse the reading is: the true instant lies within half of it either
 *     side of {@code nanos} (1 ms for a {@code LogAppendTime} timestamp, 0 otherwise)
 * @param method how the instant was obtained, which sets its quality
 */
public record BrokerInstant(
    long nanos, Clock clock, String brokerHost, long resolutionNanos, EstimationMethod method) {

  /** The three kinds of clock a breakdown's instants are read on (section 5). */
  public enum Clock {
    PRODUCER,
    BROKER,
    CONSUMER
  }

  public static BrokerInstant onBroker(
      long nanos, String brokerHost, long resolutionNanos, EstimationMethod method) {
    return new BrokerInstant(nanos, Clock.BROKER, brokerHost, resolutionNanos, method);
  }

  public static BrokerInstant onProducer(long nanos, String brokerHost, EstimationMethod method) {
    return new BrokerInstant(nanos, Clock.PRODUCER, brokerHost, 0, method);
  }

  public static BrokerInstant onConsumer(long nanos, String brokerHost, EstimationMethod method) {
    return new BrokerInstant(nanos, Clock.CONSUMER, brokerHost, 0, method);
  }

  /**
   * Whether the instant was read on the broker's own clock rather than derived, so that it bounds
   * the broker's clock offset (section 5: {@code D <= L <= A}). An estimate placed from another
   * instant, even on the broker's clock, bounds nothing: its error would become the bound's.
   */
  public boolean readOnBrokerClock() {
    return clock == Clock.BROKER
        && method.quality().ordinal() <= dev.klat.model.Quality.LOG_APPEND_TIME.ordinal();
  }

  /**
   * The same reading moved by {@code deltaNanos}, with another method: an instant placed from it.
   */
  BrokerInstant shifted(long deltaNanos, EstimationMethod placedBy) {
    return new BrokerInstant(nanos + deltaNanos, clock, brokerHost, 0, placedBy);
  }
}

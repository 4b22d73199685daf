package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.collector.correlate.instants.BrokerInstant.Clock;

/**
 * The broker's clock offset of one join (section 5 of the latency model), estimated only when an
 * instant on the broker's clock needs it. Confined to the {@link Correlator}'s lock.
 */
final class BrokerOffsets {
  private final ClockOffsets offsets;
  private final String producerHost;
  private final long nowNanos;
  private ClockOffset estimated;

  /**
   * @param offsets the correlator's clock offset bounds
   * @param producerHost the producer's clock domain, or null when its instance is unknown
   * @param nowNanos the correlator's clock
   */
  BrokerOffsets(ClockOffsets offsets, String producerHost, long nowNanos) {
    this.offsets = offsets;
    this.producerHost = producerHost;
    this.nowNanos = nowNanos;
  }

  /** {@code clock(broker) - clock(producer)} as estimated now. */
  long offsetNanos(String brokerHost) {
    return estimate(brokerHost).offsetNanos();
  }

  /**
   * The offset the breakdown reports: the estimate when an instant was on the broker's clock, an
   * exact zero when the broker instants were all estimated on the producer's own clock (from its
   * {@code D} and {@code A}), null when no broker source placed either instant.
   */
  ClockOffset applied(BrokerInstant append, BrokerInstant commit) {
    for (BrokerInstant i : new BrokerInstant[] {append, commit}) {
      if (i != null && i.clock() == Clock.BROKER) {
        return estimate(i.brokerHost());
      }
    }
    for (BrokerInstant i : new BrokerInstant[] {append, commit}) {
      if (i != null && i.brokerHost() != null) {
        return new ClockOffset(nameOr(producerHost), i.brokerHost(), 0, 0, 0, 0);
      }
    }
    return null;
  }

  /** A clock domain's name, {@code unknown} for an instance the correlator could not name. */
  static String nameOr(String host) {
    return host == null ? "unknown" : host;
  }

  private ClockOffset estimate(String brokerHost) {
    if (estimated == null || !estimated.toHost().equals(brokerHost)) {
      estimated =
          producerHost != null
              ? offsets.estimate(producerHost, brokerHost, nowNanos)
              : ClockOffset.zero(nameOr(producerHost), brokerHost);
    }
    return estimated;
  }
}

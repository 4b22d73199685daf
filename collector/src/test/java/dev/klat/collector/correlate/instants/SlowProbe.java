package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import java.util.List;
import java.util.function.BooleanSupplier;

/** A broker probe, for tests of the join, that knows no instant but may be awaited. */
public final class SlowProbe {
  private SlowProbe() {}

  /**
   * Broker instants whose first source is a probe that awaits data about every record while {@code
   * awaiting} says so, and knows no instant; the bounds follow it.
   */
  public static BrokerInstants instants(BooleanSupplier awaiting) {
    BrokerInstantSource slowProbe =
        new BrokerInstantSource() {
          @Override
          public boolean awaitingData(ProducerSpan p, ConsumerSpan c, long now) {
            return awaiting.getAsBoolean();
          }
        };
    return BrokerInstants.of(List.of(slowProbe));
  }
}

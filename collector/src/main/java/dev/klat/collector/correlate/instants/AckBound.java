package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code H <= A} with {@code acks=all}: the leader answered only once the record was committed. A
 * tighter bound than {@code H <= R} (which would count the consumer's fetch wait as commit), so it
 * is reported as {@code H} when no broker source knows better and the ack came before {@code R}.
 */
final class AckBound implements BrokerInstantSource {

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    ProducerSpan p = record.producer();
    if (p == null) {
      return worse.get();
    }
    // Without a consumer (a producer-only tail record) there is no H <= R to compare with.
    if (p.acksAll()
        && p.hasAck()
        && (record.consumer() == null || p.ackNanos() < record.fetchResponseNanos())) {
      return BrokerInstant.onProducer(p.ackNanos(), null, EstimationMethod.ACK_BOUND);
    }
    return worse.get();
  }
}

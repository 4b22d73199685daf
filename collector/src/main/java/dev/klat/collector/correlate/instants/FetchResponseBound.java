package dev.klat.collector.correlate.instants;

import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code H <= R}: the record was committed before the response that carried it arrived. The last
 * source of every chain, so {@code H} always has a value; reported as the bound itself, which
 * leaves fetch at 0 and puts the consumer's wait into commit (quality says so).
 */
final class FetchResponseBound implements BrokerInstantSource {

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    return BrokerInstant.onConsumer(
        record.consumer().fetchResponseNanos(), null, EstimationMethod.FETCH_RESPONSE_BOUND);
  }
}

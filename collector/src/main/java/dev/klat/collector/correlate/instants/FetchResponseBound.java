package dev.klat.collector.correlate.instants;

import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code H <= R}: the record was committed before the response that carried it arrived. The last
 * source of every chain, so {@code H} always has a value when a consumer read the record; reported
 * as the bound itself, which leaves fetch at 0 and puts the consumer's wait into commit (quality
 * says so). A producer-only tail record has no {@code R}: null, {@code H} unknown.
 */
final class FetchResponseBound implements BrokerInstantSource {

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    if (record.consumer() == null) {
      return null;
    }
    return BrokerInstant.onConsumer(
        record.consumer().fetchResponseNanos(), null, EstimationMethod.FETCH_RESPONSE_BOUND);
  }
}

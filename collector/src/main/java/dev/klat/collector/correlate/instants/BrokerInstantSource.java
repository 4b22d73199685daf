package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import java.util.function.Supplier;

/**
 * One source of the broker instants of a record: {@code L} (the leader appended the batch) and
 * {@code H} (the high watermark passed the record), section 4 of the latency model.
 *
 * <p>{@link BrokerInstants} asks its sources in order of quality, best first, once for {@code L}
 * and once for {@code H}: a source answers an instant it knows and otherwise returns {@code
 * worse.get()}, what the sources after it say. So {@code L} and {@code H} of one record may come
 * from different sources (say {@code L} from a broker probe, {@code H} from the request metrics),
 * and a better source wins per instant. A source may also look at what the worse sources say before
 * answering (it then calls {@code worse.get()} first): {@link ConsumerFetchWait} takes the metric
 * estimate of {@code H} as evidence, and bounds it. A source that answers does not ask the worse
 * ones, which then neither see nor learn from that record.
 *
 * <p>Instants are returned on the clock they were read on; the {@link Correlator} aligns, bounds
 * the clocks, flags and clamps. Called under the correlator's lock: must answer from memory, never
 * block or do I/O, and never throw.
 */
interface BrokerInstantSource {

  /**
   * Returns {@code L} of the record, or {@code worse.get()} when this source does not know it.
   *
   * @param record the joined record
   * @param worse what the sources after this one say (null when none knows)
   * @return {@code L}, or null when no source knows it
   */
  default BrokerInstant append(BrokerLookup record, Supplier<BrokerInstant> worse) {
    return worse.get();
  }

  /**
   * Returns {@code H} of the record, or {@code worse.get()} when this source does not know it.
   * {@link BrokerLookup#append()} is the {@code L} already chosen.
   *
   * @param record the joined record
   * @param worse what the sources after this one say; never null when a consumer read the record,
   *     since the last source, {@link FetchResponseBound}, always answers
   * @return {@code H}; null only for a producer-only tail record no source places (section 8)
   */
  default BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    return worse.get();
  }

  /**
   * Whether this source expects data about the record that has not arrived yet, so that its
   * breakdown is better computed a little later (a broker probe that is alive but has not yet
   * reported the record's instants).
   *
   * @param producer the producer span
   * @param consumer the consumer span
   * @param nowNanos the correlator's monotonic clock
   * @return true to wait
   */
  default boolean awaitingData(ProducerSpan producer, ConsumerSpan consumer, long nowNanos) {
    return false;
  }
}

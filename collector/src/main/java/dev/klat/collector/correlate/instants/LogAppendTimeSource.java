package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code L} from the record timestamp of a topic with {@code message.timestamp.type=LogAppendTime}:
 * the leader's clock at millisecond resolution (quality {@code log-append-time}). Knows no {@code
 * H}.
 */
final class LogAppendTimeSource implements BrokerInstantSource {
  static final long RESOLUTION_NANOS = 1_000_000L;

  @Override
  public BrokerInstant append(BrokerLookup record, Supplier<BrokerInstant> worse) {
    ProducerSpan producer = record.producer();
    long ms =
        producer != null && producer.logAppendTimeMs() >= 0
            ? producer.logAppendTimeMs()
            : record.consumer() != null ? record.consumer().logAppendTimeMs() : -1;
    if (ms < 0) {
      return worse.get();
    }
    int leader = record.leaderNodeId();
    String broker = leader >= 0 ? "broker-" + leader : "broker-unknown";
    // The broker truncates to the millisecond: the true L lies in [ms, ms + 1 ms), so the middle
    // halves the worst error.
    return BrokerInstant.onBroker(
        ms * 1_000_000L + RESOLUTION_NANOS / 2,
        broker,
        RESOLUTION_NANOS,
        EstimationMethod.LOG_APPEND_TIMESTAMP);
  }
}

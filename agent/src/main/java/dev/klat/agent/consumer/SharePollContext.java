package dev.klat.agent.consumer;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The records {@code ShareCompletedFetch.parseRecord} built during the {@code
 * KafkaShareConsumer.poll()} running on this thread, each with the response that brought it. A
 * share consumer builds the records of a delivery on the polling thread, once: records a renewal
 * keeps are returned again by later polls without being built again, so a record here is a new
 * delivery, and its {@code P} is this poll's.
 */
final class SharePollContext {

  private static final ThreadLocal<SharePollContext> CURRENT =
      new ThreadLocal<SharePollContext>() {
        @Override
        protected SharePollContext initialValue() {
          return new SharePollContext();
        }
      };

  boolean polling;
  final List<ConsumerRecord<?, ?>> records = new ArrayList<ConsumerRecord<?, ?>>();
  final List<ShareFetchStamp> stamps = new ArrayList<ShareFetchStamp>();

  /** Where each record's end-to-end latency starts, epoch nanoseconds; filled at poll exit. */
  long[] startEpochNanos = new long[64];

  private SharePollContext() {}

  static SharePollContext get() {
    return CURRENT.get();
  }

  void note(ConsumerRecord<?, ?> record, ShareFetchStamp stamp) {
    records.add(record);
    stamps.add(stamp);
  }

  void clear() {
    records.clear();
    stamps.clear();
  }

  long[] starts(int count) {
    if (startEpochNanos.length < count) {
      startEpochNanos = new long[Math.max(count, startEpochNanos.length * 2)];
    }
    return startEpochNanos;
  }
}

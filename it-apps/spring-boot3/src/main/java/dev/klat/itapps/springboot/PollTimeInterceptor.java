package dev.klat.itapps.springboot;

import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Notes, on the polling thread, when {@code poll()} is about to return records: the poll time that
 * {@link PipelineListener} reports for each record, as the latency model's {@code P} is (a record
 * listener is called later, after the records before it in the same poll).
 */
public class PollTimeInterceptor implements ConsumerInterceptor<String, String> {
  private static final ThreadLocal<long[]> POLL_MICROS = ThreadLocal.withInitial(() -> new long[1]);

  /** The epoch microseconds of this thread's last poll that returned records. */
  static long lastPollMicros() {
    return POLL_MICROS.get()[0];
  }

  @Override
  public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
    if (!records.isEmpty()) {
      Instant now = Instant.now();
      POLL_MICROS.get()[0] = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
    return records;
  }

  @Override
  public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

  @Override
  public void close() {}

  @Override
  public void configure(Map<String, ?> configs) {}
}

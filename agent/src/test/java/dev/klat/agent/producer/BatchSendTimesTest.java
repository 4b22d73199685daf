package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.LatencyHistogram;
import dev.klat.agent.export.TimeSource;
import dev.klat.model.MetricDef;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch's send times live in a pooled array: the next batch reuses it, and counts stay right; the
 * producer's client id is read from its field when its state is created.
 */
class BatchSendTimesTest {

  private static final long MS = 1_000_000L;

  private long nowNanos;
  private final TimeSource clock =
      new TimeSource() {
        @Override
        public long epochNanos() {
          return 1_800_000_000_000_000_000L + nowNanos;
        }

        @Override
        public long nanoTime() {
          return nowNanos;
        }
      };
  private final FakeProducer producer = new FakeProducer();
  private final ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");
  private final Callback callback = (metadata, exception) -> {};
  private final Object future = new Object();
  private final TopicPartition partition = new TopicPartition("t", 0);

  /** The field the hook reads, as KafkaProducer has it, one class up as in a subclass. */
  private static class KafkaProducerFields extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "client";
  }

  private static final class FakeProducer extends KafkaProducerFields {}

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void aCompletedBatchGivesItsArrayToTheNextAndOnlyTheNextBatchsRecordsAreRecorded() {
    AgentRuntime runtime = TestRuntime.install(clock);
    TestStateHolder first = new TestStateHolder();
    nowNanos = 100 * MS;
    send(first, 40);
    long[] firstTimes = ((BatchTiming) first.klat$state()).sendNanos;
    nowNanos = 110 * MS;
    complete(first, 40);

    TestStateHolder second = new TestStateHolder();
    nowNanos = 200 * MS;
    send(second, 3);
    assertThat(((BatchTiming) second.klat$state()).sendNanos).isSameAs(firstTimes);
    nowNanos = 201 * MS;
    complete(second, 3);

    LatencyHistogram producerLatency =
        runtime.metrics().histogram(MetricDef.PRODUCER_LATENCY, "t", "client");
    // 40 records of 10 ms and 3 of 1 ms: the 37 stale entries behind the second batch's 3 count
    // for nothing.
    assertThat(producerLatency.count()).isEqualTo(43);
    assertThat(producerLatency.snapshot().sumSeconds()).isCloseTo(0.403, Offset.offset(1e-9));
    assertThat(((BatchTiming) second.klat$state()).sendNanos).isNull();
  }

  @Test
  void aSampledRecordKnowsWhenItReachedItsBatchAndOneThatNeverDidKnowsNothing() {
    TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    nowNanos = 100 * MS;
    // Sent, then failed before its append (no metadata in time, say).
    RecordTracker failed = (RecordTracker) ProducerHooks.onSend(producer, record, callback);
    nowNanos = 200 * MS;
    RecordTracker sampled = (RecordTracker) ProducerHooks.onSend(producer, record, callback);
    nowNanos = 203 * MS;
    ProducerHooks.onAppended(future, batch);

    assertThat(sampled.appendedNanos - sampled.sendNanos).isEqualTo(3 * MS);
    assertThat(failed.appendedNanos).isEqualTo(Long.MIN_VALUE);
  }

  private void send(TestStateHolder batch, int records) {
    for (int i = 0; i < records; i++) {
      Callback used = ProducerHooks.onSend(producer, record, callback);
      ProducerHooks.recordToSend(record, used);
      ProducerHooks.onAppended(future, batch);
      ProducerHooks.onSendReturn(future);
    }
  }

  private void complete(TestStateHolder batch, int records) {
    ProducerHooks.onDrained(batch);
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, records, partition);
    ProducerHooks.onCompletionEnd();
  }
}

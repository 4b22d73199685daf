package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.MetricDef;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
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
  private final Object future = new Object();

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
    int[] firstTimes = ((BatchTiming) first.klat$state()).sendOffsets;
    nowNanos = 110 * MS;
    complete(first, 40);

    TestStateHolder second = new TestStateHolder();
    nowNanos = 200 * MS;
    send(second, 3);
    assertThat(((BatchTiming) second.klat$state()).sendOffsets).isSameAs(firstTimes);
    nowNanos = 201 * MS;
    complete(second, 3);

    LatencyHistogram producerLatency =
        runtime.metrics().histogram(MetricDef.PRODUCER_LATENCY, "t", "client");
    // 40 records of 10 ms and 3 of 1 ms: the 37 stale entries behind the second batch's 3 count
    // for nothing.
    assertThat(producerLatency.count()).isEqualTo(43);
    assertThat(producerLatency.snapshot().sumSeconds()).isCloseTo(0.403, Offset.offset(1e-9));
    assertThat(((BatchTiming) second.klat$state()).sendOffsets).isNull();
  }

  @Test
  void sendTimesMoreThanAnIntOfNanosecondsApartKeepTheirLatenciesExact() {
    AgentRuntime runtime = TestRuntime.install(clock);
    TestStateHolder batch = new TestStateHolder();
    // A batch open for 5 s (a record a second to an unavailable leader), and a record whose send()
    // began 3 s before the batch's first (it waited for buffer memory): both beyond an int's
    // 2.147 s from the first S.
    long[] sendNanos = {10_000 * MS, 10_001 * MS, 15_000 * MS, 7_000 * MS, 15_002 * MS};
    for (long s : sendNanos) {
      nowNanos = s;
      ProducerHooks.onSend(producer, record);
      ProducerHooks.onAppended(future, batch);
      ProducerHooks.onSendReturn(future);
    }
    BatchTiming timing = (BatchTiming) batch.klat$state();
    assertThat(timing.sendOffsets).isNull();
    for (int i = 0; i < sendNanos.length; i++) {
      assertThat(timing.sendNanosAt(i)).isEqualTo(sendNanos[i]);
    }
    nowNanos = 16_000 * MS;
    ProducerHooks.onDrained(batch);
    nowNanos = 16_010 * MS;
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, sendNanos.length);

    LatencyHistogram producerLatency =
        runtime.metrics().histogram(MetricDef.PRODUCER_LATENCY, "t", "client");
    assertThat(producerLatency.count()).isEqualTo(5);
    // 6.01 + 6.009 + 1.01 + 9.01 + 1.008 s
    assertThat(producerLatency.snapshot().sumSeconds()).isCloseTo(23.047, Offset.offset(1e-9));
    LatencyHistogram produceLatency =
        runtime.metrics().histogram(MetricDef.PRODUCER_PRODUCE_LATENCY, "t", "client");
    assertThat(produceLatency.snapshot().sumSeconds()).isCloseTo(22.997, Offset.offset(1e-9));
    assertThat(timing.wideSendNanos).isNull();
    assertThat(timing.appended).isZero();
  }

  @Test
  void sendTimesWithinAnIntOfTheFirstStayOffsetsEvenBeforeIt() {
    TestRuntime.install(clock);
    TestStateHolder batch = new TestStateHolder();
    long[] sendNanos = {3_000 * MS, 3_000 * MS + 2_147_483_647L, 3_000 * MS - 2_147_483_648L};
    for (long s : sendNanos) {
      nowNanos = s;
      ProducerHooks.onSend(producer, record);
      ProducerHooks.onAppended(future, batch);
    }
    BatchTiming timing = (BatchTiming) batch.klat$state();
    assertThat(timing.wideSendNanos).isNull();
    for (int i = 0; i < sendNanos.length; i++) {
      assertThat(timing.sendNanosAt(i)).isEqualTo(sendNanos[i]);
    }
  }

  @Test
  void aSampledRecordKnowsWhenItReachedItsBatchAndOneThatNeverDidKnowsNothing() {
    TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    nowNanos = 100 * MS;
    // Sent, then failed before its append (no metadata in time, say).
    ProducerHooks.onSend(producer, record);
    RecordTracker failed = SendContext.current().sampled;
    nowNanos = 200 * MS;
    ProducerHooks.onSend(producer, record);
    RecordTracker sampled = SendContext.current().sampled;
    nowNanos = 203 * MS;
    ProducerHooks.onAppended(new CompletableFuture<RecordMetadata>(), batch);

    assertThat(sampled.appendedNanos - sampled.sendNanos).isEqualTo(3 * MS);
    assertThat(failed.appendedNanos).isEqualTo(Long.MIN_VALUE);
    assertThat(SendContext.current().sampled).isNull();
  }

  @Test
  void theSpanSplitsTheMetadataWaitKafkaMeasuredFromTheRestOfTheAppendWait() {
    AgentRuntime runtime = TestRuntime.install(1.0, 1000, clock);
    boolean hooked = ProducerHooks.metadataWaitHooked;
    try {
      TestStateHolder batch = new TestStateHolder();
      nowNanos = 100 * MS;
      ProducerHooks.onSend(producer, record);
      RecordTracker waited = SendContext.current().sampled;
      // waitOnMetadata found no partition for the topic and waited 7 ms for it.
      ProducerHooks.onMetadataWaited(7);
      nowNanos = 109 * MS;
      ProducerHooks.onAppended(new CompletableFuture<RecordMetadata>(), batch);
      ProducerHooks.onSend(producer, record);
      RecordTracker cached = SendContext.current().sampled;
      ProducerHooks.onMetadataWaited(0);
      nowNanos = 110 * MS;
      ProducerHooks.onAppended(new CompletableFuture<RecordMetadata>(), batch);
      // partitionsFor() waits outside any send(): no record's wait.
      ProducerHooks.onMetadataWaited(50);
      ProducerHooks.onCompletionStart(batch, 0L, -1L, null, 2);
      BatchTiming timing = (BatchTiming) batch.klat$state();

      SpanRecord waitedSpan = ProducerSpans.acknowledged(runtime, waited, batch, timing, 0);
      assertThat(TestSpans.longValue(waitedSpan, EvidenceAttributes.PRODUCER_APPEND_WAIT_NS))
          .isEqualTo(9 * MS);
      assertThat(TestSpans.longValue(waitedSpan, EvidenceAttributes.PRODUCER_METADATA_WAIT_MS))
          .isEqualTo(7L);
      SpanRecord cachedSpan = ProducerSpans.acknowledged(runtime, cached, batch, timing, 0);
      assertThat(TestSpans.longValue(cachedSpan, EvidenceAttributes.PRODUCER_METADATA_WAIT_MS))
          .isEqualTo(0L);

      // A kafka-clients where the hook was skipped: the append wait stays whole.
      ProducerHooks.metadataWaitHooked = false;
      SpanRecord unhooked = ProducerSpans.acknowledged(runtime, cached, batch, timing, 0);
      assertThat(TestSpans.longValue(unhooked, EvidenceAttributes.PRODUCER_APPEND_WAIT_NS))
          .isEqualTo(1 * MS);
      assertThat(TestSpans.longValue(unhooked, EvidenceAttributes.PRODUCER_METADATA_WAIT_MS))
          .isNull();
    } finally {
      ProducerHooks.metadataWaitHooked = hooked;
    }
  }

  @Test
  void aSampledRecordIsSentStampedAndOneWithReadOnlyHeadersAsAStampedCopy() {
    TestRuntime.install(1.0, 1000, clock);
    ProducerRecord<String, String> fresh = new ProducerRecord<>("t", "k", "v");
    assertThat(ProducerHooks.onSend(producer, fresh)).isSameAs(fresh);
    assertThat(fresh.headers().lastHeader("traceparent")).isNotNull();

    ProducerRecord<String, String> resent = new ProducerRecord<>("t", "k", "v");
    ((RecordHeaders) resent.headers()).setReadOnly();
    ProducerRecord<?, ?> sent = ProducerHooks.onSend(producer, resent);
    assertThat(sent).isNotSameAs(resent);
    assertThat(sent.headers().lastHeader("traceparent")).isNotNull();
    assertThat(resent.headers().lastHeader("traceparent")).isNull();
  }

  @Test
  void theSpanOfASampledRecordEndsAtItsBatchsCompletionWithItsMetadata() {
    AgentRuntime runtime = TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    nowNanos = 100 * MS;
    CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
    ProducerHooks.onSend(producer, record);
    RecordTracker sampled = SendContext.current().sampled;
    ProducerHooks.onAppended(future, batch);
    nowNanos = 130 * MS;
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, 1);
    BatchTiming timing = (BatchTiming) batch.klat$state();
    future.complete(new RecordMetadata(new TopicPartition("t", 2), 40L, 0, 1234L, 1, 1));

    SpanRecord span = ProducerSpans.acknowledged(runtime, sampled, batch, timing, timing.ackNanos);
    assertThat(span.endEpochNanos() - span.startEpochNanos()).isEqualTo(30 * MS);
    assertThat(span.statusError()).isFalse();
    ProducerHooks.onCompletionEnd(batch);
    assertThat(timing.sampledCount).isZero();
  }

  @Test
  void aRecordThatFailedInsideSendHasItsFailureOnItsSpan() {
    AgentRuntime runtime = TestRuntime.install(1.0, 1000, clock);
    ProducerHooks.onSend(producer, record);
    RecordTracker sampled = SendContext.current().sampled;
    // Of a class of its own, as Kafka's failed futures are: never taken for an appended one.
    CompletableFuture<RecordMetadata> failed = new CompletableFuture<RecordMetadata>() {};
    failed.completeExceptionally(new IllegalStateException("no metadata"));
    sampled.future = failed;

    SpanRecord span = ProducerSpans.acknowledged(runtime, sampled, null, null, nowNanos);
    assertThat(span.statusError()).isTrue();
    assertThat(span.statusMessage()).contains("no metadata");
    ProducerHooks.onSendReturn(failed);
    assertThat(SendContext.current().sampled).isNull();
  }

  @Test
  void aSendThatFailedBeforeItsAppendCountsOneFailureAndTheNextSendStartsClean() {
    AgentRuntime runtime = TestRuntime.install(clock);
    // Of a class of its own, as Kafka's failed futures are: never taken for an appended one.
    CompletableFuture<RecordMetadata> failed = new CompletableFuture<RecordMetadata>() {};
    failed.completeExceptionally(new IllegalStateException("no metadata"));
    ProducerHooks.onSend(producer, record);
    ProducerHooks.onSendReturn(failed);
    // The next record reaches its batch: its S is the batch's only one.
    TestStateHolder batch = new TestStateHolder();
    ProducerHooks.onSend(producer, record);
    ProducerHooks.onAppended(future, batch);
    ProducerHooks.onSendReturn(future);
    ProducerHooks.onSendReturn(failed);

    assertThat(
            runtime
                .metrics()
                .counter(MetricDef.PRODUCER_RECORDS_FAILED, "t", "client", "IllegalStateException")
                .value())
        .isEqualTo(1);
    assertThat(((BatchTiming) batch.klat$state()).appended).isEqualTo(1);
  }

  @Test
  void aSplitBatchHandsEachSampledRecordToTheBatchItsRecordMovesTo() {
    TestRuntime.install(1.0, 1000, clock);
    TestStateHolder big = new TestStateHolder();
    RecordTracker[] sent = new RecordTracker[4];
    for (int i = 0; i < 4; i++) {
      ProducerHooks.onSend(producer, record);
      sent[i] = SendContext.current().sampled;
      ProducerHooks.onAppended(new CompletableFuture<RecordMetadata>(), big);
    }
    TestStateHolder first = new TestStateHolder();
    TestStateHolder second = new TestStateHolder();
    SplitHooks.onSplitStart(big);
    SplitHooks.onSplitAppended(true, first);
    SplitHooks.onSplitAppended(true, first);
    SplitHooks.onSplitAppended(true, second);
    SplitHooks.onSplitAppended(true, second);
    SplitHooks.onSplitEnd();

    BatchTiming firstTiming = (BatchTiming) first.klat$state();
    BatchTiming secondTiming = (BatchTiming) second.klat$state();
    assertThat(firstTiming.sampledAt(0)).isSameAs(sent[0]);
    assertThat(firstTiming.sampledAt(1)).isSameAs(sent[1]);
    assertThat(secondTiming.sampledAt(0)).isSameAs(sent[2]);
    assertThat(secondTiming.sampledAt(1)).isSameAs(sent[3]);
    assertThat(secondTiming.sampledCount).isEqualTo(2);
  }

  private void send(TestStateHolder batch, int records) {
    for (int i = 0; i < records; i++) {
      ProducerHooks.onSend(producer, record);
      ProducerHooks.onAppended(future, batch);
      ProducerHooks.onSendReturn(future);
    }
  }

  private void complete(TestStateHolder batch, int records) {
    ProducerHooks.onDrained(batch);
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, records);
    ProducerHooks.onCompletionEnd(batch);
  }
}

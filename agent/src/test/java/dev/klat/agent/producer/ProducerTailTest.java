package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TailTraceIds;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.internals.FutureRecordMetadata;
import org.apache.kafka.clients.producer.internals.ProducerBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Producer tail capture on real kafka-clients batches: a record whose {@code A - S} is above its
 * topic's threshold gets a tail span with its partition, offset and derived trace id; the others,
 * sampled records, failed batches and a producer with tail capture off get none; the cap holds.
 */
class ProducerTailTest {

  private static final long MS = 1_000_000L;
  private static final long BASE_OFFSET = 5_000L;
  private static final int PARTITION = 3;
  private static final Header[] NO_HEADERS = new Header[0];

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

  /** The field the hook reads, as KafkaProducer has it. */
  private static class KafkaProducerFields extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "client";
  }

  private static final class FakeProducer extends KafkaProducerFields {}

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  private AgentRuntime install(String... keyValues) {
    Map<String, String> settings = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put(keyValues[i], keyValues[i + 1]);
    }
    return TestRuntime.install(clock, settings);
  }

  private static ProducerBatch newBatch() {
    return new ProducerBatch(
        new TopicPartition("t", PARTITION),
        MemoryRecords.builder(
            ByteBuffer.allocate(64 * 1024), Compression.NONE, TimestampType.CREATE_TIME, 0L),
        0L);
  }

  /** Sends one record into {@code batch} at {@code sendNanos}, as the woven producer would. */
  private FutureRecordMetadata send(ProducerBatch batch, long sendNanos) {
    nowNanos = sendNanos;
    ProducerRecord<?, ?> sent = ProducerHooks.onSend(producer, record);
    FutureRecordMetadata future =
        batch.tryAppend(
            1_700_000_000_000L + sendNanos / MS,
            "k".getBytes(StandardCharsets.UTF_8),
            "v".getBytes(StandardCharsets.UTF_8),
            sent.headers().toArray(),
            null,
            0L);
    ProducerHooks.onAppended(future, batch);
    ProducerHooks.onSendReturn(future);
    return future;
  }

  /** Drains, acknowledges at {@code ackNanos} with the base offset and ends the completion. */
  private BatchTiming acknowledge(ProducerBatch batch, long ackNanos, boolean endCompletion) {
    nowNanos = ackNanos - 1 * MS;
    ProducerHooks.onDrained(batch);
    nowNanos = ackNanos;
    BatchTiming timing = (BatchTiming) dev.klat.agent.weave.States.get(batch);
    int records = timing.appended;
    ProducerHooks.onCompletionStart(batch, BASE_OFFSET, -1L, null, records);
    batch.complete(BASE_OFFSET, -1L);
    if (endCompletion) {
      ProducerHooks.onCompletionEnd(batch);
    }
    return timing;
  }

  private static long flagged(AgentRuntime runtime) {
    return runtime
        .metrics()
        .counter(MetricDef.PRODUCER_TAIL_RECORDS_FLAGGED, "t", "client")
        .value();
  }

  @Test
  void anUnflaggedRecordExportsNothing() {
    AgentRuntime runtime = install("klat.tail.producer-threshold", "50ms");
    ProducerBatch batch = newBatch();
    send(batch, 100 * MS);
    send(batch, 120 * MS);
    BatchTiming timing = acknowledge(batch, 149 * MS, false);

    assertThat(timing.tailCount).isZero();
    assertThat(flagged(runtime)).isZero();
  }

  @Test
  void aSlowRecordGetsATailSpanWithItsPartitionOffsetTraceIdAndThreshold() {
    AgentRuntime runtime = install("klat.tail.producer-threshold", "50ms");
    ProducerBatch batch = newBatch();
    send(batch, 100 * MS); // A - S = 60 ms: flagged
    send(batch, 130 * MS); // 30 ms: not
    send(batch, 105 * MS); // appended later but sent earlier: 55 ms, flagged
    BatchTiming timing = acknowledge(batch, 160 * MS, false);

    assertThat(flagged(runtime)).isEqualTo(2);
    assertThat(timing.tailCount).isEqualTo(2);
    long topicHash = TailTraceIds.topicHash("t");
    int[] indices = {0, 2};
    long[] sendNanos = {100 * MS, 105 * MS};
    for (int k = 0; k < 2; k++) {
      SpanRecord span = ProducerSpans.tailSpan(runtime, batch, timing, k);
      long offset = BASE_OFFSET + indices[k];
      assertThat(TestSpans.longValue(span, SpanAttributes.MESSAGING_KAFKA_OFFSET))
          .isEqualTo(offset);
      assertThat(TestSpans.stringValue(span, SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID))
          .isEqualTo(Integer.toString(PARTITION));
      assertThat(span.traceIdHigh()).isEqualTo(TailTraceIds.high(topicHash, PARTITION, offset));
      assertThat(span.traceIdLow()).isEqualTo(TailTraceIds.low(topicHash, PARTITION, offset));
      assertThat(span.parentSpanId()).isZero();
      assertThat(span.spanId()).isNotZero();
      assertThat(TestSpans.stringValue(span, SpanAttributes.CAPTURE)).isEqualTo("tail");
      assertThat(TestSpans.longValue(span, SpanAttributes.TAIL_THRESHOLD_NANOS)).isEqualTo(50 * MS);
      assertThat(span.endEpochNanos() - span.startEpochNanos()).isEqualTo(160 * MS - sendNanos[k]);
      assertThat(TestSpans.longValue(span, SpanAttributes.PRODUCER_ATTEMPTS)).isEqualTo(1L);
      assertThat(TestSpans.longValue(span, SpanAttributes.BATCH_RECORD_COUNT)).isEqualTo(3L);
      assertThat(TestSpans.stringValue(span, SpanAttributes.RECORD_TIMESTAMP_TYPE))
          .isEqualTo("CreateTime");
      assertThat(TestSpans.longValue(span, SpanAttributes.RECORD_TIMESTAMP_MS))
          .isEqualTo(1_700_000_000_000L + sendNanos[k] / MS);
      assertThat(TestSpans.stringValue(span, SpanAttributes.MESSAGING_DESTINATION_NAME))
          .isEqualTo("t");
      assertThat(span.name()).isEqualTo("send t");
    }
    ProducerHooks.onCompletionEnd(batch);
    assertThat(timing.tailCount).isZero();
  }

  @Test
  void theTailSpanIsExportedThroughTheTailShare() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      Map<String, String> settings = new HashMap<>();
      settings.put("klat.tail.producer-threshold", "10ms");
      AgentRuntime runtime = TestRuntime.install(clock, settings, collector.endpoint());
      ProducerBatch batch = newBatch();
      send(batch, 100 * MS);
      acknowledge(batch, 200 * MS, true);

      List<Span> spans = new ArrayList<>();
      while (spans.isEmpty()) {
        TestCollector.Received request = collector.nextTraces(5000);
        assertThat(request).as("trace request").isNotNull();
        spans.addAll(request.traces().getResourceSpans(0).getScopeSpans(0).getSpansList());
      }
      Span span = spans.get(0);
      Map<String, String> attributes = new HashMap<>();
      for (KeyValue kv : span.getAttributesList()) {
        attributes.put(
            kv.getKey(),
            kv.getValue().hasStringValue()
                ? kv.getValue().getStringValue()
                : Long.toString(kv.getValue().getIntValue()));
      }
      assertThat(attributes).containsEntry("klat.capture", "tail");
      assertThat(attributes).containsEntry("klat.tail.threshold_ns", Long.toString(10 * MS));
      assertThat(attributes).containsEntry("messaging.kafka.offset", Long.toString(BASE_OFFSET));
      long deadline = System.nanoTime() + 5_000 * MS;
      while (runtime.metrics().counter(MetricDef.AGENT_TAIL_SPANS_EXPORTED).value() == 0
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(runtime.metrics().counter(MetricDef.AGENT_TAIL_SPANS_EXPORTED).value())
          .isEqualTo(1);
    }
  }

  @Test
  void theCapHoldsAndTheRestAreCountedDropped() {
    AgentRuntime runtime =
        install("klat.tail.producer-threshold", "1ms", "klat.tail.max-per-second", "5");
    int kept = 0;
    // Two seconds of ten batches of 100 slow records each: 2,000 flagged, at most 5 kept a second.
    for (int second = 0; second < 2; second++) {
      int keptThisSecond = 0;
      for (int b = 0; b < 10; b++) {
        long ackNanos = (10 + second) * 1_000 * MS + b * 100 * MS + 50 * MS;
        ProducerBatch batch = newBatch();
        for (int i = 0; i < 100; i++) {
          send(batch, ackNanos - 20 * MS + i);
        }
        keptThisSecond += acknowledge(batch, ackNanos, false).tailCount;
      }
      assertThat(keptThisSecond).isBetween(1, 5);
      kept += keptThisSecond;
    }
    assertThat(flagged(runtime)).isEqualTo(2_000);
    assertThat(runtime.metrics().counter(MetricDef.AGENT_TAIL_SPANS_DROPPED, "cap").value())
        .isEqualTo(2_000 - kept);
  }

  @Test
  void tailCaptureOffFlagsNothing() {
    AgentRuntime runtime =
        install("klat.tail.enabled", "false", "klat.tail.producer-threshold", "1ms");
    ProducerBatch batch = newBatch();
    send(batch, 100 * MS);
    BatchTiming timing = acknowledge(batch, 300 * MS, false);

    assertThat(timing.tailCount).isZero();
    assertThat(flagged(runtime)).isZero();
  }

  @Test
  void sampledRecordsFailedBatchesAndBatchesWithoutOffsetAreNotFlagged() {
    // Every record sampled: each has its own span already.
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.sampling.probability", "1.0");
    settings.put("klat.sampling.max-per-second", "1000");
    settings.put("klat.tail.producer-threshold", "1ms");
    AgentRuntime runtime = TestRuntime.install(clock, settings);
    ProducerBatch sampled = newBatch();
    send(sampled, 100 * MS);
    assertThat(acknowledge(sampled, 300 * MS, false).tailCount).isZero();

    settings.put("klat.sampling.probability", "0");
    runtime = TestRuntime.install(clock, settings);
    TestStateHolder failed = new TestStateHolder();
    nowNanos = 100 * MS;
    ProducerHooks.onSend(producer, record);
    ProducerHooks.onAppended(new Object(), failed);
    nowNanos = 300 * MS;
    ProducerHooks.onCompletionStart(failed, -1L, -1L, new RuntimeException("expired"), 1);
    assertThat(((BatchTiming) failed.klat$state()).tailCount).isZero();

    TestStateHolder acksZero = new TestStateHolder();
    nowNanos = 100 * MS;
    ProducerHooks.onSend(producer, record);
    ProducerHooks.onAppended(new Object(), acksZero);
    nowNanos = 300 * MS;
    ProducerHooks.onCompletionStart(acksZero, -1L, -1L, null, 1);
    assertThat(((BatchTiming) acksZero.klat$state()).tailCount).isZero();
    assertThat(flagged(runtime)).isZero();
  }

  @Test
  void anAutoThresholdFlagsTheRecordsAboveTheRecentP99() {
    AgentRuntime runtime = install();
    ProducerBatch warmUp = newBatch();
    // The first send creates the topic's threshold; the window starts at the next refresh (the
    // exporter thread's, on this clock, or this one).
    send(warmUp, 100 * MS);
    runtime.tailThresholds.refresh(100 * MS);
    // 1,000 records of 10 ms, before the threshold exists: nothing is flagged.
    for (int i = 1; i < 1000; i++) {
      send(warmUp, 100 * MS);
    }
    assertThat(acknowledge(warmUp, 110 * MS, false).tailCount).isZero();
    nowNanos = 100 * MS + dev.klat.agent.tail.RecentP99.SLOT_NANOS;
    runtime.tailThresholds.refresh(nowNanos);

    ProducerBatch batch = newBatch();
    send(batch, 10_000 * MS);
    send(batch, 10_095 * MS);
    BatchTiming timing = acknowledge(batch, 10_100 * MS, false);
    // 100 ms is above the p99 of about 10 ms; 5 ms is not.
    assertThat(timing.tailCount).isEqualTo(1);
    assertThat(timing.tailThresholdNanos).isBetween(10 * MS, 11 * MS);
  }
}

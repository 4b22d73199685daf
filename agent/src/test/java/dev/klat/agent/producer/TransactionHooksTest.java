package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agent.weave.States;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.internals.FutureRecordMetadata;
import org.apache.kafka.clients.producer.internals.ProducerBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transaction hooks on real kafka-clients batches: a transactional producer's sampled spans
 * wait for {@code commitTransaction()} and leave with C over OTLP, its tail spans are marked
 * transactional and leave at the acknowledgement, and a producer without {@code transactional.id}
 * is as before.
 */
class TransactionHooksTest {

  private static final long MS = 1_000_000L;
  private static final long EPOCH_BASE = 1_800_000_000_000_000_000L;
  private static final long BASE_OFFSET = 100L;

  private long nowNanos;
  private final TimeSource clock =
      new TimeSource() {
        @Override
        public long epochNanos() {
          return EPOCH_BASE + nowNanos;
        }

        @Override
        public long nanoTime() {
          return nowNanos;
        }
      };
  private final ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");

  /** The fields the hooks read, as KafkaProducer has them. */
  private static class KafkaProducerFields extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "client";

    @SuppressWarnings("unused")
    private final ProducerConfig producerConfig;

    KafkaProducerFields(String transactionalId) {
      Properties properties = new Properties();
      properties.put("bootstrap.servers", "localhost:9092");
      properties.put("key.serializer", StringSerializer.class.getName());
      properties.put("value.serializer", StringSerializer.class.getName());
      if (transactionalId != null) {
        properties.put("transactional.id", transactionalId);
      }
      producerConfig = new ProducerConfig(properties);
    }
  }

  private static final class FakeProducer extends KafkaProducerFields {
    FakeProducer(String transactionalId) {
      super(transactionalId);
    }
  }

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  private static ProducerBatch newBatch() {
    return new ProducerBatch(
        new TopicPartition("t", 0),
        MemoryRecords.builder(
            ByteBuffer.allocate(64 * 1024), Compression.NONE, TimestampType.CREATE_TIME, 0L),
        0L);
  }

  private FutureRecordMetadata send(Object producer, ProducerBatch batch, long sendNanos) {
    nowNanos = sendNanos;
    ProducerRecord<?, ?> sent = ProducerHooks.onSend(producer, record);
    FutureRecordMetadata future =
        batch.tryAppend(
            1_700_000_000_000L,
            "k".getBytes(StandardCharsets.UTF_8),
            "v".getBytes(StandardCharsets.UTF_8),
            sent.headers().toArray(),
            null,
            0L);
    ProducerHooks.onAppended(future, batch);
    ProducerHooks.onSendReturn(future);
    return future;
  }

  private BatchTiming acknowledge(ProducerBatch batch, long ackNanos, boolean endCompletion) {
    nowNanos = ackNanos - MS;
    ProducerHooks.onDrained(batch);
    nowNanos = ackNanos;
    BatchTiming timing = (BatchTiming) States.get(batch);
    ProducerHooks.onCompletionStart(batch, BASE_OFFSET, -1L, null, timing.appended);
    batch.complete(BASE_OFFSET, -1L);
    if (endCompletion) {
      ProducerHooks.onCompletionEnd(batch);
    }
    return timing;
  }

  private AgentRuntime install(TestCollector collector) {
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.sampling.probability", "1.0");
    settings.put("klat.sampling.max-per-second", "1000");
    settings.put("klat.tail.enabled", "false");
    return TestRuntime.install(clock, settings, collector.endpoint());
  }

  private static List<Span> awaitSpans(TestCollector collector, int count) throws Exception {
    List<Span> spans = new ArrayList<>();
    while (spans.size() < count) {
      TestCollector.Received request = collector.nextTraces(5000);
      assertThat(request).as("trace request").isNotNull();
      for (ResourceSpans resource : request.traces().getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          spans.addAll(scope.getSpansList());
        }
      }
    }
    return spans;
  }

  private static Map<String, Long> longAttributes(Span span) {
    Map<String, Long> attributes = new HashMap<>();
    for (KeyValue kv : span.getAttributesList()) {
      if (kv.getValue().hasIntValue()) {
        attributes.put(kv.getKey(), kv.getValue().getIntValue());
      }
    }
    return attributes;
  }

  @Test
  void sampledSpansWaitForTheCommitAndCarryItsTime() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      install(collector);
      FakeProducer producer = new FakeProducer("tx-1");
      ProducerBatch batch = newBatch();
      send(producer, batch, 100 * MS);
      send(producer, batch, 101 * MS);
      acknowledge(batch, 150 * MS, true);

      ProducerState state = (ProducerState) States.get(producer);
      assertThat(state.transactions).isNotNull();
      assertThat(state.transactions.heldCount()).isEqualTo(2);

      nowNanos = 180 * MS;
      TransactionHooks.onCommitted(producer);
      assertThat(state.transactions.heldCount()).isZero();

      List<Span> spans = awaitSpans(collector, 2);
      assertThat(spans).hasSize(2);
      for (Span span : spans) {
        Map<String, Long> attributes = longAttributes(span);
        assertThat(attributes).containsEntry(SpanAttributes.PRODUCER_TRANSACTIONAL.name(), 1L);
        assertThat(attributes)
            .containsEntry(SpanAttributes.TXN_COMMIT_TIME.name(), EPOCH_BASE + 180 * MS);
        // The span still ends at A: C is an attribute, and C >= A.
        assertThat(attributes).containsEntry(SpanAttributes.ACK_TIME.name(), EPOCH_BASE + 150 * MS);
        assertThat(span.getEndTimeUnixNano()).isEqualTo(EPOCH_BASE + 150 * MS);
      }
    }
  }

  @Test
  void anAbortedTransactionsSpansLeaveMarkedAborted() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      install(collector);
      FakeProducer producer = new FakeProducer("tx-2");
      ProducerBatch batch = newBatch();
      send(producer, batch, 100 * MS);
      acknowledge(batch, 150 * MS, true);

      TransactionHooks.onAborted(producer);

      Span span = awaitSpans(collector, 1).get(0);
      Map<String, String> strings = new HashMap<>();
      for (KeyValue kv : span.getAttributesList()) {
        strings.put(kv.getKey(), kv.getValue().getStringValue());
      }
      assertThat(strings).containsEntry(SpanAttributes.ERROR_TYPE.name(), "transaction-aborted");
      assertThat(longAttributes(span)).doesNotContainKey(SpanAttributes.TXN_COMMIT_TIME.name());
      assertThat(span.getStatus().getCode())
          .isEqualTo(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR);
    }
  }

  @Test
  void aProducerWithoutTransactionalIdExportsAtTheAcknowledgementUnmarked() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      install(collector);
      FakeProducer producer = new FakeProducer(null);
      ProducerBatch batch = newBatch();
      send(producer, batch, 100 * MS);
      acknowledge(batch, 150 * MS, true);

      assertThat(((ProducerState) States.get(producer)).transactions).isNull();
      Map<String, Long> attributes = longAttributes(awaitSpans(collector, 1).get(0));
      assertThat(attributes).doesNotContainKey(SpanAttributes.PRODUCER_TRANSACTIONAL.name());
      assertThat(attributes).doesNotContainKey(SpanAttributes.TXN_COMMIT_TIME.name());
      // The transaction hooks do nothing for it, nor for a producer that never sent.
      TransactionHooks.onCommitted(producer);
      TransactionHooks.onAborted(new FakeProducer("never-sent"));
      TransactionHooks.onClosed(new Object());
    }
  }

  @Test
  void aTransactionalTailSpanIsMarkedAndDoesNotWait() {
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.sampling.probability", "0");
    settings.put("klat.tail.producer-threshold", "10ms");
    AgentRuntime runtime = TestRuntime.install(clock, settings);
    FakeProducer producer = new FakeProducer("tx-3");
    ProducerBatch batch = newBatch();
    send(producer, batch, 100 * MS);
    BatchTiming timing = acknowledge(batch, 200 * MS, false);
    assertThat(timing.tailCount).isEqualTo(1);

    SpanRecord tail = ProducerSpans.tailSpan(runtime, batch, timing, 0);
    assertThat(TestSpans.longValue(tail, SpanAttributes.PRODUCER_TRANSACTIONAL)).isEqualTo(1L);
    assertThat(TestSpans.longValue(tail, SpanAttributes.TXN_COMMIT_TIME)).isNull();
    ProducerHooks.onCompletionEnd(batch);
    assertThat(((ProducerState) States.get(producer)).transactions.heldCount()).isZero();
  }
}

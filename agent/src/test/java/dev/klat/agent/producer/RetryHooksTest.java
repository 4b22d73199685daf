package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.SpanAttributes;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The error a batch was retried for reaches its sampled records' spans, and only then. */
class RetryHooksTest {

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
  private final Object producer = new TestStateHolder();
  private final ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void aRetriedBatchsSpanNamesTheErrorOfItsLastRetriedAttempt() {
    AgentRuntime runtime = TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    RecordTracker sampled = sendOne(batch);
    ProducerHooks.onDrained(batch);
    RetryHooks.onRetryDecided(true, batch, response(Errors.NOT_LEADER_OR_FOLLOWER));
    ProducerHooks.onDrained(batch);
    RetryHooks.onRetryDecided(true, batch, response(Errors.NOT_ENOUGH_REPLICAS));
    ProducerHooks.onDrained(batch);

    SpanRecord span = complete(runtime, batch, sampled);

    assertThat(TestSpans.longValue(span, SpanAttributes.PRODUCER_ATTEMPTS)).isEqualTo(3L);
    assertThat(TestSpans.stringValue(span, SpanAttributes.PRODUCER_RETRY_ERROR))
        .isEqualTo("NOT_ENOUGH_REPLICAS");
  }

  @Test
  void anErrorTheProducerDidNotRetryLeavesNoRetryError() {
    AgentRuntime runtime = TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    RecordTracker sampled = sendOne(batch);
    ProducerHooks.onDrained(batch);
    // Retries exhausted or a fatal error: canRetry answers false and the batch fails instead.
    RetryHooks.onRetryDecided(false, batch, response(Errors.NOT_ENOUGH_REPLICAS));

    SpanRecord span = complete(runtime, batch, sampled);

    assertThat(TestSpans.longValue(span, SpanAttributes.PRODUCER_ATTEMPTS)).isEqualTo(1L);
    assertThat(TestSpans.stringValue(span, SpanAttributes.PRODUCER_RETRY_ERROR)).isNull();
  }

  @Test
  void somethingElseThanAPartitionResponseIsIgnored() {
    TestRuntime.install(1.0, 1000, clock);
    TestStateHolder batch = new TestStateHolder();
    sendOne(batch);
    ProducerHooks.onDrained(batch);

    RetryHooks.onRetryDecided(true, batch, "not a response");
    RetryHooks.onRetryDecided(true, new Object(), response(Errors.NOT_ENOUGH_REPLICAS));

    assertThat(((BatchTiming) batch.klat$state()).retryError).isNull();
  }

  private RecordTracker sendOne(TestStateHolder batch) {
    nowNanos = 100 * MS;
    ProducerHooks.onSend(producer, record);
    RecordTracker sampled = SendContext.current().sampled;
    ProducerHooks.onAppended(new CompletableFuture<RecordMetadata>(), batch);
    return sampled;
  }

  private SpanRecord complete(AgentRuntime runtime, TestStateHolder batch, RecordTracker sampled) {
    nowNanos = 400 * MS;
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, 1);
    BatchTiming timing = (BatchTiming) batch.klat$state();
    ((CompletableFuture<RecordMetadata>) sampled.future)
        .complete(new RecordMetadata(new TopicPartition("t", 0), 7L, 0, 1234L, 1, 1));
    return ProducerSpans.acknowledged(runtime, sampled, batch, timing, timing.ackNanos);
  }

  private static ProduceResponse.PartitionResponse response(Errors error) {
    return new ProduceResponse.PartitionResponse(error);
  }
}

package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agentcore.clock.TimeSource;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SendSamplingTest {

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void theGapIsGeometric() {
    // P(gap >= k) = (1 - p)^k: the uniform's quantiles land on the gaps' boundaries.
    assertThat(SendSampling.gap(0.5, 0.0)).isEqualTo(0);
    assertThat(SendSampling.gap(0.5, 0.49)).isEqualTo(0);
    assertThat(SendSampling.gap(0.5, 0.51)).isEqualTo(1);
    assertThat(SendSampling.gap(0.5, 0.76)).isEqualTo(2);
    assertThat(SendSampling.gap(0.01, 0.5)).isEqualTo(68); // ln 0.5 / ln 0.99 = 68.97
    assertThat(SendSampling.gap(1.0, 0.999)).isEqualTo(0);
    assertThat(SendSampling.gap(0.0, 0.3)).isEqualTo(Long.MAX_VALUE);
    assertThat(SendSampling.gap(1e-300, 0.999999)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void picksEachRecordWithTheConfiguredProbability() throws InterruptedException {
    AgentRuntime runtime = TestRuntime.install(0.01, 1e9, TimeSource.SYSTEM);
    long[] picked = new long[1];
    // A thread of its own, so that its context starts with no gap.
    Thread sender = new Thread(() -> picked[0] = sendWithoutTraceparent(runtime, 1_000_000));
    sender.start();
    sender.join();

    // Binomial(1,000,000, 0.01): mean 10,000, standard deviation 99.5; 5 of them either side.
    assertThat(picked[0]).isBetween(9_500L, 10_500L);
  }

  @Test
  void probabilitiesOneAndZeroPickEveryRecordAndNone() {
    AgentRuntime every = TestRuntime.install(1.0, 1e9, TimeSource.SYSTEM);
    assertThat(sendWithoutTraceparent(every, 1_000)).isEqualTo(1_000);

    AgentRuntime none = TestRuntime.install(0.0, 1e9, TimeSource.SYSTEM);
    assertThat(sendWithoutTraceparent(none, 100_000)).isZero();

    // A new runtime does not inherit the last one's gap, however long.
    AgentRuntime again = TestRuntime.install(1.0, 1e9, TimeSource.SYSTEM);
    assertThat(sendWithoutTraceparent(again, 10)).isEqualTo(10);
  }

  /** The field the hook reads, as KafkaProducer has it. */
  private static final class FakeProducer extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "client";
  }

  // Through send()'s hook: how many of the records it sampled.
  private static long sendWithoutTraceparent(AgentRuntime runtime, int records) {
    assertThat(AgentRuntime.get()).isSameAs(runtime);
    FakeProducer producer = new FakeProducer();
    long sampled = 0;
    for (int i = 0; i < records; i++) {
      // A new record each time: a sampled one carries klat's traceparent from then on.
      ProducerHooks.onSend(producer, new ProducerRecord<>("t", "k", "v"));
      if (SendContext.current().sampled != null) {
        sampled++;
      }
    }
    return sampled;
  }
}

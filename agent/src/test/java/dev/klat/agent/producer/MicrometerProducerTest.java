package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.ManualTime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code klat.micrometer.enabled}: the producer's every-record histograms as Micrometer timers. */
class MicrometerProducerTest {

  private final ManualTime time = new ManualTime();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Object future = new Object();

  /** The field the hook reads, as KafkaProducer has it. */
  private static final class FakeProducer extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "micrometer-client";
  }

  @BeforeEach
  void addRegistry() {
    Metrics.globalRegistry.add(registry);
  }

  @AfterEach
  void removeRegistry() {
    Metrics.globalRegistry.remove(registry);
    TestRuntime.uninstall();
  }

  @Test
  void withTheSettingOnEveryAckedRecordIsRecordedInTheApplicationsTimers() {
    TestRuntime.install(time, Map.of("klat.micrometer.enabled", "true"));
    String topic = "micrometer-on";
    sendAndComplete(topic, 3, 20);

    Timer producer = timer("klat.producer.latency", topic);
    Timer produce = timer("klat.producer.produce.latency", topic);
    assertThat(producer).isNotNull();
    assertThat(producer.count()).isEqualTo(3);
    // Three records sent at once and acked 20 ms later (plus the test's own run time); drained
    // 5 ms after the send.
    assertThat(producer.totalTime(TimeUnit.NANOSECONDS)).isBetween(60e6, 90e6);
    assertThat(produce.count()).isEqualTo(3);
    assertThat(produce.totalTime(TimeUnit.NANOSECONDS))
        .isLessThan(producer.totalTime(TimeUnit.NANOSECONDS));
  }

  @Test
  void withTheSettingOffNoMeterIsCreated() {
    TestRuntime.install(time);
    String topic = "micrometer-off";
    sendAndComplete(topic, 2, 10);

    assertThat(registry.find("klat.producer.latency").tag("topic", topic).meters()).isEmpty();
    assertThat(registry.find("klat.producer.produce.latency").tag("topic", topic).meters())
        .isEmpty();
  }

  private Timer timer(String name, String topic) {
    return registry.find(name).tags("topic", topic, "client_id", "micrometer-client").timer();
  }

  private void sendAndComplete(String topic, int records, long ackAfterMillis) {
    FakeProducer producer = new FakeProducer();
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, "k", "v");
    TestStateHolder batch = new TestStateHolder();
    for (int i = 0; i < records; i++) {
      ProducerHooks.onSend(producer, record);
      ProducerHooks.onAppended(future, batch);
      ProducerHooks.onSendReturn(future);
    }
    time.advanceMillis(5);
    ProducerHooks.onDrained(batch);
    time.advanceMillis(ackAfterMillis - 5);
    ProducerHooks.onCompletionStart(batch, 0L, -1L, null, records);
    ProducerHooks.onCompletionEnd(batch);
  }
}

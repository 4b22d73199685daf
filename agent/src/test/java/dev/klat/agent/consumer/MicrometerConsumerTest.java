package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.ManualTime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code klat.micrometer.enabled}: the consumer's every-record histograms as Micrometer timers. */
class MicrometerConsumerTest {

  private final ManualTime time = new ManualTime();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TestStateHolder consumer = new TestStateHolder();

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
  void withTheSettingOnEveryPolledRecordIsRecordedInTheApplicationsTimers() {
    TestRuntime.install(time, Map.of("klat.micrometer.enabled", "true"));
    String topic = "micrometer-consumer-on";
    long createdMillis = System.currentTimeMillis() - 1_000;
    TestStateHolder completedFetch = respond();
    time.advanceMillis(30);
    poll(completedFetch, record(topic, 0, createdMillis), record(topic, 1, createdMillis));

    Timer e2e = timer("klat.e2e.latency", topic);
    assertThat(e2e).isNotNull();
    assertThat(e2e.count()).isEqualTo(2);
    // Created a second before the poll, and the clock moved 30 ms more.
    assertThat(e2e.totalTime(TimeUnit.SECONDS)).isBetween(2.06, 2.5);
    assertThat(timer("klat.consumer.fetch.latency", topic).count()).isEqualTo(2);
    Timer buffer = timer("klat.consumer.buffer.latency", topic);
    assertThat(buffer.count()).isEqualTo(2);
    assertThat(buffer.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(60.0);
  }

  @Test
  void withTheSettingOffNoMeterIsCreated() {
    TestRuntime.install(time);
    String topic = "micrometer-consumer-off";
    poll(respond(), record(topic, 0, System.currentTimeMillis()));

    assertThat(registry.find("klat.e2e.latency").tag("topic", topic).meters()).isEmpty();
    assertThat(registry.find("klat.consumer.fetch.latency").tag("topic", topic).meters()).isEmpty();
  }

  private Timer timer(String name, String topic) {
    // A consumer without a group (the test's is no KafkaConsumer) has the empty group tag.
    return registry.find(name).tags("topic", topic, "group", "").timer();
  }

  private TestStateHolder respond() {
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    ConsumerHooks.onFetchResponse(request);
    TestStateHolder completedFetch = new TestStateHolder();
    ConsumerHooks.onCompletedFetchCreated(completedFetch);
    ConsumerHooks.onFetchResponseDone();
    return completedFetch;
  }

  @SafeVarargs
  private void poll(TestStateHolder completedFetch, ConsumerRecord<String, String>... records) {
    ConsumerHooks.onPollEnter(consumer);
    List<ConsumerRecord<String, String>> list = new ArrayList<>(List.of(records));
    TopicPartition partition = new TopicPartition(records[0].topic(), 0);
    ConsumerHooks.onRecordsFetched(completedFetch, partition, null, list);
    ConsumerHooks.onPollExit(consumer, null);
  }

  private static ConsumerRecord<String, String> record(
      String topic, long offset, long timestampMillis) {
    return new ConsumerRecord<>(
        topic,
        0,
        offset,
        timestampMillis,
        TimestampType.CREATE_TIME,
        1,
        1,
        "k",
        "v",
        new RecordHeaders(),
        Optional.empty());
  }
}

package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.ManualTime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.weave.States;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.TimingHeader;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.internals.Acknowledgements;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the share consumer hooks in order, as the woven kafka-clients would, without an agent. */
class ShareConsumerHooksTest {

  private static final String TOPIC = "jobs";

  private final ManualTime time = new ManualTime();
  private AgentRuntime runtime;
  private final TestStateHolder consumer = new TestStateHolder();
  private final TestStateHolder manager = new TestStateHolder();

  @BeforeEach
  void install() {
    runtime = TestRuntime.install(time);
  }

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void everyDeliveryIsMeasuredAndASampledOneWaitsForTheBrokersAnswer() {
    TestStateHolder completedFetch = respond(5);
    ConsumerRecord<String, String> sampled = record(0L, 1, true);
    ConsumerRecord<String, String> redelivered = record(1L, 2, false);
    ShareConsumerHooks.onPollEnter(consumer);
    ShareConsumerHooks.onRecordParsed(sampled, completedFetch);
    ShareConsumerHooks.onRecordParsed(redelivered, completedFetch);
    time.advanceMillis(3);
    ShareConsumerHooks.onPollReturn(null, consumer);

    assertThat(runtime.metrics().histogram(MetricDef.E2E_LATENCY, TOPIC, "").count()).isEqualTo(2);
    assertThat(runtime.metrics().histogram(MetricDef.CONSUMER_FETCH_LATENCY, TOPIC, "").count())
        .isEqualTo(2);
    assertThat(runtime.metrics().histogram(MetricDef.CONSUMER_BUFFER_LATENCY, TOPIC, "").count())
        .isEqualTo(2);
    assertThat(runtime.metrics().counter(MetricDef.CONSUMER_SHARE_REDELIVERIES, TOPIC, "").value())
        .isEqualTo(1);
    // Lag in time: the age at P of the newest first delivery (8 ms of the test clock at least).
    assertThat(runtime.metrics().gauge(MetricDef.CONSUMER_LAG_TIME, TOPIC, "", "0").value())
        .isGreaterThanOrEqualTo(0.008);
    ShareConsumerState state = (ShareConsumerState) States.get(consumer);
    ShareDeliveries.Delivery waiting = state.deliveries.find(TOPIC, 0, 0L);
    assertThat(waiting).isNotNull();
    assertThat(state.deliveries.size()).isEqualTo(1);
    // The request manager's answers find this consumer's deliveries.
    assertThat(States.get(manager)).isSameAs(state);

    ShareConsumerHooks.onAcknowledgeTyped(consumer, sampled, AcknowledgeType.RELEASE);
    assertThat(waiting.acknowledgedType()).isEqualTo("release");
    Acknowledgements answer = Acknowledgements.empty();
    answer.add(0L, AcknowledgeType.RELEASE);
    answer.add(1L, AcknowledgeType.ACCEPT);
    answer.complete(null);
    ShareConsumerHooks.onAcknowledgementsCompleted(
        Map.of(new TopicIdPartition(Uuid.randomUuid(), 0, TOPIC), answer), manager);

    assertThat(state.deliveries.isEmpty()).isTrue();
  }

  @Test
  void implicitModeAcknowledgesAtTheNextPoll() {
    TestStateHolder completedFetch = respond(1);
    ShareConsumerHooks.onPollEnter(consumer);
    ShareConsumerHooks.onRecordParsed(record(0L, 1, true), completedFetch);
    ShareConsumerHooks.onPollReturn(null, consumer);
    ShareConsumerState state = (ShareConsumerState) States.get(consumer);
    // A TestStateHolder has no acknowledgementMode: explicit, or unknown, takes no K at poll.
    assertThat(state.implicitAcknowledgement).isFalse();
    ShareConsumerHooks.onPollEnter(consumer);
    assertThat(state.deliveries.find(TOPIC, 0, 0L).isAcknowledged()).isFalse();
    ShareConsumerHooks.onPollReturn(null, consumer);

    ShareConsumerHooks.onClose(consumer);
    assertThat(state.deliveries.isEmpty()).isTrue();
    assertThat(
            runtime.metrics().counter(MetricDef.AGENT_SHARE_SPANS_UNACKNOWLEDGED, "closed").value())
        .isEqualTo(1);
  }

  @Test
  void aRealShareConsumersGroupModeAndSettingsAreRead() {
    for (String mode : new String[] {"implicit", "explicit"}) {
      Properties props = new Properties();
      props.put("bootstrap.servers", "127.0.0.1:9");
      props.put("group.id", "workers");
      props.put("share.acknowledgement.mode", mode);
      props.put("max.poll.records", "7");
      props.put("key.deserializer", StringDeserializer.class.getName());
      props.put("value.deserializer", StringDeserializer.class.getName());
      KafkaShareConsumer<String, String> real = new KafkaShareConsumer<>(props);
      try {
        ShareConsumerState state = new ShareConsumerState(runtime, real);
        assertThat(state.consumer.groupId).isEqualTo("workers");
        assertThat(state.implicitAcknowledgement).as(mode).isEqualTo(mode.equals("implicit"));
        assertThat(state.supported).isTrue();
        assertThat(state.clientVersion).isEqualTo("4.4.0");
        assertThat(state.consumer.maxPollRecords).isEqualTo(7);
        assertThat(state.consumer.fetchMaxWaitMs).isEqualTo(500);
        // A share group's isolation level is the group's setting, not the client's.
        assertThat(state.consumer.isolationLevel).isNull();
      } finally {
        // No broker: nothing to wait for.
        real.close(Duration.ZERO);
      }
    }
  }

  @Test
  void aTopicKlatExcludesIsNeitherMeasuredNorTraced() {
    TestRuntime.uninstall();
    runtime = TestRuntime.install(time, Map.of("klat.topics.exclude", TOPIC));
    TestStateHolder completedFetch = respond(1);
    ShareConsumerHooks.onPollEnter(consumer);
    ShareConsumerHooks.onRecordParsed(record(0L, 2, true), completedFetch);
    ShareConsumerHooks.onPollReturn(null, consumer);

    ShareConsumerState state = (ShareConsumerState) States.get(consumer);
    assertThat(state.deliveries.isEmpty()).isTrue();
    assertThat(runtime.metrics().histogram(MetricDef.E2E_LATENCY, TOPIC, "").count()).isZero();
  }

  @Test
  void onlyShareConsumersOf41AndLaterAreRead() {
    assertThat(ShareConsumerState.isSupported("4.0.2")).isFalse();
    assertThat(ShareConsumerState.isSupported("4.1.2")).isTrue();
    assertThat(ShareConsumerState.isSupported("4.4.0")).isTrue();
    assertThat(ShareConsumerState.isSupported("5.0.0")).isFalse();
    assertThat(ShareConsumerState.isSupported("garbage")).isFalse();
  }

  // The response, taken msAgo after its request, as the network thread handles it.
  private TestStateHolder respond(long msAgo) {
    TestStateHolder requestData = new TestStateHolder();
    States.set(requestData, FetchStamp.request(time.nanoTime(), null));
    time.advanceMillis(msAgo);
    ShareConsumerHooks.onShareFetchResponse(requestData, manager);
    TestStateHolder completedFetch = new TestStateHolder();
    ShareConsumerHooks.onCompletedFetchCreated(completedFetch);
    ShareConsumerHooks.onShareFetchResponseDone();
    return completedFetch;
  }

  private static ConsumerRecord<String, String> record(long offset, int count, boolean sampled) {
    RecordHeaders headers = new RecordHeaders();
    long now = System.currentTimeMillis();
    if (sampled) {
      headers.add(HeaderNames.TIMING, TimingHeader.encode(now * 1000L, 5L, true));
      headers.add(
          HeaderNames.TRACEPARENT,
          "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".getBytes());
    }
    return new ConsumerRecord<>(
        TOPIC,
        0,
        offset,
        now,
        TimestampType.CREATE_TIME,
        1,
        1,
        "k",
        "v",
        headers,
        Optional.empty(),
        Optional.of((short) count));
  }
}

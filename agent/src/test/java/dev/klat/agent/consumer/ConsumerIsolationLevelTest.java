package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.model.SpanAttributes;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A consumer's {@code isolation.level}, read once from its internals, on every span it makes: real
 * consumers of both group protocols, and the field's places in older versions.
 */
class ConsumerIsolationLevelTest {

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  private static KafkaConsumer<String, String> consumer(String isolationLevel, String protocol) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", "localhost:9");
    properties.put("group.id", "g");
    properties.put("group.protocol", protocol);
    properties.put("key.deserializer", StringDeserializer.class.getName());
    properties.put("value.deserializer", StringDeserializer.class.getName());
    if (isolationLevel != null) {
      properties.put("isolation.level", isolationLevel);
    }
    return new KafkaConsumer<>(properties);
  }

  @Test
  void aClassicConsumerReadsItsIsolationLevelAndItsSpansCarryIt() {
    AgentRuntime runtime = TestRuntime.install();
    try (KafkaConsumer<String, String> committed = consumer("read_committed", "classic");
        KafkaConsumer<String, String> byDefault = consumer(null, "classic")) {
      ConsumerState state = new ConsumerState(runtime, committed);
      assertThat(state.isolationLevel).isEqualTo("read_committed");
      assertThat(new ConsumerState(runtime, byDefault).isolationLevel)
          .isEqualTo("read_uncommitted");

      SpanRecord span =
          ConsumerSpans.of(
              runtime,
              state,
              new ConsumerRecord<>("t", 0, 5L, "k", "v"),
              1L,
              2L,
              0L,
              null,
              -1L,
              0L,
              0,
              0);
      assertThat(TestSpans.stringValue(span, SpanAttributes.CONSUMER_ISOLATION_LEVEL))
          .isEqualTo("read_committed");
    }
  }

  @Test
  @org.junit.jupiter.api.Disabled
  void theNewProtocolsConsumerReadsItToo() {
    AgentRuntime runtime = TestRuntime.install();
    try (KafkaConsumer<String, String> committed = consumer("read_committed", "consumer")) {
      assertThat(new ConsumerState(runtime, committed).isolationLevel).isEqualTo("read_committed");
    }
  }

  /** The Fetcher up to 3.4 and the FetchConfig from 3.5 hold it beside fetch.min.bytes. */
  private static final class FetchSettings {
    @SuppressWarnings("unused")
    private final IsolationLevel isolationLevel;

    FetchSettings(IsolationLevel isolationLevel) {
      this.isolationLevel = isolationLevel;
    }
  }

  /** From 3.1 the consumer (from 3.7 its delegate) holds its own copy. */
  private static final class Internals {
    @SuppressWarnings("unused")
    private final IsolationLevel isolationLevel = IsolationLevel.READ_COMMITTED;
  }

  @Test
  void theFetchSettingsComeFirstThenTheConsumerAndOtherwiseNothing() {
    assertThat(
            ConsumerState.isolationLevelOf(
                new FetchSettings(IsolationLevel.READ_UNCOMMITTED), new Internals()))
        .isEqualTo("read_uncommitted");
    assertThat(ConsumerState.isolationLevelOf(new FetchSettings(null), new Internals()))
        .isEqualTo("read_committed");
    assertThat(ConsumerState.isolationLevelOf(null, new Internals())).isEqualTo("read_committed");
    assertThat(ConsumerState.isolationLevelOf(null, new Object())).isNull();
    assertThat(ConsumerState.isolationLevelOf(null, null)).isNull();
  }
}

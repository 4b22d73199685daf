package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimingHeader;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent on real producers: a forked JVM per kafka-clients version runs {@link ProducerApp} with
 * {@code -javaagent:klat-agent.jar} against a real broker, and a real OTLP receiver in this test
 * checks the spans and metrics that arrive against the records a plain consumer reads back.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ProducerAgentIT {

  private static final int RECORDS = 200;

  /** The records ProducerApp sends besides the numbered ones: the reused one twice, the traced. */
  static final int EXTRA_RECORDS = 3;

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  @ParameterizedTest(name = "kafka-clients {0}")
  @ValueSource(strings = {"2.8.2", "3.6.2", "3.9.2", "4.4.0"})
  void stampsSampledRecordsAndReportsEveryRecord(String clientsVersion) throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "agent-" + clientsVersion.replace('.', '-');
    cluster.createTopic(TopicSpec.named(topic).partitions(2).build());
    long startedEpochMicros = System.currentTimeMillis() * 1000;

    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result app =
          AppJvm.run(
              clientsVersion,
              AppJvm.agentOptions(receiver.endpoint(), "0.5"),
              ProducerApp.class,
              cluster.bootstrapServers(),
              topic,
              Integer.toString(RECORDS),
              AppJvm.LINGER_MILLIS);

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("SENT")).isEqualTo(Integer.toString(RECORDS + EXTRA_RECORDS));
      assertThat(app.value("APP_CALLBACKS")).isEqualTo(Integer.toString(RECORDS / 2));
      assertThat(app.value("FAILURES")).isEqualTo("0");
      assertThat(app.output()).doesNotContain("Exception").contains("klat agent started");
      // Every producer hook bound in this version, Sender.canRetry's among them: a retried batch's
      // spans name its error (checked on real brokers by DiagnosisIT's min.insync.replicas case).
      assertThat(app.output()).doesNotContain("hook skipped");
      assertThat(receiver.errors()).isEmpty();

      List<ConsumerRecord<String, String>> records =
          RecordsOnTopic.readAll(cluster, topic, RECORDS + EXTRA_RECORDS);
      Map<String, ConsumerRecord<String, String>> byPosition = new HashMap<>();
      List<ConsumerRecord<String, String>> stamped = new ArrayList<>();
      for (ConsumerRecord<String, String> record : records) {
        byPosition.put(record.partition() + "/" + record.offset(), record);
        int traceparents = RecordsOnTopic.headerCount(record, HeaderNames.TRACEPARENT);
        int timings = RecordsOnTopic.headerCount(record, HeaderNames.TIMING);
        // Sampled records carry both headers exactly once; the rest carry no added byte, except
        // the traced record, whose upstream traceparent stays when it is not sampled.
        if (timings == 1) {
          assertThat(traceparents).as(record.key()).isEqualTo(1);
          stamped.add(record);
        } else {
          assertThat(timings).as(record.key()).isZero();
          assertThat(traceparents)
              .as(record.key())
              .isEqualTo(record.key().equals("traced") ? 1 : 0);
        }
      }
      assertThat(stamped).hasSizeBetween(1, records.size() - 1);

      long instanceId = 0;
      for (ConsumerRecord<String, String> record : stamped) {
        TimingHeader.Decoded timing = new TimingHeader.Decoded();
        assertThat(
                TimingHeader.decode(
                    record.headers().lastHeader(HeaderNames.TIMING).value(), timing))
            .isEqualTo(TimingHeader.DecodeError.NONE);
        assertThat(timing.sampled()).isTrue();
        assertThat(timing.sendEpochMicros())
            .isBetween(startedEpochMicros - 1_000_000, System.currentTimeMillis() * 1000);
        if (instanceId == 0) {
          instanceId = timing.producerInstanceId();
        }
        assertThat(timing.producerInstanceId()).isEqualTo(instanceId);
      }

      List<Span> spans = receiver.awaitSpans(stamped.size());
      assertThat(spans).hasSize(stamped.size());
      for (Span span : spans) {
        String position =
            OtlpReceiver.stringAttribute(
                    span, SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name())
                + "/"
                + OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
        ConsumerRecord<String, String> record = byPosition.get(position);
        assertThat(record).as("record at %s", position).isNotNull();
        String traceparent =
            new String(
                record.headers().lastHeader(HeaderNames.TRACEPARENT).value(),
                StandardCharsets.US_ASCII);
        assertThat(traceparent)
            .isEqualTo(
                "00-"
                    + HexFormat.of().formatHex(span.getTraceId().toByteArray())
                    + "-"
                    + HexFormat.of().formatHex(span.getSpanId().toByteArray())
                    + "-01");
        assertThat(
                OtlpReceiver.stringAttribute(
                    span, SpanAttributes.MESSAGING_DESTINATION_NAME.name()))
            .isEqualTo(topic);
        assertThat(OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_CLIENT_ID.name()))
            .isEqualTo("it-producer");
        long send = OtlpReceiver.longAttribute(span, SpanAttributes.SEND_TIME.name());
        long firstDrain = OtlpReceiver.longAttribute(span, SpanAttributes.DRAIN_FIRST_TIME.name());
        long drain = OtlpReceiver.longAttribute(span, SpanAttributes.DRAIN_TIME.name());
        long ack = OtlpReceiver.longAttribute(span, SpanAttributes.ACK_TIME.name());
        assertThat(send).isLessThanOrEqualTo(firstDrain);
        assertThat(firstDrain).isLessThanOrEqualTo(drain);
        assertThat(drain).isLessThanOrEqualTo(ack);
        assertThat(span.getStartTimeUnixNano()).isEqualTo(send);
        assertThat(span.getEndTimeUnixNano()).isEqualTo(ack);
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.PRODUCER_ATTEMPTS.name()))
            .isEqualTo(1L);
        // The part of produce spent in send() before the record was in its batch.
        assertThat(
                OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_APPEND_WAIT_NS.name()))
            .isBetween(0L, firstDrain - send);
        // Its part waiting for metadata, in the whole milliseconds Kafka measures: the hook binds
        // in every version tested, so every span carries it.
        long appendWaitNanos =
            OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_APPEND_WAIT_NS.name());
        assertThat(
                OtlpReceiver.longAttribute(
                    span, EvidenceAttributes.PRODUCER_METADATA_WAIT_MS.name()))
            .isBetween(0L, TimeUnit.NANOSECONDS.toMillis(appendWaitNanos) + 1);
        // The settings the diagnosis weighs: ProducerApp sets linger.ms=5, the rest are defaults.
        assertThat(OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_LINGER_MS.name()))
            .isEqualTo(5L);
        assertThat(OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_BATCH_SIZE.name()))
            .isEqualTo(16_384L);
        assertThat(
                OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_BUFFER_MEMORY.name()))
            .isEqualTo(33_554_432L);
        assertThat(
                OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_MAX_IN_FLIGHT.name()))
            .isEqualTo(5L);
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.LEADER_NODE_ID.name()))
            .isEqualTo(1L);
        // The request that carried the batch: one batch per partition of the topic's two, and
        // fewer requests already in flight than max.in.flight.requests.per.connection.
        assertThat(
                OtlpReceiver.longAttribute(
                    span, EvidenceAttributes.PRODUCER_REQUEST_BATCHES.name()))
            .isBetween(1L, 2L);
        assertThat(
                OtlpReceiver.longAttribute(
                    span, EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT.name()))
            .isBetween(0L, 4L);
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.INSTANCE_ID.name()))
            .isEqualTo(instanceId);
        if ("traced".equals(record.key())) {
          // Continues the upstream trace: same trace id, the upstream span as parent.
          assertThat(HexFormat.of().formatHex(span.getTraceId().toByteArray()))
              .isEqualTo("0af7651916cd43dd8448eb211c80319c");
          assertThat(HexFormat.of().formatHex(span.getParentSpanId().toByteArray()))
              .isEqualTo("b7ad6b7169203331");
        }
      }

      for (MetricDef metric :
          List.of(MetricDef.PRODUCER_LATENCY, MetricDef.PRODUCER_PRODUCE_LATENCY)) {
        HistogramDataPoint point =
            receiver.latestHistogram(metric.name(), "topic", topic, "client_id", "it-producer");
        assertThat(point).as(metric.name()).isNotNull();
        assertThat(point.getCount()).as(metric.name()).isEqualTo(RECORDS + EXTRA_RECORDS);
        assertThat(point.getSum()).as(metric.name()).isPositive();
      }
    }
  }

  @Test
  void disabledAgentTransformsNothingAndSendsNothing() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-disabled").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> options = new ArrayList<>(AppJvm.agentOptions(receiver.endpoint(), "1.0"));
      options.add("-Dklat.enabled=false");
      AppJvm.Result app =
          AppJvm.run(
              "4.4.0",
              options,
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-disabled",
              "20",
              "800");

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.output()).contains("klat.enabled=false");
      assertThat(receiver.requestCount()).isZero();
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-disabled", 20 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING)).isZero();
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TRACEPARENT))
            .isEqualTo(record.key().equals("traced") ? 1 : 0);
      }
    }
  }

  /**
   * A topic that does not exist yet: the broker creates it on the producer's first metadata request
   * and answers without a leader until it has one, so the first {@code send()} waits for metadata
   * (retry.backoff.ms at least); that wait reaches the span, in the oldest and newest clients.
   */
  @ParameterizedTest(name = "kafka-clients {0}")
  @ValueSource(strings = {"2.8.2", "4.4.0"})
  void aSendToATopicNotCreatedYetReportsItsMetadataWait(String clientsVersion) throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "agent-new-topic-" + clientsVersion.replace('.', '-');
    int records = 5;
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result app =
          AppJvm.run(
              clientsVersion,
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ProducerApp.class,
              cluster.bootstrapServers(),
              topic,
              Integer.toString(records),
              AppJvm.LINGER_MILLIS);

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("FAILURES")).isEqualTo("0");
      long longestWaitMs = -1;
      for (Span span : receiver.awaitSpans(records + EXTRA_RECORDS)) {
        long waitMs =
            OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_METADATA_WAIT_MS.name());
        long appendWaitNanos =
            OtlpReceiver.longAttribute(span, EvidenceAttributes.PRODUCER_APPEND_WAIT_NS.name());
        assertThat(waitMs).isBetween(0L, TimeUnit.NANOSECONDS.toMillis(appendWaitNanos) + 1);
        longestWaitMs = Math.max(longestWaitMs, waitMs);
      }
      assertThat(longestWaitMs).isPositive();
      System.out.println(
          "kafka-clients " + clientsVersion + ": longest metadata wait " + longestWaitMs + " ms");
    }
  }

  @Test
  void anUnsupportedClientVersionIsLeftAloneWithOneLine() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-old-client").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result app =
          AppJvm.run(
              "2.7.2",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-old-client",
              "20",
              "800");

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("APP_CALLBACKS")).isEqualTo("10");
      assertThat(app.output())
          .containsOnlyOnce("kafka-clients 2.7.2 in class loader")
          .contains("is not supported (klat supports 2.8 to 4.x)");
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-old-client", 20 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING)).isZero();
      }
      assertThat(receiver.spans()).isEmpty();
    }
  }

  @Test
  void headersOffStillTracesButAddsNoHeaderByte() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-headers-off").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> options = new ArrayList<>(AppJvm.agentOptions(receiver.endpoint(), "1.0"));
      options.add("-Dklat.headers.enabled=false");
      AppJvm.Result app =
          AppJvm.run(
              "4.4.0",
              options,
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-headers-off",
              "20",
              AppJvm.LINGER_MILLIS);

      assertThat(app.exitCode()).as(app.output()).isZero();
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-headers-off", 20 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING)).isZero();
        // Only the application's own upstream traceparent, untouched.
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TRACEPARENT))
            .isEqualTo(record.key().equals("traced") ? 1 : 0);
      }
      // Still traced: the collector joins these spans by topic, partition and offset.
      assertThat(receiver.awaitSpans(20 + EXTRA_RECORDS)).hasSize(20 + EXTRA_RECORDS);
    }
  }

  @Test
  void excludedTopicIsLeftAlone() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-excluded").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> options = new ArrayList<>(AppJvm.agentOptions(receiver.endpoint(), "1.0"));
      options.add("-Dklat.topics.exclude=agent-excl.*");
      AppJvm.Result app =
          AppJvm.run(
              "4.4.0",
              options,
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-excluded",
              "20",
              AppJvm.LINGER_MILLIS);

      assertThat(app.exitCode()).as(app.output()).isZero();
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-excluded", 20 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING)).isZero();
      }
      // The agent ran and exported (its own health), but nothing about the excluded topic.
      assertThat(receiver.requestCount()).isPositive();
      assertThat(receiver.spans()).isEmpty();
      assertThat(
              receiver.latestHistogram(
                  MetricDef.PRODUCER_LATENCY.name(), "topic", "agent-excluded"))
          .isNull();
    }
  }

  @Test
  void kafkaClientsInAChildClassLoaderLikeSpringBootAreInstrumented() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-spring-boot-like").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> options = new ArrayList<>(AppJvm.agentOptions(receiver.endpoint(), "1.0"));
      options.add("-Dit.launcher.parent=system");
      AppJvm.Result app =
          AppJvm.runInChildLoader(
              "4.4.0",
              options,
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-spring-boot-like",
              "50",
              AppJvm.LINGER_MILLIS);

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("APP_CALLBACKS")).isEqualTo("25");
      assertThat(app.output())
          .containsOnlyOnce("klat's hooks were defined in that class loader")
          .doesNotContain("hook failed")
          .doesNotContain("NoClassDefFoundError");
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-spring-boot-like", 50 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING))
            .as(record.key())
            .isEqualTo(1);
      }
      assertThat(receiver.awaitSpans(50 + EXTRA_RECORDS)).hasSize(50 + EXTRA_RECORDS);
      assertThat(
              receiver
                  .latestHistogram(
                      MetricDef.PRODUCER_LATENCY.name(), "topic", "agent-spring-boot-like")
                  .getCount())
          .isEqualTo(50 + EXTRA_RECORDS);
    }
  }

  @Test
  void kafkaClientsTheAgentCannotSeeAreLeftAloneWithOneLine() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-child-loader").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result app =
          AppJvm.runInChildLoader(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ProducerApp.class,
              cluster.bootstrapServers(),
              "agent-child-loader",
              "50",
              "800");

      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("APP_CALLBACKS")).isEqualTo("25");
      assertThat(app.output())
          .containsOnlyOnce("is not visible to the klat agent")
          .doesNotContain("hook failed")
          .doesNotContain("NoClassDefFoundError");
      for (ConsumerRecord<String, String> record :
          RecordsOnTopic.readAll(cluster, "agent-child-loader", 50 + EXTRA_RECORDS)) {
        assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING)).isZero();
      }
      assertThat(receiver.spans()).isEmpty();
    }
  }

  @Test
  void unreachableCollectorChangesNothingForTheApplication() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("agent-no-collector").build());
    // A port nothing listens on: every export fails, the application must not notice.
    String closedEndpoint = "http://127.0.0.1:" + closedPort();
    AppJvm.Result app =
        AppJvm.run(
            "4.4.0",
            AppJvm.agentOptions(closedEndpoint, "1.0"),
            ProducerApp.class,
            cluster.bootstrapServers(),
            "agent-no-collector",
            "100",
            "800");

    assertThat(app.exitCode()).as(app.output()).isZero();
    assertThat(app.value("APP_CALLBACKS")).isEqualTo("50");
    assertThat(RecordsOnTopic.readAll(cluster, "agent-no-collector", 100 + EXTRA_RECORDS))
        .hasSize(100 + EXTRA_RECORDS);
  }

  private static int closedPort() throws Exception {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}

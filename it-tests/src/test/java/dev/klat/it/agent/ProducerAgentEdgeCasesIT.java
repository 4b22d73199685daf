package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The producer paths where a record does not simply succeed, on real brokers with the agent: a
 * failed record counts as a failure and never as a latency, and the instants of records that do
 * succeed stay right through acks=0, transactions and split batches.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ProducerAgentEdgeCasesIT {

  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(1);

  @Test
  void expiredBatchesCountAsFailuresNotAsLatencies() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("expiring").build());
    Broker broker = cluster.broker(1);
    Path proceed = Files.createTempFile("klat-proceed", ".marker");
    Files.delete(proceed);
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Running app =
          AppJvm.start(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "0"),
              EdgeCaseApp.class,
              "expire",
              cluster.bootstrapServers(),
              "expiring",
              "40",
              AppJvm.LINGER_MILLIS,
              proceed.toString());
      app.awaitLine("PHASE=sent-first-half");
      broker.pause();
      AppJvm.Result result;
      try {
        Files.createFile(proceed);
        result = app.await();
      } finally {
        broker.resume();
      }

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.value("ACKED")).isEqualTo("20");
      assertThat(result.value("FAILED")).isEqualTo("20");
      HistogramDataPoint latency =
          receiver.latestHistogram(
              MetricDef.PRODUCER_LATENCY.name(), "topic", "expiring", "client_id", "edge-expire");
      assertThat(latency.getCount()).as("only acknowledged records are latencies").isEqualTo(20);
      assertThat(
              receiver.latestCounter(
                  MetricDef.PRODUCER_RECORDS_FAILED.name(),
                  "topic",
                  "expiring",
                  "reason",
                  "TimeoutException"))
          .isEqualTo(20L);
    }
  }

  @Test
  void recordsThatFailInsideSendAreCountedAsFailures() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("oversized").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result result =
          AppJvm.run(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "0"),
              EdgeCaseApp.class,
              "oversized",
              cluster.bootstrapServers(),
              "oversized",
              "40",
              AppJvm.LINGER_MILLIS);

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.value("ACKED")).isEqualTo("30");
      assertThat(result.value("FAILED")).isEqualTo("10");
      assertThat(
              receiver
                  .latestHistogram(MetricDef.PRODUCER_LATENCY.name(), "topic", "oversized")
                  .getCount())
          .isEqualTo(30);
      assertThat(
              receiver.latestCounter(
                  MetricDef.PRODUCER_RECORDS_FAILED.name(),
                  "topic",
                  "oversized",
                  "reason",
                  "RecordTooLargeException"))
          .isEqualTo(10L);
    }
  }

  @Test
  void acksZeroRecordsAreTimedWithoutOffsets() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("fire-and-forget").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result result =
          AppJvm.run(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              EdgeCaseApp.class,
              "acks0",
              cluster.bootstrapServers(),
              "fire-and-forget",
              "50",
              AppJvm.LINGER_MILLIS);

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.value("ACKED")).isEqualTo("50");
      assertThat(
              receiver
                  .latestHistogram(
                      MetricDef.PRODUCER_PRODUCE_LATENCY.name(), "topic", "fire-and-forget")
                  .getCount())
          .isEqualTo(50);
      List<Span> spans = receiver.awaitSpans(50);
      assertThat(spans).hasSize(50);
      for (Span span : spans) {
        // acks=0: no response, so no offset; the span still has its instants.
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name()))
            .isNull();
        assertThat(OtlpReceiver.stringAttribute(span, SpanAttributes.PRODUCER_ACKS.name()))
            .isEqualTo("0");
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.DRAIN_TIME.name()))
            .isBetween(span.getStartTimeUnixNano(), span.getEndTimeUnixNano());
      }
    }
  }

  /**
   * Section 9 of the latency model: a committed transaction's sampled spans carry the transactional
   * flag and C (its commitTransaction() return, after A), an aborted one's the abort, and the
   * read_committed consumer's spans its isolation level; on the oldest and newest clients, whose
   * commit, abort and close the agent hooks.
   */
  @ParameterizedTest(name = "kafka-clients {0}")
  @ValueSource(strings = {"2.8.2", "4.4.0"})
  void transactionalRecordsAreTracedCommittedAndAborted(String clientsVersion) throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "transactional-" + clientsVersion.replace('.', '-');
    cluster.createTopic(TopicSpec.named(topic).build());
    int committed = 30;
    int aborted = EdgeCaseApp.ABORTED_RECORDS;
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result result =
          AppJvm.run(
              clientsVersion,
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              EdgeCaseApp.class,
              "transactional",
              cluster.bootstrapServers(),
              topic,
              Integer.toString(committed),
              AppJvm.LINGER_MILLIS);

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).doesNotContain("hook skipped");
      assertThat(result.value("ACKED")).isEqualTo(Integer.toString(committed + aborted));
      assertThat(result.value("READ_COMMITTED")).isEqualTo(Integer.toString(committed));
      List<Span> spans = receiver.awaitSpans(2 * committed + aborted);
      List<Span> producerSpans =
          spans.stream()
              .filter(span -> span.getKind() == Span.SpanKind.SPAN_KIND_PRODUCER)
              .toList();
      List<Span> consumerSpans =
          spans.stream()
              .filter(span -> span.getKind() == Span.SpanKind.SPAN_KIND_CONSUMER)
              .toList();
      assertThat(producerSpans).hasSize(committed + aborted);
      int committedSpans = 0;
      for (Span span : producerSpans) {
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name()))
            .isNotNull();
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.PRODUCER_TRANSACTIONAL.name()))
            .isEqualTo(1L);
        Long commit = OtlpReceiver.longAttribute(span, SpanAttributes.TXN_COMMIT_TIME.name());
        String errorType = OtlpReceiver.stringAttribute(span, SpanAttributes.ERROR_TYPE.name());
        if (commit != null) {
          committedSpans++;
          assertThat(commit)
              .isGreaterThanOrEqualTo(
                  OtlpReceiver.longAttribute(span, SpanAttributes.ACK_TIME.name()));
          assertThat(errorType).isNull();
        } else {
          assertThat(errorType).isEqualTo("transaction-aborted");
        }
      }
      assertThat(committedSpans).isEqualTo(committed);
      assertThat(consumerSpans).hasSize(committed);
      assertThat(consumerSpans)
          .allSatisfy(
              span ->
                  assertThat(
                          OtlpReceiver.stringAttribute(
                              span, SpanAttributes.CONSUMER_ISOLATION_LEVEL.name()))
                      .isEqualTo("read_committed"));
      assertThat(
              receiver
                  .latestHistogram(MetricDef.PRODUCER_LATENCY.name(), "topic", topic)
                  .getCount())
          .isEqualTo(committed + aborted);
    }
  }

  @Test
  void splitBatchesAreTimedByTheBatchThatSucceeded() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("too-large").config("max.message.bytes", "5000").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result result =
          AppJvm.run(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              EdgeCaseApp.class,
              "split",
              cluster.bootstrapServers(),
              "too-large",
              "400",
              AppJvm.LINGER_MILLIS);

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(Double.parseDouble(result.value("BATCH_SPLITS"))).isPositive();
      assertThat(result.value("ACKED")).isEqualTo("400");
      assertThat(result.value("FAILED")).isEqualTo("0");
      List<Span> spans = receiver.awaitSpans(400);
      assertThat(spans).hasSize(400);
      for (Span span : spans) {
        long drain = OtlpReceiver.longAttribute(span, SpanAttributes.DRAIN_TIME.name());
        assertThat(drain).isBetween(span.getStartTimeUnixNano(), span.getEndTimeUnixNano());
        // Every record is reported with a batch the broker accepted: within the topic's limit.
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.BATCH_SIZE_BYTES.name()))
            .isLessThanOrEqualTo(5000);
      }
      assertThat(
              receiver
                  .latestHistogram(MetricDef.PRODUCER_PRODUCE_LATENCY.name(), "topic", "too-large")
                  .getCount())
          .isEqualTo(400);
    }
  }
}

package dev.klat.collector.scale.ingest;

import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.SpanTopicSettings;
import dev.klat.collector.receive.MalformedException;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ingest role against one real broker: topics created, records keyed and readable. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KafkaIngestTest {
  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(1);

  static SpanTopicSettings topics;
  static KafkaIngest ingest;

  @BeforeAll
  static void start() {
    // Replication 3 asked, one broker there: the topics get one replica.
    topics =
        new SpanTopicSettings(
            kafka.cluster().bootstrapServers(),
            "klat-spans",
            "klat-metrics",
            "klat-logs",
            "klat-collector",
            2,
            (short) 3);
    ingest = KafkaIngest.start(topics);
  }

  @AfterAll
  static void stop() {
    if (ingest != null) {
      ingest.close();
    }
  }

  @Test
  void aTraceRequestLandsAsOneRecordPerTraceKeyedByHexTraceId() throws Exception {
    byte[] body = TraceRequests.threeTraces().toByteArray();

    ingest.traces(body, body.length, false);

    List<ConsumerRecord<byte[], byte[]>> records = readAll(topics.spansTopic(), 3);
    assertThat(records)
        .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
        .containsExactlyInAnyOrder(
            TraceRequests.key(TraceRequests.TRACE_A),
            TraceRequests.key(TraceRequests.TRACE_B),
            TraceRequests.key(TraceRequests.TRACE_C));
    List<String> spanNames = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      ExportTraceServiceRequest piece = ExportTraceServiceRequest.parseFrom(record.value());
      for (ResourceSpans rs : piece.getResourceSpansList()) {
        assertThat(rs.getResource().getAttributesList()).isNotEmpty();
        for (ScopeSpans ss : rs.getScopeSpansList()) {
          for (Span span : ss.getSpansList()) {
            assertThat(TraceRequests.key(span.getTraceId().asReadOnlyByteBuffer().getLong(8)))
                .isEqualTo(new String(record.key(), StandardCharsets.UTF_8));
            spanNames.add(span.getName());
          }
        }
      }
    }
    assertThat(spanNames)
        .containsExactlyInAnyOrder(
            "span-1", "span-2", "span-3", "span-4", "span-5", "span-6", "span-7");
    assertThat(ingest.stats().spansForwarded()).isEqualTo(7);
  }

  @Test
  void aMetricsRequestLandsWholeKeyedByTheAgentsInstanceId() throws Exception {
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(str("service.instance.id", "pod-7"))
                            .addAttributes(str("klat.instance.id", "agent-1"))))
            .build();
    byte[] body = request.toByteArray();

    ingest.metrics(body, body.length, false);

    List<ConsumerRecord<byte[], byte[]>> records = readAll(topics.metricsTopic(), 1);
    assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("agent-1");
    assertThat(ExportMetricsServiceRequest.parseFrom(records.get(0).value())).isEqualTo(request);
  }

  @Test
  void jsonIsRefusedWithTheReason() {
    byte[] json = "{\"resourceSpans\":[]}".getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> ingest.traces(json, json.length, true))
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("forwards OTLP protobuf only");
  }

  /** Every record of the topic, from the start, once {@code expected} of them have arrived. */
  static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected) {
    Properties p = kafka.cluster().clientProperties();
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (records.size() < expected && System.nanoTime() < deadlineNanos) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      assertThat(records).hasSize(expected);
      return records;
    }
  }
}

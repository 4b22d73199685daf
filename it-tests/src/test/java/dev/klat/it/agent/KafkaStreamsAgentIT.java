package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.trace.v1.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Kafka Streams application with the agent, as docs/attach.md promises: Streams' own consumer and
 * producer are instrumented, the topology's results are unchanged, and the output records, whose
 * headers Streams copies from the input records, carry klat's headers exactly once.
 */
class KafkaStreamsAgentIT {

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  @Test
  void aStreamsApplicationIsInstrumentedAndItsOutputUnchanged() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String input = "streams-in";
    String output = "streams-out";
    String applicationId = "klat-streams-it";
    cluster.createTopics(TopicSpec.named(input).build(), TopicSpec.named(output).build());
    int records = 200;

    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> agent = AppJvm.agentOptions(receiver.endpoint(), "1.0");
      AppJvm.Result produced =
          AppJvm.run(
              "4.4.0",
              agent,
              ConsumerApp.class,
              "produce",
              cluster.bootstrapServers(),
              input,
              "unused",
              "classic",
              Integer.toString(records),
              "2",
              AppJvm.LINGER_MILLIS);
      assertThat(produced.exitCode()).as(produced.output()).isZero();

      AppJvm.Result streams =
          AppJvm.run(
              "4.3.1-streams",
              agent,
              StreamsApp.class,
              cluster.bootstrapServers(),
              applicationId,
              input,
              output,
              Integer.toString(records));
      assertThat(streams.exitCode()).as(streams.output()).isZero();
      assertThat(streams.value("PROCESSED")).isEqualTo(Integer.toString(records));
      assertThat(streams.output()).contains("klat agent started").doesNotContain("Exception");
      assertThat(receiver.errors()).isEmpty();

      // The output is what the topology makes, and each record carries one traceparent and one
      // klat header: the stamp of the Streams producer, not a second one next to the input's.
      List<ConsumerRecord<String, String>> out = readAll(cluster, output, records);
      assertThat(out).hasSize(records);
      for (ConsumerRecord<String, String> record : out) {
        assertThat(record.value()).isEqualTo(record.value().toUpperCase(java.util.Locale.ROOT));
        assertThat(count(record, HeaderNames.TRACEPARENT)).as(record.toString()).isEqualTo(1);
        assertThat(count(record, HeaderNames.TIMING)).as(record.toString()).isEqualTo(1);
      }

      // Streams' consumer reported the input records under the application id as group, and its
      // producer the output records with their offsets.
      receiver.awaitSpans(3 * records);
      Set<Long> consumedOffsets = new TreeSet<>();
      Set<Long> producedOffsets = new TreeSet<>();
      for (Span span : receiver.spans()) {
        String topic =
            OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_DESTINATION_NAME.name());
        long offset =
            OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
        if (span.getKind() == Span.SpanKind.SPAN_KIND_CONSUMER && input.equals(topic)) {
          assertThat(
                  OtlpReceiver.stringAttribute(
                      span, SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name()))
              .isEqualTo(applicationId);
          OtlpReceiver.pollTimeAfterFetch(span);
          consumedOffsets.add(offset);
        }
        if (span.getKind() == Span.SpanKind.SPAN_KIND_PRODUCER && output.equals(topic)) {
          producedOffsets.add(offset);
        }
      }
      assertThat(consumedOffsets).hasSize(records);
      assertThat(producedOffsets).hasSize(records);
      assertThat(receiver.latestHistogram(MetricDef.PRODUCER_LATENCY.name(), "topic", output))
          .as("every-record producer histogram of the Streams producer")
          .isNotNull();
    }
  }

  private static int count(ConsumerRecord<String, String> record, String header) {
    int n = 0;
    for (Header h : record.headers()) {
      if (h.key().equals(header)) {
        n++;
      }
    }
    return n;
  }

  private static List<ConsumerRecord<String, String>> readAll(
      KafkaCluster cluster, String topic, int expected) {
    Properties p = new Properties();
    p.put("bootstrap.servers", cluster.bootstrapServers());
    p.put("group.id", "streams-it-reader");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(Collections.singletonList(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (out.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }
}

package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.tools.attach.VirtualMachine;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code klat attach PID} on applications that are already producing and consuming, a plain JVM and
 * a Spring Boot executable jar (whose kafka-clients is in Spring Boot's own class loader): their
 * kafka-clients classes were loaded long before the agent, so the agent retransforms them (hooks
 * only, no new fields) and keeps the clients' state beside them. The producer and the consumer are
 * instrumented from their next record on: the records sent after the attach carry the timing
 * header, both sides export spans and every-record histograms, and a second attach is refused. An
 * application that creates its first producer after the attach is woven as with {@code -javaagent}.
 */
class RuntimeAttachIT {
  private static final int RECORDS = 250;
  private static final String TOPIC = "runtime-attach";

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  @Test
  void aProducerAndAConsumerAlreadyRunningAreInstrumentedFromTheirNextRecordOn() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named(TOPIC).build());
    cluster.createTopic(TopicSpec.named(TOPIC + "-warmup").build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Running app =
          AppJvm.start(
              "4.4.0",
              List.of(),
              ConsumerApp.class,
              "e2e",
              cluster.bootstrapServers(),
              TOPIC,
              TOPIC + "-group",
              "classic",
              Integer.toString(RECORDS),
              "20",
              AppJvm.LINGER_MILLIS);
      awaitRecords(cluster, TOPIC, 20);

      AppJvm.Result attach = attach(app.pid(), receiver.endpoint());
      assertThat(attach.exitCode()).as(attach.output()).isZero();
      assertThat(attach.output()).contains("klat attached to JVM " + app.pid());
      AppJvm.Result again = attach(app.pid(), receiver.endpoint());
      assertThat(again.exitCode()).as(again.output()).isEqualTo(1);
      assertThat(again.output()).contains("attaching twice is refused");

      AppJvm.Result result = app.await(Duration.ofSeconds(90));
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output())
          .contains("klat agent started")
          .contains("kafka-clients classes already loaded were instrumented")
          .doesNotContain("hook failed")
          .doesNotContain("could not instrument");

      List<ConsumerRecord<String, String>> records =
          RecordsOnTopic.readAll(cluster, TOPIC, RECORDS);
      long stamped =
          records.stream()
              .filter(r -> RecordsOnTopic.headerCount(r, HeaderNames.TIMING) == 1)
              .count();
      assertThat(RecordsOnTopic.headerCount(records.get(0), HeaderNames.TIMING))
          .as("sent before the attach")
          .isZero();
      assertThat(RecordsOnTopic.headerCount(records.get(RECORDS - 1), HeaderNames.TIMING))
          .as("sent after the attach")
          .isEqualTo(1);

      List<Span> spans = receiver.awaitSpans((int) (2 * stamped));
      long producerSpans =
          spans.stream().filter(s -> isOf(s, Span.SpanKind.SPAN_KIND_PRODUCER)).count();
      long consumerSpans =
          spans.stream().filter(s -> isOf(s, Span.SpanKind.SPAN_KIND_CONSUMER)).count();
      assertThat(producerSpans).as("a span for each stamped record").isEqualTo(stamped);
      // Records the consumer had fetched before its classes were retransformed reach poll()
      // without the fetch's stamp, and get no span (2 of 208 in one run): one fetch's worth at
      // most.
      assertThat(consumerSpans)
          .as("the consumer's span of each stamped record fetched after the attach")
          .isBetween(stamped - 20, stamped);

      HistogramDataPoint producerLatency =
          receiver.latestHistogram(MetricDef.PRODUCER_LATENCY.name(), "topic", TOPIC);
      HistogramDataPoint e2eLatency =
          receiver.latestHistogram(MetricDef.E2E_LATENCY.name(), "topic", TOPIC);
      assertThat(producerLatency).isNotNull();
      assertThat(e2eLatency).isNotNull();
      // The records sent after the attach, and none before, give or take the few in send() or in
      // a poll at the moment the classes were swapped (one fewer than stamped, in one run).
      assertThat(producerLatency.getCount()).isBetween(stamped - 5, (long) RECORDS - 1);
      assertThat(e2eLatency.getCount()).isBetween(stamped - 5, (long) RECORDS - 1);
    }
  }

  @Test
  void aSpringBootApplicationAlreadyRunningIsInstrumentedFromItsNextRecordOn() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String orders = "attach-sb-orders";
    String payments = "attach-sb-payments";
    cluster.createTopic(TopicSpec.named(orders).build());
    cluster.createTopic(TopicSpec.named(payments).build());
    int records = 300;
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Running app =
          AppJvm.startJar(
              Paths.get(System.getProperty("klat.spring-boot3.jar")),
              List.of(),
              "--spring.kafka.bootstrap-servers=" + cluster.bootstrapServers(),
              "--app.records=" + records,
              "--app.topic=" + orders,
              "--app.batch-topic=" + payments,
              // Groups of its own: SpringBootAgentIT's applications use the defaults on the same
              // shared broker.
              "--app.group=attach-sb-billing",
              "--app.batch-group=attach-sb-ledger");
      awaitRecords(cluster, orders, 20);

      AppJvm.Result attach = attach(app.pid(), receiver.endpoint());
      assertThat(attach.exitCode()).as(attach.output()).isZero();

      AppJvm.Result result = app.await(Duration.ofSeconds(90));
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output())
          .contains("klat's hooks were defined in that class loader")
          .contains("kafka-clients classes already loaded were instrumented")
          .doesNotContain("hook failed")
          .doesNotContain("could not instrument");
      List<ConsumerRecord<String, String>> sent = RecordsOnTopic.readAll(cluster, orders, records);
      assertThat(RecordsOnTopic.headerCount(sent.get(0), HeaderNames.TIMING)).isZero();
      assertThat(RecordsOnTopic.headerCount(sent.get(records - 1), HeaderNames.TIMING))
          .isEqualTo(1);
      assertThat(receiver.awaitSpans(1)).isNotEmpty();
      HistogramDataPoint e2e =
          receiver.latestHistogram(MetricDef.E2E_LATENCY.name(), "topic", payments);
      assertThat(e2e).as("the batch listener's end-to-end histogram").isNotNull();
      assertThat(e2e.getCount()).isBetween(1L, (long) records - 1);
    }
  }

  @Test
  void attachingToARunningJvmInstrumentsProducersCreatedAfterwards() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("late-attach").build());
    Path marker = Files.createTempDirectory("late-attach").resolve("attached");
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      // The agent's settings are the JVM's system properties; only -javaagent is left out.
      List<String> options =
          AppJvm.agentOptions(receiver.endpoint(), "1.0").stream()
              .filter(option -> !option.startsWith("-javaagent:"))
              .toList();
      AppJvm.Running app =
          AppJvm.start(
              "4.4.0",
              options,
              LateAttachLauncher.class,
              marker.toString(),
              cluster.bootstrapServers(),
              "late-attach",
              "20",
              AppJvm.LINGER_MILLIS);
      app.awaitLine("PHASE=waiting-for-agent");
      VirtualMachine vm = VirtualMachine.attach(Long.toString(app.pid()));
      try {
        vm.loadAgent(AppJvm.AGENT_JAR.toString());
      } finally {
        vm.detach();
      }
      Files.createFile(marker);
      AppJvm.Result result = app.await();

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("klat agent started");
      assertThat(receiver.awaitSpans(20 + ProducerAgentIT.EXTRA_RECORDS))
          .hasSize(20 + ProducerAgentIT.EXTRA_RECORDS);
      assertThat(
              receiver
                  .latestHistogram(MetricDef.PRODUCER_LATENCY.name(), "topic", "late-attach")
                  .getCount())
          .isEqualTo(20 + ProducerAgentIT.EXTRA_RECORDS);
    }
  }

  private static boolean isOf(Span span, Span.SpanKind kind) {
    return span.getKind() == kind
        && TOPIC.equals(
            OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_DESTINATION_NAME.name()));
  }

  // klat attach, as ./klat runs it: the agent jar's AttachCommand in a JVM of its own.
  private static AppJvm.Result attach(long pid, String endpoint) throws Exception {
    Process process =
        new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                AppJvm.AGENT_JAR.toString(),
                "dev.klat.agent.AttachCommand",
                Long.toString(pid),
                "klat.endpoint=" + endpoint,
                "klat.sampling.probability=1.0",
                "klat.sampling.max-per-second=100000",
                "klat.metrics.interval=500ms")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(output).isTrue();
    return new AppJvm.Result(process.exitValue(), output);
  }

  // Waits until the application has sent this many records of the topic.
  private static void awaitRecords(KafkaCluster cluster, String topic, long records)
      throws Exception {
    TopicPartition partition = new TopicPartition(topic, 0);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = cluster.admin()) {
      while (System.nanoTime() < deadline) {
        long end =
            admin
                .listOffsets(Map.of(partition, OffsetSpec.latest()))
                .partitionResult(partition)
                .get()
                .offset();
        if (end >= records) {
          return;
        }
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the application did not send " + records + " records in 60 s");
  }
}

package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 46 on a JVM that runs only the OpenTelemetry Java agent (2.x, no klat agent): a plain
 * kafka-clients 4.4 application ({@link OtelClientsApp}) exporting traces, metrics and logs over
 * OTLP/HTTP to klat's collector, a broker with klat's probe. Three streams side by side, each its
 * own topic, producer and consumer group: a control, a producer with {@code linger.ms=100}
 * (produce+publish) and a consumer that works 30 ms a record (catch-up+fetch). Every record is
 * joined (the Java agent's producer span names the partition and offset at the acknowledgement, the
 * consumer's process span is its child) into an {@code opentelemetry} breakdown, never a sampled or
 * tail one; commit is the probe's, exact; the combined segments add up to the end to end; each
 * delay lands in its segment within the accuracy suite's tolerance ({@link OtelClients}); and the
 * agent's metric points and log records are counted and ignored, nothing rejected.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OtelJavaClientsIT {
  private static final Path OTEL_AGENT = Paths.get(System.getProperty("klat.otel.agent.jar"));
  private static final int BURSTS = 32;
  private static final int BURST_SIZE = 5;
  private static final int INTERVAL_MS = 250;
  private static final int RECORDS = BURSTS * BURST_SIZE;

  private static final String CONTROL = "java-control";
  private static final String LINGER = "java-linger";
  private static final String SLOW_CONSUMER = "java-slow-consumer";

  @Test
  void javaAgentRecordsAreJoinedWithTheProbesInstantsAndEachDelayLandsInItsSegment()
      throws Exception {
    long started = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    String endpoint = "http://127.0.0.1:" + otlpPort;
    Path probe = Paths.get(System.getProperty("klat.broker-probe.jar"));
    try (KafkaCluster cluster =
            KafkaClusterSpec.brokers(1).name("otel-java").brokerProbe(probe, endpoint).start();
        OtlpReceiver tempo = new OtlpReceiver()) {
      for (String topic : List.of(CONTROL, LINGER, SLOW_CONSUMER)) {
        cluster.createTopic(TopicSpec.named(topic).build());
      }
      Process collector =
          CollectorEndToEndIT.startCollector(
              otlpPort,
              adminPort,
              "--otlp.grpc.enabled=false",
              "--traces.endpoint=" + tempo.endpoint());
      try {
        CollectorEndToEndIT.awaitHealthy(adminPort, collector);
        BrokerProbeIT.awaitLiveProbes(adminPort, 1);
        System.out.printf(
            "cluster, collector and probe ready in %d ms%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

        long appStarted = System.nanoTime();
        AppJvm.Result app =
            AppJvm.start(
                    "4.4.0",
                    List.of(
                        "-javaagent:" + OTEL_AGENT,
                        "-Dotel.service.name=otel-java-it",
                        "-Dotel.exporter.otlp.protocol=http/protobuf",
                        "-Dotel.exporter.otlp.endpoint=" + endpoint,
                        "-Dotel.bsp.schedule.delay=200",
                        "-Dotel.metric.export.interval=500"),
                    OtelClientsApp.class,
                    cluster.bootstrapServers(),
                    Integer.toString(BURSTS),
                    Integer.toString(BURST_SIZE),
                    Integer.toString(INTERVAL_MS),
                    CONTROL + ":0:0",
                    LINGER + ":100:0",
                    SLOW_CONSUMER + ":0:30")
                .await(Duration.ofSeconds(90));
        System.out.printf(
            "application ran %d ms%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - appStarted));
        assertThat(app.exitCode()).as(app.output()).isZero();
        assertThat(app.output()).contains("opentelemetry-javaagent - version:");
        Map<String, OtelClients.Truth> truths = OtelClients.truths(app.output());
        assertThat(truths.values())
            .as(app.output())
            .hasSize(3)
            .allSatisfy(t -> assertThat(t.count()).isEqualTo(RECORDS));

        OtelClients.assertSpansRead(adminPort, 3 * RECORDS, 3 * RECORDS);
        long deadline = OtelClients.breakdownDeadline();
        JsonNode control = awaitOpentelemetry(adminPort, CONTROL, deadline);
        JsonNode linger = awaitOpentelemetry(adminPort, LINGER, deadline);
        JsonNode slowConsumer = awaitOpentelemetry(adminPort, SLOW_CONSUMER, deadline);
        String stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
        System.out.println("stats: " + stats);
        assertThat(stats)
            .as(stats)
            .contains("\"spansRejected\":0")
            .contains("\"pointsRejected\":0")
            .doesNotContain("requestsRejected.");
        // The agent's own metrics and its log records (/v1/logs, the probe's path): counted and
        // ignored, never read as klat's.
        assertThat(BrokerProbeIT.number(stats, "metricPointsIgnored")).as(stats).isPositive();
        assertThat(BrokerProbeIT.number(stats, "probeRecordsNotKlat")).as(stats).isPositive();
        assertThat(BrokerProbeIT.number(stats, "probeRecordsRejected")).as(stats).isZero();

        OtelClients.assertJoinCounts(adminPort, 3 * RECORDS);
        for (JsonNode answer : List.of(control, linger, slowConsumer)) {
          OtelClients.assertJoined(answer, RECORDS);
          String topic = answer.path("topic").asText();
          OtelClients.assertExportedTracesAddUp(tempo, topic, topic + "-group", RECORDS);
        }
        OtelClients.Truth controlTruth = truths.get(CONTROL);
        OtelClients.assertDelayLandsIn(
            OtelClients.PRODUCE_AND_PUBLISH, linger, truths.get(LINGER), control, controlTruth);
        OtelClients.assertDelayLandsIn(
            OtelClients.CATCH_UP_AND_FETCH,
            slowConsumer,
            truths.get(SLOW_CONSUMER),
            control,
            controlTruth);
        System.out.printf(
            "OtelJavaClientsIT took %d ms%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  // The Java agent writes the consumer group: klat's group is the application's.
  private static JsonNode awaitOpentelemetry(int adminPort, String topic, long deadline)
      throws Exception {
    return OtelClients.awaitOpentelemetry(adminPort, topic, topic + "-group", RECORDS, deadline);
  }
}

package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.testsupport.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 46 on real Node.js clients: kafkajs 2.2.4 producers and consumers instrumented by
 * OpenTelemetry's own {@code @opentelemetry/instrumentation-kafkajs} and Node SDK, exporting
 * OTLP/HTTP to klat's collector, with no klat agent anywhere; a broker with klat's probe. The
 * clients ({@code it-apps/otel-node}, installed by {@code ./klat test} with {@code npm ci}) run
 * four streams side by side, each its own topic, producer and consumer group, and measure each
 * record's end to end on their one clock:
 *
 * <ul>
 *   <li>control: no delay;
 *   <li>producer delay: every write of the producer's connections held 100 ms (kafkajs's {@code
 *       socketFactory}), after {@code send()} started the producer span: produce+publish;
 *   <li>slow {@code eachMessage}: 30 ms of work a record, so the later records of a burst wait for
 *       the earlier ones: catch-up+fetch;
 *   <li>slow {@code eachBatch}: 400 ms of work a batch, longer than the 250 ms between bursts, so
 *       the records that arrive meanwhile wait for the next fetch: catch-up+fetch.
 * </ul>
 *
 * Every record is joined (the {@code eachMessage} consumer spans name their producer span as
 * parent, the {@code eachBatch} ones as a span link) into an {@code opentelemetry} breakdown, never
 * a sampled or tail one; commit is the probe's, exact; the three combined segments add up to the
 * end to end; and each delay lands in its segment within the accuracy suite's tolerance ({@link
 * OtelClients}). Node.js does not depend on the JDK: the test runs in one CI pass ({@code
 * jdk-independent}).
 */
@Tag("jdk-independent")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OtelNodeClientsIT {
  private static final Path CLIENTS = Paths.get(System.getProperty("klat.otel-node.dir"));
  private static final String SKIPPED = "OtelNodeClientsIT (kafkajs with OpenTelemetry)";
  private static final String SERVICE = "otel-node-it";
  // kafkajs's instrumentation writes no consumer group: klat names the group after the service.
  private static final String GROUP = "service:" + SERVICE;
  private static final int BURSTS = 32;
  private static final int BURST_SIZE = 5;
  private static final int INTERVAL_MS = 250;
  private static final int RECORDS = BURSTS * BURST_SIZE;

  private static final String CONTROL = "node-control";
  private static final String PRODUCER_DELAY = "node-producer-delay";
  private static final String SLOW_EACH_MESSAGE = "node-slow-each-message";
  private static final String SLOW_EACH_BATCH = "node-slow-each-batch";

  @Test
  void kafkajsRecordsAreJoinedWithTheProbesInstantsAndEachDelayLandsInItsSegment()
      throws Exception {
    Path node = RequiredTool.NODE.require(SKIPPED);
    requireInstalledPackages();
    long started = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    Path probe = Paths.get(System.getProperty("klat.broker-probe.jar"));
    try (KafkaCluster cluster =
            KafkaClusterSpec.brokers(1)
                .name("otel-node")
                .brokerProbe(probe, "http://127.0.0.1:" + otlpPort)
                .start();
        OtlpReceiver tempo = new OtlpReceiver()) {
      for (String topic : List.of(CONTROL, PRODUCER_DELAY, SLOW_EACH_MESSAGE, SLOW_EACH_BATCH)) {
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

        String output =
            runClients(
                node,
                cluster.bootstrapServers(),
                "http://127.0.0.1:" + otlpPort,
                CONTROL + ":0:0:eachMessage",
                PRODUCER_DELAY + ":100:0:eachMessage",
                SLOW_EACH_MESSAGE + ":0:30:eachMessage",
                SLOW_EACH_BATCH + ":0:400:eachBatch");
        Map<String, OtelClients.Truth> truths = OtelClients.truths(output);
        assertThat(truths.values())
            .as(output)
            .hasSize(4)
            .allSatisfy(t -> assertThat(t.count()).isEqualTo(RECORDS));

        // One producer and one consumer record span a record; eachBatch's receive spans are
        // batch spans, counted apart.
        String stats = OtelClients.assertSpansRead(adminPort, 4 * RECORDS, 4 * RECORDS);
        assertThat(BrokerProbeIT.number(stats, "otelSpans.batch")).as(stats).isPositive();
        long deadline = OtelClients.breakdownDeadline();
        JsonNode control = awaitOpentelemetry(adminPort, CONTROL, deadline);
        JsonNode producerDelay = awaitOpentelemetry(adminPort, PRODUCER_DELAY, deadline);
        JsonNode slowEachMessage = awaitOpentelemetry(adminPort, SLOW_EACH_MESSAGE, deadline);
        JsonNode slowEachBatch = awaitOpentelemetry(adminPort, SLOW_EACH_BATCH, deadline);
        stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
        System.out.println("stats: " + stats);
        assertThat(stats)
            .as(stats)
            .contains("\"spansRejected\":0")
            .doesNotContain("requestsRejected.");

        OtelClients.assertJoinCounts(adminPort, 4 * RECORDS);
        for (JsonNode answer : List.of(control, producerDelay, slowEachMessage, slowEachBatch)) {
          OtelClients.assertJoined(answer, RECORDS);
          OtelClients.assertExportedTracesAddUp(
              tempo, answer.path("topic").asText(), GROUP, RECORDS);
        }
        OtelClients.Truth controlTruth = truths.get(CONTROL);
        OtelClients.assertDelayLandsIn(
            OtelClients.PRODUCE_AND_PUBLISH,
            producerDelay,
            truths.get(PRODUCER_DELAY),
            control,
            controlTruth);
        OtelClients.assertDelayLandsIn(
            OtelClients.CATCH_UP_AND_FETCH,
            slowEachMessage,
            truths.get(SLOW_EACH_MESSAGE),
            control,
            controlTruth);
        OtelClients.assertDelayLandsIn(
            OtelClients.CATCH_UP_AND_FETCH,
            slowEachBatch,
            truths.get(SLOW_EACH_BATCH),
            control,
            controlTruth);
        System.out.printf(
            "OtelNodeClientsIT took %d ms%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  private static JsonNode awaitOpentelemetry(int adminPort, String topic, long deadline)
      throws Exception {
    return OtelClients.awaitOpentelemetry(adminPort, topic, GROUP, RECORDS, deadline);
  }

  /** Skips (fails under CI=true) when the npm packages the lock file pins are not installed. */
  private static void requireInstalledPackages() throws Exception {
    JsonNode lock = OtelClients.read(Files.readString(CLIENTS.resolve("package-lock.json")));
    List<String> missing = new ArrayList<>();
    for (Iterator<String> names = lock.path("packages").path("").path("dependencies").fieldNames();
        names.hasNext(); ) {
      String name = names.next();
      String version = lock.path("packages").path("node_modules/" + name).path("version").asText();
      Path installed = CLIENTS.resolve("node_modules").resolve(name).resolve("package.json");
      if (!Files.isRegularFile(installed)
          || !version.equals(
              OtelClients.read(Files.readString(installed)).path("version").asText())) {
        missing.add(name + "@" + version);
      }
    }
    RequiredTool.require(
        missing.isEmpty(),
        String.join(", ", missing)
            + " not installed in "
            + CLIENTS
            + " (npm ci --prefix it-apps/otel-node)",
        SKIPPED);
  }

  /** Runs the clients to their end (90 s at most) and returns their output; exit code 0. */
  private static String runClients(Path node, String bootstrap, String endpoint, String... streams)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                node.toString(),
                "--require",
                "./tracing.js",
                "clients.js",
                "brokers=" + bootstrap,
                "bursts=" + BURSTS,
                "burst-size=" + BURST_SIZE,
                "interval-ms=" + INTERVAL_MS));
    for (String stream : streams) {
      command.add("stream=" + stream);
    }
    Path logs = Files.createDirectories(Paths.get("target", "app-logs"));
    Path log = Files.createTempFile(logs, "otel-node-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(CLIENTS.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // The OpenTelemetry Node SDK's own settings, as an application is configured.
    Map<String, String> env = builder.environment();
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    env.put("OTEL_SERVICE_NAME", SERVICE);
    env.put("OTEL_BSP_SCHEDULE_DELAY", "200");
    env.put("KAFKAJS_NO_PARTITIONER_WARNING", "1");
    long started = System.nanoTime();
    Process clients = builder.start();
    boolean ended = clients.waitFor(90, TimeUnit.SECONDS);
    if (!ended) {
      clients.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("the Node clients ended in 90 s:%n%s", output).isTrue();
    assertThat(clients.exitValue()).as(output).isZero();
    System.out.printf(
        "Node clients ran %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    return output;
  }
}

package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.testsupport.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A librdkafka producer that pushes its own metrics (KIP-714): {@code it-apps/rdkafka-node}, where
 * {@code ./klat test} compiles node-rdkafka with the librdkafka it bundles (2.12.0; 2.5+ pushes).
 * Each record waits {@code linger.ms=100} in librdkafka's queue; note that librdkafka's {@code
 * org.apache.kafka.producer.record.queue.time} is not that wait but the time a built produce
 * request waits for the socket (its {@code outbuf_latency}; {@code
 * it-apps/rdkafka-node/README.md}).
 */
final class RdkafkaNodeProducer {
  static final Path DIR = Paths.get(System.getProperty("klat.rdkafka-node.dir"));
  private static final Path ADDON =
      DIR.resolve("node_modules/node-rdkafka/build/Release/node-librdkafka.node");

  private final Path node;

  private RdkafkaNodeProducer(Path node) {
    this.node = node;
  }

  /** What one run printed: librdkafka's version and how many records were delivered. */
  record Run(String librdkafkaVersion, int delivered, String output) {}

  /**
   * The producer, or {@code skipped} is skipped (fails under {@code CI=true}) when node or the
   * compiled node-rdkafka is missing.
   */
  static RdkafkaNodeProducer require(String skipped) {
    Path node = RequiredTool.NODE.require(skipped);
    RequiredTool.require(
        Files.isRegularFile(ADDON),
        ADDON
            + " is not built (./klat test builds it: npm ci --ignore-scripts, then librdkafka and"
            + " the addon, with Debian's g++, make, node-gyp and libnode-dev)",
        skipped);
    return new RdkafkaNodeProducer(node);
  }

  /**
   * Sends {@code records} records to {@code topic}, one every {@code intervalMs}, and closes the
   * producer (its last push is the terminating one); asserts that it ended within a minute, exit
   * code 0 (every record delivered). {@code debug}: librdkafka's debug contexts, or null.
   */
  Run run(
      String bootstrap, String topic, String clientId, int records, int intervalMs, String debug)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                node.toString(),
                "producer.js",
                "brokers=" + bootstrap,
                "topic=" + topic,
                "client-id=" + clientId,
                "records=" + records,
                "interval-ms=" + intervalMs));
    if (debug != null) {
      command.add("debug=" + debug);
    }
    Path logs = Files.createDirectories(Paths.get("target", "app-logs"));
    Path log = Files.createTempFile(logs, "rdkafka-node-", ".log");
    Process producer =
        new ProcessBuilder(command)
            .directory(DIR.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean ended = producer.waitFor(60, TimeUnit.SECONDS);
    if (!ended) {
      producer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("the librdkafka producer ended in 60 s:%n%s", output).isTrue();
    assertThat(producer.exitValue()).as(output).isZero();
    String version = null;
    int delivered = -1;
    for (String line : output.lines().toList()) {
      if (line.startsWith("klat-rdkafka ")) {
        JsonNode event = OtelClients.read(line.substring("klat-rdkafka ".length()));
        if (event.has("librdkafkaVersion")) {
          version = event.path("librdkafkaVersion").asText();
        }
        if (event.has("delivered")) {
          delivered = event.path("delivered").asInt();
        }
      }
    }
    return new Run(version, delivered, output);
  }
}

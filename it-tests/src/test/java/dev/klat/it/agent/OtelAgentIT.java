package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * klat beside the OpenTelemetry Java agent, both attached with {@code -javaagent}, in both orders:
 * the application (a producer and a consumer in one JVM) works, every record is joined into a
 * breakdown at klat's collector, and
 *
 * <ul>
 *   <li>with OpenTelemetry exporting to its own endpoint (where the collector's trace export goes
 *       too, as to one Tempo), each breakdown's trace is the trace of OpenTelemetry's producer span
 *       for that record: one trace, not two;
 *   <li>with OpenTelemetry exporting traces, metrics and logs to klat's collector, the collector
 *       accepts them, counts and ignores the spans and metric points that are not klat's, and
 *       rejects nothing;
 *   <li>with OpenTelemetry exporting nothing, klat works alone.
 * </ul>
 */
class OtelAgentIT {
  private static final Path OTEL_AGENT = Paths.get(System.getProperty("klat.otel.agent.jar"));
  private static final int RECORDS = 30;

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  /** Where the OpenTelemetry agent exports. */
  enum OtelExport {
    NOWHERE,
    OWN_ENDPOINT,
    KLAT_COLLECTOR
  }

  @ParameterizedTest(name = "{0} attached first, OpenTelemetry exporting to {1}")
  @CsvSource({
    "klat, OWN_ENDPOINT",
    "opentelemetry, OWN_ENDPOINT",
    "klat, KLAT_COLLECTOR",
    "opentelemetry, NOWHERE"
  })
  void bothAgentsAttachedTogether(String first, OtelExport export) throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "otel-" + first + "-" + export.name().toLowerCase().replace('_', '-');
    cluster.createTopic(TopicSpec.named(topic).build());
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    String collectorEndpoint = "http://127.0.0.1:" + otlpPort;
    try (OtlpReceiver tempo = new OtlpReceiver()) {
      Process collector =
          CollectorEndToEndIT.startCollector(
              otlpPort,
              adminPort,
              "--otlp.grpc.enabled=false",
              "--traces.endpoint=" + tempo.endpoint());
      try {
        CollectorEndToEndIT.awaitHealthy(adminPort, collector);
        List<String> klat = AppJvm.agentOptions(collectorEndpoint, "1.0");
        List<String> otel = otelOptions(export, tempo.endpoint(), collectorEndpoint);
        List<String> options = new ArrayList<>();
        options.addAll(first.equals("klat") ? klat : otel);
        options.addAll(first.equals("klat") ? otel : klat);
        AppJvm.Result app =
            AppJvm.start(
                    "4.4.0",
                    options,
                    ConsumerApp.class,
                    "e2e",
                    cluster.bootstrapServers(),
                    topic,
                    topic + "-group",
                    "classic",
                    Integer.toString(RECORDS),
                    "20",
                    AppJvm.LINGER_MILLIS)
                .await(Duration.ofSeconds(120));

        assertThat(app.exitCode()).as(app.output()).isZero();
        assertThat(app.output())
            .contains("klat agent started")
            .contains("opentelemetry-javaagent - version:")
            .doesNotContain("hook failed");
        List<String> roots = awaitBreakdownTraces(tempo, topic);
        assertThat(roots).as("one breakdown per record").hasSize(RECORDS);

        String stats = CollectorEndToEndIT.get(adminPort, "/api/stats", null);
        assertThat(stats)
            .as(stats)
            .doesNotContain("requestsRejected.")
            .contains("\"spansRejected\":0")
            .contains("\"pointsRejected\":0")
            .contains("\"traceMismatches\":0");
        if (export == OtelExport.KLAT_COLLECTOR) {
          assertThat(stats)
              .as(stats)
              .doesNotContain("\"spansNotKlat\":0")
              .doesNotContain("\"metricPointsIgnored\":0");
        }
        if (export == OtelExport.OWN_ENDPOINT) {
          Set<String> otelProducerTraces =
              tempo.spans().stream()
                  .filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_PRODUCER)
                  .filter(s -> s.getName().equals(topic + " publish"))
                  .map(s -> hex(s.getTraceId().toByteArray()))
                  .collect(Collectors.toSet());
          assertThat(otelProducerTraces).as("OpenTelemetry's producer spans").hasSize(RECORDS);
          assertThat(roots)
              .as("each breakdown continues the trace of OpenTelemetry's producer span")
              .allMatch(otelProducerTraces::contains);
        }
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  private static List<String> otelOptions(
      OtelExport export, String ownEndpoint, String collectorEndpoint) {
    List<String> options = new ArrayList<>();
    options.add("-javaagent:" + OTEL_AGENT);
    options.add("-Dotel.service.name=otel-it");
    options.add("-Dotel.bsp.schedule.delay=200");
    switch (export) {
      case NOWHERE -> {
        options.add("-Dotel.traces.exporter=none");
        options.add("-Dotel.metrics.exporter=none");
        options.add("-Dotel.logs.exporter=none");
      }
      case OWN_ENDPOINT -> {
        options.add("-Dotel.exporter.otlp.protocol=http/protobuf");
        options.add("-Dotel.exporter.otlp.endpoint=" + ownEndpoint);
        options.add("-Dotel.metrics.exporter=none");
        options.add("-Dotel.logs.exporter=none");
      }
      case KLAT_COLLECTOR -> {
        options.add("-Dotel.exporter.otlp.protocol=http/protobuf");
        options.add("-Dotel.exporter.otlp.endpoint=" + collectorEndpoint);
        options.add("-Dotel.metric.export.interval=500");
      }
    }
    return options;
  }

  // The trace ids of the collector's breakdown root spans ("klat <topic> <group>") of the topic.
  private static List<String> awaitBreakdownTraces(OtlpReceiver tempo, String topic)
      throws InterruptedException {
    String name = "klat " + topic + " " + topic + "-group";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    List<String> roots;
    do {
      roots =
          tempo.spans().stream()
              .filter(s -> s.getName().equals(name))
              .map(s -> hex(s.getTraceId().toByteArray()))
              .collect(Collectors.toList());
      if (roots.size() >= RECORDS) {
        return roots;
      }
      Thread.sleep(250);
    } while (System.nanoTime() < deadline);
    return roots;
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}

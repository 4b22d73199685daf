package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole path on real parts: a broker, a producer and a consumer with the agent, the collector
 * jar. Sampled records come out as breakdowns whose segment spans add up to their end-to-end span;
 * the exemplars of an OpenMetrics scrape name traces the collector exported; a garbage body is
 * refused with 400 and the collector goes on serving.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CollectorEndToEndIT {

  private static final int RECORDS = 200;
  private static final Pattern EXEMPLAR_TRACE_ID =
      Pattern.compile("# \\{trace_id=\"([0-9a-f]{32})\"");

  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(1);

  @Test
  void sampledRecordsBecomeBreakdownsThatAddUpAndExemplarsNameExportedTraces() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("collector-e2e").build());
    int otlpPort = freePort();
    int adminPort = freePort();
    try (OtlpReceiver tempo = new OtlpReceiver()) {
      Process collector = startCollector(otlpPort, adminPort, tempo.endpoint());
      try {
        awaitHealthy(adminPort, collector);

        // Garbage first: refused, counted, and the collector keeps serving what follows.
        assertThat(
                post(
                    otlpPort,
                    "/v1/traces",
                    "application/x-protobuf",
                    new byte[] {(byte) 0xff, 1, 2}))
            .isEqualTo(400);

        AppJvm.Result app =
            AppJvm.run(
                "4.4.0",
                AppJvm.agentOptions("http://127.0.0.1:" + otlpPort, "1.0"),
                ConsumerApp.class,
                "e2e",
                cluster.bootstrapServers(),
                "collector-e2e",
                "collector-e2e-group",
                "classic",
                Integer.toString(RECORDS),
                "5",
                "1500");
        assertThat(app.exitCode()).as(app.output()).isZero();

        String query = "/api/breakdown?topic=collector-e2e&group=collector-e2e-group&window=10m";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String answer = get(adminPort, query, null);
        while (!answer.contains("\"count\":" + RECORDS) && System.nanoTime() < deadline) {
          Thread.sleep(500);
          answer = get(adminPort, query, null);
        }
        assertThat(answer).as("every sampled record joined").contains("\"count\":" + RECORDS);

        List<Span> exported = tempo.awaitSpans(RECORDS * 4);
        Map<String, Span> roots = new HashMap<>();
        Map<String, List<Span>> childrenByParent = new HashMap<>();
        for (Span span : exported) {
          // The root is named "klat <topic> <group>", its children after their segment. The
          // application also warms up on a topic of its own, whose breakdowns are left out.
          if (span.getName().equals("klat collector-e2e collector-e2e-group")) {
            roots.put(hex(span.getSpanId().toByteArray()), span);
          } else if (!span.getName().startsWith("klat ")) {
            childrenByParent
                .computeIfAbsent(hex(span.getParentSpanId().toByteArray()), k -> new ArrayList<>())
                .add(span);
          }
        }
        assertThat(roots).as("one root span per breakdown").hasSize(RECORDS);
        Set<String> exportedTraceIds = new HashSet<>();
        for (Span span : exported) {
          exportedTraceIds.add(hex(span.getTraceId().toByteArray()));
        }
        for (Map.Entry<String, Span> root : roots.entrySet()) {
          Span span = root.getValue();
          List<Span> segments = childrenByParent.get(root.getKey());
          assertThat(segments).as("segments of %s", span.getName()).isNotEmpty();
          long sumNanos = 0;
          for (Span segment : segments) {
            assertThat(segment.getStartTimeUnixNano())
                .isGreaterThanOrEqualTo(span.getStartTimeUnixNano());
            assertThat(segment.getEndTimeUnixNano()).isLessThanOrEqualTo(span.getEndTimeUnixNano());
            sumNanos += segment.getEndTimeUnixNano() - segment.getStartTimeUnixNano();
          }
          assertThat(sumNanos)
              .as("segments add up to the end-to-end time of %s", span.getName())
              .isEqualTo(span.getEndTimeUnixNano() - span.getStartTimeUnixNano());
        }

        String scrape = get(adminPort, "/metrics", "application/openmetrics-text; version=1.0.0");
        Matcher exemplar = EXEMPLAR_TRACE_ID.matcher(scrape);
        int exemplars = 0;
        while (exemplar.find()) {
          exemplars++;
          assertThat(exportedTraceIds).as("exemplar trace id").contains(exemplar.group(1));
        }
        assertThat(exemplars).as(scrape).isPositive();
        assertThat(scrape)
            .contains("klat_collector_requests_rejected_total{reason=\"malformed\"} 1");
        assertThat(collector.isAlive()).isTrue();
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  static Process startCollector(int otlpPort, int adminPort, String tracesEndpoint)
      throws IOException {
    Path jar = Paths.get(System.getProperty("klat.collector.jar"));
    Path logs = Files.createDirectories(Paths.get("target", "app-logs"));
    return new ProcessBuilder(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-jar",
            jar.toString(),
            "--otlp.http.port=" + otlpPort,
            "--otlp.grpc.port=" + freePort(),
            "--admin.port=" + adminPort,
            "--traces.endpoint=" + tracesEndpoint)
        .redirectErrorStream(true)
        .redirectOutput(Files.createTempFile(logs, "collector-", ".log").toFile())
        .start();
  }

  static void awaitHealthy(int adminPort, Process collector) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (get(adminPort, "/healthz", null).startsWith("ok")) {
          return;
        }
      } catch (IOException notYet) {
        // Still starting.
      }
      assertThat(collector.isAlive()).as("collector exited").isTrue();
      assertThat(System.nanoTime()).as("collector not healthy in 60 s").isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  static String get(int port, String path, String accept) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
    if (accept != null) {
      connection.setRequestProperty("Accept", accept);
    }
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      connection.disconnect();
    }
  }

  private static int post(int port, String path, String contentType, byte[] body)
      throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setRequestProperty("Content-Type", contentType);
    try (OutputStream out = connection.getOutputStream()) {
      out.write(body);
    }
    try {
      return connection.getResponseCode();
    } finally {
      connection.disconnect();
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}

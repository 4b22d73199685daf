package dev.klat.collector.ui;

import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.MS;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.bothInstrumented;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.sampled;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.clienttelemetry.ClientPayloads;
import dev.klat.collector.clienttelemetry.ClientTelemetry;
import dev.klat.collector.clienttelemetry.ClientTelemetryIngestTest;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.export.BreakdownAnswers;
import dev.klat.collector.receive.OtlpIngest;
import dev.klat.testsupport.HeadlessChromium;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The page's section of the clients' own figures (KIP-714), as headless Chromium renders it: {@code
 * /api/breakdown} answers what the collector's own code writes for a window of records and the
 * client telemetry its ingest took; the other endpoints "no data yet". Browser only, so it runs in
 * one CI pass ({@code jdk-independent}); skipped without Chromium, failing instead under {@code
 * CI=true}.
 */
@Tag("jdk-independent")
class ClientTelemetryPageIT {

  private static final Path TARGET = Paths.get("target");
  private static final long WINDOW = 300_000 * MS;

  private static final Map<String, String> EMPTY_ANSWERS =
      Map.of(
          "/api/history",
          "{\"intervalSeconds\":10,\"retentionSeconds\":3600,\"points\":[]}",
          "/api/diagnosis",
          "{\"findings\":[],\"unexplained\":\"no records in the window\"}",
          "/api/slowest",
          "{\"records\":[]}",
          "/api/pairs",
          "{\"pairs\":[]}",
          "/api/pipelines",
          "{\"pipelines\":[]}");

  private HttpServer server;
  private volatile String breakdown;

  @BeforeEach
  void serveThePage() throws IOException {
    String page = resource("/dev/klat/collector/ui/index.html");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/")) {
            answer(exchange, 200, "text/html; charset=utf-8", page);
          } else if (path.equals("/api/breakdown")) {
            answer(exchange, 200, "application/json", breakdown);
          } else if (EMPTY_ANSWERS.containsKey(path)) {
            answer(exchange, 200, "application/json", EMPTY_ANSWERS.get(path));
          } else {
            answer(exchange, 404, "text/plain", "not found\n");
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  // Client telemetry as the collector's own ingest takes it from a broker's forwarder.
  private static ClientTelemetry clients(byte[]... requests) throws Exception {
    ClientTelemetry clients =
        new ClientTelemetry(100, 1 << 20, Long.MAX_VALUE, () -> 5_000_000_000L);
    OtlpIngest ingest =
        new OtlpIngest(
            new Correlator(
                new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
                () -> 0L,
                BrokerInstants.logAppendTime(),
                joined -> {}),
            new AgentMetrics(100, Long.MAX_VALUE),
            new ProbeTimelines(1, 1),
            (broker, offset, uncertainty) -> {},
            clients);
    for (byte[] r : requests) {
      ingest.metrics(r, r.length, false);
    }
    return clients;
  }

  @Test
  void aProducersQueueTimeStandsBesideTheProduceSegmentMarkedAsItsOwnAggregate() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    for (int i = 0; i < 40; i++) {
      recent.add(sampled("orders", (2 + i % 3) * MS, (8 + i % 5) * MS), 0);
    }
    // A Go producer (librdkafka) seen through OpenTelemetry, and a Java producer with klat's agent.
    for (int i = 0; i < 30; i++) {
      recent.add(bothInstrumented("orders", "g", i, 12 + i % 7, 2, 20 + i % 11), 0);
    }
    ClientTelemetry clients =
        clients(
            ClientPayloads.librdkafka("go-1", "checkout-go", "2.10.0")
                .gauge("org.apache.kafka.producer.record.queue.time.avg", 9.5)
                .intGauge("org.apache.kafka.producer.record.queue.time.max", 31)
                .gauge("org.apache.kafka.producer.request.latency.avg", 2.5)
                .request(),
            ClientTelemetryIngestTest.javaProducer("java-1").request(),
            ClientPayloads.javaClient("cons-1", "<b>billing</b>", "4.4.0")
                .clientAttribute("group_id", "g")
                .gauge("org.apache.kafka.consumer.fetch.manager.fetch.latency.avg", 250.0)
                .gauge("org.apache.kafka.consumer.fetch.manager.fetch.latency.max", 502.0)
                .gauge(
                    "org.apache.kafka.consumer.fetch.manager.records.consumed.rate",
                    5.0,
                    ClientPayloads.str("topic", "orders"))
                .request());
    breakdown = BreakdownAnswers.breakdown(recent, clients, "orders", "g", WINDOW, 0);

    HeadlessChromium chromium = chromium();
    String dom = chromium.dumpDom(page());

    assertThat(dom).contains("id=\"clients\" data-clients=\"3\"");
    assertThat(dom).contains("The clients' own figures (KIP-714)");
    // The producer's own avg / max, in the marked column, beside klat's produce segment.
    assertThat(dom).contains("record queue time 9.5 / 31 ms");
    assertThat(dom).contains("record queue time 4.5 / 21 ms · request latency 2.3 / 9.0 ms");
    assertThat(count(dom, "class=\"own\" data-figures=")).isEqualTo(3);
    assertThat(dom).containsPattern("produce \\(sampled\\): [0-9.]+ / [0-9.]+ ms");
    assertThat(dom).contains("fetch latency 250 / 502 ms");
    assertThat(dom).contains("librdkafka 2.10.0 · User:alice");
    assertThat(dom).contains("not per-record latencies and not");
    // Names from the wire are text.
    assertThat(dom).contains("&lt;b&gt;billing&lt;/b&gt;").doesNotContain("<b>billing</b>");

    chromium.windowPx(1000, 1300).screenshot(page(), TARGET.resolve("client-telemetry-page.png"));
    java.nio.file.Files.writeString(TARGET.resolve("client-telemetry-breakdown.json"), breakdown);
  }

  @Test
  void aProducerSeenOnlyThroughOpenTelemetryStandsBesideProduceAndPublish() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    for (int i = 0; i < 30; i++) {
      recent.add(bothInstrumented("payments", "risk", i, 12 + i % 7, 2, 20 + i % 11), 0);
    }
    breakdown =
        BreakdownAnswers.breakdown(
            recent,
            clients(
                ClientPayloads.librdkafka("go-2", "payments-go", "2.10.0")
                    .gauge("org.apache.kafka.producer.record.queue.time.avg", 11.0)
                    .request()),
            "payments",
            "risk",
            WINDOW,
            0);
    String dom = chromium().dumpDom(page());
    assertThat(dom).containsPattern("produce\\+publish \\(OpenTelemetry, combined .\\): [0-9.]+ /");
    assertThat(dom).contains("record queue time 11 / - ms");
  }

  @Test
  void withoutClientTelemetryTheSectionSaysHowToGetIt() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(10);
    recent.add(sampled("orders", 2 * MS, 8 * MS), 0);
    breakdown = BreakdownAnswers.breakdown(recent, clients(), null, null, WINDOW, 0);
    String dom = chromium().dumpDom(page());
    assertThat(dom).contains("id=\"clients\" data-clients=\"0\"");
    assertThat(dom).contains("No client of this topic and group pushed its own metrics");
  }

  private String page() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/?refreshMs=1000";
  }

  private static HeadlessChromium chromium() {
    return HeadlessChromium.require(
            TARGET, "ClientTelemetryPageIT (the page's client telemetry rows)")
        .virtualTimeBudgetMs(3000);
  }

  private static long count(String text, String literal) {
    return Pattern.compile(Pattern.quote(literal)).matcher(text).results().count();
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = ClientTelemetryPageIT.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void answer(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}

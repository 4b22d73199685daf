package dev.klat.collector.ui;

import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.MS;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.bothInstrumented;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.klatProducerInstrumentedConsumer;
import static dev.klat.collector.aggregate.OpenTelemetryBreakdowns.sampled;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.export.BreakdownAnswers;
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
 * The page's section for records seen through OpenTelemetry instrumentations (section 10 of the
 * latency model), as headless Chromium renders it: {@code /api/breakdown} answers what the
 * collector's own code writes for a window of sampled records and instrumented ones, the other
 * endpoints "no data yet". Browser only, so it runs in one CI pass ({@code jdk-independent});
 * skipped without Chromium, failing instead under {@code CI=true}.
 */
@Tag("jdk-independent")
class OpenTelemetryPageIT {

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

  @Test
  void eachPairShowsItsInstrumentedRecordsSplitWithTheCombinedSegmentsMarked() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    // klat's sampled records of orders / g, and OpenTelemetry records of three pairs, one of them
    // (orders / billing) with klat's agent on the producer of one record.
    for (int i = 0; i < 40; i++) {
      recent.add(sampled("orders", 2 * MS, (8 + i % 5) * MS), 0);
    }
    for (int i = 0; i < 30; i++) {
      recent.add(bothInstrumented("orders", "billing", i, 12 + i % 7, 2, 20 + i % 11), 0);
    }
    recent.add(klatProducerInstrumentedConsumer("orders", "billing", 99, 2, 25), 0);
    for (int i = 0; i < 12; i++) {
      recent.add(bothInstrumented("payments", "service:checkout", i, 4, 1, 140 + 9 * i), 0);
    }
    for (int i = 0; i < 5; i++) {
      recent.add(bothInstrumented("<b>clicks</b>", "service:web", i, 30, 3, 6), 0);
    }
    breakdown = BreakdownAnswers.breakdown(recent, null, null, WINDOW, 0);

    HeadlessChromium chromium = chromium();
    String dom = chromium.dumpDom(page());

    assertThat(dom).contains("id=\"opentelemetry\" data-pairs=\"3\"");
    // Most records first; the sampled figures stay the sampled records'.
    assertThat(dom.indexOf("data-pair=\"orders / billing\""))
        .isLessThan(dom.indexOf("data-pair=\"payments / service:checkout\""));
    assertThat(dom)
        .contains(
            "40 sampled breakdowns, 0 tail records and 48 records seen through OpenTelemetry");
    // Which records: the klat producer's record is counted as such.
    assertThat(dom).contains("producers: 30 OTel, 1 klat agent · consumers: 31 OTel");
    // The combined segments are marked, the client-clock figures carry the dagger and say why.
    assertThat(count(dom, "class=\"combined\" data-segment=\"produce+publish\"")).isEqualTo(3);
    assertThat(count(dom, "class=\"combined\" data-segment=\"catch-up+fetch\"")).isEqualTo(3);
    assertThat(dom).contains("produce+publish (combined): from 30 records (30 client-clock)");
    assertThat(dom).contains("commit: from 31 records (31 exact)");
    assertThat(dom).contains("ms †");
    assertThat(dom).contains("client-clock: on the client host's own clock");
    assertThat(count(dom, "data-part=\"catch-up+fetch\"")).isEqualTo(3);
    // Names from the wire are text.
    assertThat(dom).contains("&lt;b&gt;clicks&lt;/b&gt;").doesNotContain("<b>clicks</b>");

    // The section sits below the two charts: a window tall enough to show it.
    chromium.windowPx(1000, 1400).screenshot(page(), TARGET.resolve("opentelemetry-page.png"));
    java.nio.file.Files.writeString(TARGET.resolve("opentelemetry-breakdown.json"), breakdown);
  }

  @Test
  void withoutInstrumentedRecordsTheSectionSaysWhatWouldShowThere() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(10);
    recent.add(sampled("orders", 2 * MS, 8 * MS), 0);
    breakdown = BreakdownAnswers.breakdown(recent, null, null, WINDOW, 0);

    String dom = chromium().dumpDom(page());

    assertThat(dom).contains("id=\"opentelemetry\" data-pairs=\"0\"");
    assertThat(dom).contains("No record seen through an OpenTelemetry instrumentation in the");
  }

  private String page() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/?refreshMs=1000";
  }

  private static HeadlessChromium chromium() {
    return HeadlessChromium.require(TARGET, "OpenTelemetryPageIT (the page's OpenTelemetry rows)")
        .virtualTimeBudgetMs(3000);
  }

  private static long count(String text, String literal) {
    return Pattern.compile(Pattern.quote(literal)).matcher(text).results().count();
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = OpenTelemetryPageIT.class.getResourceAsStream(name)) {
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

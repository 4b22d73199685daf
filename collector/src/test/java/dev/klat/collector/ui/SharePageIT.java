package dev.klat.collector.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareSpans;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The page's share groups (section 11 of the latency model), as headless Chromium renders it: the
 * group marked in the pair list, its redeliveries and their causes, and a redelivered record's
 * deliveries, from what the collector's own code writes. Browser only ({@code jdk-independent});
 * skipped without Chromium, failing instead under {@code CI=true}.
 */
@Tag("jdk-independent")
class SharePageIT {
  private static final Path TARGET = Paths.get("target");
  private static final long WINDOW = 300_000_000_000L;

  private static final Map<String, String> EMPTY_ANSWERS =
      Map.of(
          "/api/history",
          "{\"intervalSeconds\":10,\"retentionSeconds\":3600,\"points\":[]}",
          "/api/diagnosis",
          "{\"findings\":[],\"unexplained\":\"no records in the window\"}",
          "/api/slowest",
          "{\"records\":[]}",
          "/api/pipelines",
          "{\"pipelines\":[]}");

  private HttpServer server;
  private volatile String breakdown;
  private volatile String pairs = "{\"pairs\":[]}";

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
          } else if (path.equals("/api/pairs")) {
            answer(exchange, 200, "application/json", pairs);
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
  void aShareGroupIsMarkedWithItsRedeliveriesTheirCausesAndARedeliveredRecordsDeliveries()
      throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    for (JoinedBreakdown b : ShareSpans.records("jobs", 40, 0, 0)) {
      recent.add(b, 0);
    }
    for (JoinedBreakdown b : ShareSpans.redelivered("jobs", 100, 3, null, null, 30_011)) {
      recent.add(b, 0);
    }
    for (JoinedBreakdown b : ShareSpans.redelivered("jobs", 200, 1, "release", null, 2_011)) {
      recent.add(b, 0);
    }
    breakdown = BreakdownAnswers.breakdown(recent, "jobs", ShareSpans.GROUP, WINDOW, 0);
    pairs =
        "{\"windowSeconds\":300,\"pairs\":[{\"topic\":\"jobs\",\"group\":\"workers\","
            + "\"records\":44,\"shareGroup\":true},{\"topic\":\"orders\",\"group\":\"billing\","
            + "\"records\":9}]}";

    HeadlessChromium chromium =
        HeadlessChromium.require(TARGET, "SharePageIT (the page's share groups)")
            .virtualTimeBudgetMs(3000);
    String url =
        "http://127.0.0.1:"
            + server.getAddress().getPort()
            + "/?refreshMs=1000&topic=jobs&group=workers";
    String dom = chromium.dumpDom(url);

    assertThat(dom).contains("id=\"share\" data-records=\"44\" data-redelivered=\"4\"");
    assertThat(dom).contains("jobs / workers [share group] (44)");
    assertThat(dom).contains("orders / billing (9)").doesNotContain("billing [share group]");
    assertThat(dom).contains("44 records, 4 redelivered");
    assertThat(dom).contains("earlier deliveries ended by: lock-timeout 3, release 1");
    assertThat(dom).contains("deliveries per record p50 1, p99 2, max 2");
    // The slowest redelivered record first, with each delivery and what ended it.
    assertThat(dom.indexOf("data-offset=\"102\"")).isLessThan(dom.indexOf("data-offset=\"200\""));
    assertThat(dom).contains("#1 on c: lock-timeout, no acknowledgement");
    assertThat(dom).contains("#2 on c: accept (counted), acknowledged accept after 4.0 ms");
    assertThat(dom).contains("#1 on c: release, acknowledged release after 4.0 ms");

    chromium.windowPx(1000, 1500).screenshot(url, TARGET.resolve("share-page.png"));
  }

  @Test
  void withoutShareGroupsTheSectionSaysWhatWouldShowThere() throws Exception {
    RecentBreakdowns recent = new RecentBreakdowns(10);
    breakdown = BreakdownAnswers.breakdown(recent, null, null, WINDOW, 0);

    String dom =
        HeadlessChromium.require(TARGET, "SharePageIT (the page's share groups)")
            .virtualTimeBudgetMs(3000)
            .dumpDom("http://127.0.0.1:" + server.getAddress().getPort() + "/?refreshMs=1000");

    assertThat(dom).contains("id=\"share\" data-records=\"0\"");
    assertThat(dom).contains("No record of a share group in the window");
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = SharePageIT.class.getResourceAsStream(name)) {
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

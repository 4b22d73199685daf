package dev.klat.collector.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
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
 * The collector's page, as headless Chromium renders it, on {@code /api/pipelines} answers from
 * fixtures: the page file is the one the collector's jar serves, the other endpoints answer "no
 * data yet". A real collector draws the same section from real chains in {@code DemoIT}. Skipped
 * without Chromium, failing instead under {@code CI=true} ({@code RequiredTool}).
 */
// Chromium renders a page from fixtures: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class PipelinesPageIT {

  private static final Path TARGET = Paths.get("target");

  // What the page's other sections read while the pipelines section is drawn: nothing yet.
  private static final Map<String, String> EMPTY_ANSWERS =
      Map.of(
          "/api/breakdown",
          "{\"count\":0,\"e2e\":{},\"p99Tail\":{\"count\":0,\"meanSeconds\":{}},"
              + "\"segments\":{},\"tail\":{\"count\":0}}",
          "/api/history",
          "{\"intervalSeconds\":10,\"retentionSeconds\":3600,\"points\":[]}",
          "/api/diagnosis",
          "{\"findings\":[],\"unexplained\":\"no records in the window\"}",
          "/api/slowest",
          "{\"records\":[]}",
          "/api/pairs",
          "{\"pairs\":[]}");

  private HttpServer server;
  private volatile String pipelines;

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
          } else if (path.equals("/api/pipelines") && pipelines != null) {
            answer(exchange, 200, "application/json", pipelines);
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
  void drawsTheGraphEachHopsTailSplitAndTheTailLine() throws Exception {
    pipelines = resource("/dev/klat/collector/ui/pipelines.json");
    HeadlessChromium chromium = chromium();
    String dom = chromium.dumpDom(page());

    assertThat(dom).contains("id=\"pipelines\" data-pipelines=\"3\"");
    // Nine nodes (five topics, four groups), nine edges, one of them a changelog drawn dashed.
    assertThat(dom).containsPattern("id=\"pipeline-graph\"[^>]*data-nodes=\"9\"");
    assertThat(dom).containsPattern("id=\"pipeline-graph\"[^>]*data-edges=\"9\"");
    assertThat(count(dom, "data-kind=\"changelog\" stroke=\"#b07aa1\" stroke-dasharray=\"5 4\""))
        .isEqualTo(1);
    assertThat(count(dom, "data-node=\"topic\" data-internal=\"true\"")).isEqualTo(1);
    assertThat(dom).contains("internal (repartition)").contains("changelog (state)");
    // The tail line, hop by hop bars that add up to the pipeline's p99 tail.
    assertThat(dom)
        .contains(
            "tail: hop 2 (orders-enriched / invoicer): commit (transaction) 81% of the p99 tail,"
                + " from 12 chains")
        .contains("tail: hop 1 (orders / audit): catch-up 64% of the p99 tail, from 9 chains")
        .contains("end to end p50 45 ms, p99 612 ms, p99.9 740 ms");
    assertThat(dom).contains("<tr data-share=\"0.867\">");
    assertThat(dom).contains("(internal)");
    assertThat(count(dom, "data-part=\"processing\"")).isEqualTo(3);
    // The fan-out pipeline's collector sent no per-hop tail means: its bar says it approximates.
    assertThat(dom).contains("an approximation");
    assertThat(dom)
        .contains("In the window: 4170 complete chains, 31 not followed to their end within the");
    // A fragment (sent second) is drawn last, greyed, with why; its hop without L draws
    // publish+commit from its tail means.
    assertThat(dom.indexOf("Fragment: records of invoices sampled on their own"))
        .isGreaterThan(dom.indexOf("tail: hop 1 (orders / audit)"));
    assertThat(dom).contains("class=\"pipeline fragment\" data-pipeline=\"invoices-");
    assertThat(count(dom, "data-part=\"publish+commit\"")).isEqualTo(1);

    chromium.windowPx(1000, 1560).screenshot(page(), TARGET.resolve("pipelines-page.png"));
  }

  @Test
  void noPipelineSaysWhy() throws Exception {
    pipelines = resource("/dev/klat/collector/ui/pipelines-empty.json");
    String dom = chromium().dumpDom(page());

    assertThat(dom).contains("id=\"pipelines\" data-pipelines=\"0\"");
    assertThat(dom)
        .contains("No pipeline was found in the window.")
        .contains("sampled records that an application produced while processing records it")
        .contains(
            "In the window: 0 complete chains, 3 not followed to their end within the window,"
                + " 2 inputs whose group was not known.");
    assertThat(dom).doesNotContain("class=\"pipeline\"");
  }

  @Test
  void aCollectorWithoutPipelinesSaysSo() throws Exception {
    pipelines = null;
    String dom = chromium().dumpDom(page());

    assertThat(dom)
        .contains("id=\"pipelines\" data-pipelines=\"0\"")
        .contains("No pipeline was found in the window.")
        .contains("(/api/pipelines did not answer: this collector has no /api/pipelines)");
  }

  @Test
  void namesFromTheWireAreTextNotMarkup() throws Exception {
    pipelines = resource("/dev/klat/collector/ui/pipelines-hostile.json");
    String dom = chromium().dumpDom(page());

    assertThat(dom).contains("data-pipelines=\"1\"");
    assertThat(dom).contains("&lt;img src=x onerror=");
    // An element would serialize with its attribute quoted; the text keeps the name as sent.
    assertThat(dom).doesNotContain("<img src=\"x\"").doesNotContain("<title>pwned</title>");
  }

  private String page() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/?refreshMs=1000";
  }

  private static HeadlessChromium chromium() {
    return HeadlessChromium.require(TARGET, "PipelinesPageIT (the page's pipelines section)")
        .virtualTimeBudgetMs(3000);
  }

  private static long count(String text, String literal) {
    return Pattern.compile(Pattern.quote(literal)).matcher(text).results().count();
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = PipelinesPageIT.class.getResourceAsStream(name)) {
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

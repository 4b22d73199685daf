package dev.klat.collector.export;

import static dev.klat.collector.export.SummaryJson.esc;
import static dev.klat.collector.export.SummaryJson.str;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.aggregate.BreakdownHistory;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.ShareSummary;
import dev.klat.collector.aggregate.SlowRecord;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.PipelineDiagnosis;
import dev.klat.collector.pipeline.PipelinesReport;
import dev.klat.collector.security.ListenerSecurity;
import dev.klat.model.Capture;
import dev.klat.model.TailTraceIds;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The collector's own HTTP port: {@code /metrics} (Prometheus text or OpenMetrics, by the {@code
 * Accept} header), {@code /api/breakdown}, {@code /api/diagnosis}, {@code /api/slowest}, {@code
 * /api/pairs}, {@code /api/pipelines}, {@code /api/history}, {@code /api/clocks}, {@code
 * /api/stats}, {@code /api/brokers}, {@code /healthz} (liveness), {@code /readyz} (readiness:
 * {@code /metrics} can be produced), and the page. With tokens on, {@code /metrics} and {@code
 * /api/*} need one; the probes and the page (which asks for the token when an API call gets 401)
 * stay open.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AdminServer.class.getName());
  static final long DEFAULT_WINDOW_NANOS = 300_000_000_000L;

  /** {@code /healthz}: 200 while the collector works, 503 with the reason when a part stopped. */
  static Response health(String problem) {
    return problem == null
        ? new Response(200, "text/plain", "ok\n")
        : new Response(503, "text/plain", problem + "\n");
  }

  /**
   * What the APIs ask of the recent breakdowns; {@code topic} and {@code group} are filters, null
   * for all.
   */
  public interface RecentQueries {
    /** The summary of {@code /api/breakdown}. */
    RecentBreakdowns.Summary summarise(String topic, String group, long windowNanos);

    /** The diagnosis of the window's p99 tail. */
    DiagnosisReport diagnose(String topic, String group, long windowNanos);

    /** The {@code limit} slowest records of the window, slowest first, of both captures. */
    List<SlowRecord> slowest(String topic, String group, long windowNanos, int limit);

    /**
     * The {@code limit} slowest records of the window of one capture (null: both), slowest first.
     */
    default List<SlowRecord> slowest(
        String topic, String group, Capture capture, long windowNanos, int limit) {
      List<SlowRecord> all = slowest(topic, group, windowNanos, MAX_SLOWEST);
      return all.stream()
          .filter(r -> capture == null || r.capture() == capture)
          .limit(limit)
          .toList();
    }

    /** The topic and group pairs with breakdowns in the window, most first, at most {@code max}. */
    List<TopicGroup> pairs(long windowNanos, int max);

    /**
     * Commit's parts over the window (section 9 of the latency model), or null when no record of
     * the window waited for its transaction.
     */
    default RecentBreakdowns.CommitParts commitParts(String topic, String group, long windowNanos) {
      return null;
    }

    /**
     * The records seen through an OpenTelemetry instrumentation (section 10 of the latency model),
     * for {@code /api/breakdown}'s {@code opentelemetry} object.
     */
    default RecentBreakdowns.OpenTelemetryRecords opentelemetry(
        String topic, String group, long windowNanos) {
      return RecentBreakdowns.OpenTelemetryRecords.EMPTY;
    }

    /**
     * The window's records of share groups (section 11 of the latency model), for {@code
     * /api/breakdown}'s {@code share} object; null when it has none.
     */
    default ShareSummary share(String topic, String group, long windowNanos) {
      return null;
    }

    /** The pipelines of {@code /api/pipelines} (section 9 of the latency model). */
    default PipelinesReport pipelines(long windowNanos) {
      return new PipelinesReport(
          windowNanos,
          List.of(),
          new PipelinesReport.Graph(List.of(), List.of()),
          new PipelinesReport.Counts(0, 0, 0, 0, 0));
    }

    /**
     * The diagnosis of one pipeline's tail.
     *
     * @throws IllegalArgumentException when no such pipeline has a chain in the window
     */
    default PipelineDiagnosis diagnosePipeline(String name, long windowNanos) {
      throw new IllegalArgumentException("no pipeline " + name + " in the window");
    }
  }

  /** The most records {@code /api/slowest} lists. */
  static final int MAX_SLOWEST = 200;

  /** The most pairs {@code /api/pairs} lists. */
  static final int MAX_PAIRS = 100;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * {@code metrics.max-bytes}' default: 32 MiB, about 1,500 histogram series (one is 21 KB with its
   * 137 buckets and five labels); a scrape's peak heap is about three times the text.
   */
  public static final int DEFAULT_METRICS_MAX_BYTES = 32 << 20;

  private final HttpServer server;
  private final ExecutorService executor;
  private final Supplier<List<Exposition.Family>> metrics;
  private final int metricsMaxBytes;
  private final AtomicLong metricsSeriesDropped = new AtomicLong();

  public AdminServer(
      InetSocketAddress address,
      Supplier<List<Exposition.Family>> metrics,
      RecentQueries recent,
      BreakdownHistory history,
      Supplier<List<ClockOffset>> clocks,
      Supplier<Map<String, Long>> stats,
      Supplier<String> brokersJson,
      Supplier<String> problem,
      ListenerSecurity security,
      int metricsMaxBytes)
      throws IOException {
    this.metrics = metrics;
    this.metricsMaxBytes = metricsMaxBytes;
    // With tokens on, every context but the probes' and the page's needs one (an unknown /api/
    // path too: 401, then 404).
    server = security.httpServer(address, 64, "/healthz", "/readyz", "/");
    executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "klat-admin-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext(
        "/metrics",
        exchange ->
            serve(
                exchange,
                ex -> {
                  String accept = ex.getRequestHeaders().getFirst("Accept");
                  boolean om = accept != null && accept.contains("application/openmetrics-text");
                  return new Response(
                      200,
                      om
                          ? PrometheusWriter.OPENMETRICS_CONTENT_TYPE
                          : PrometheusWriter.TEXT_CONTENT_TYPE,
                      scrape(om).text());
                }));
    server.createContext(
        "/api/breakdown", exchange -> serve(exchange, ex -> breakdown(ex, recent)));
    server.createContext(
        "/api/diagnosis", exchange -> serve(exchange, ex -> diagnosis(ex, recent)));
    server.createContext("/api/slowest", exchange -> serve(exchange, ex -> slowest(ex, recent)));
    server.createContext("/api/pairs", exchange -> serve(exchange, ex -> pairs(ex, recent)));
    server.createContext(
        "/api/pipelines",
        exchange ->
            serve(
                exchange,
                ex ->
                    new Response(
                        200,
                        "application/json",
                        PipelinesJson.write(recent.pipelines(Window.of(ex).nanos())))));
    server.createContext(
        "/api/history",
        exchange ->
            serve(
                exchange,
                ex ->
                    new Response(
                        200,
                        "application/json",
                        HistoryApi.answer(query(ex.getRequestURI().getRawQuery()), history))));
    server.createContext(
        "/api/clocks",
        exchange -> serve(exchange, ex -> new Response(200, "application/json", clocks(clocks))));
    server.createContext(
        "/api/stats",
        exchange ->
            serve(exchange, ex -> new Response(200, "application/json", stats(stats.get()))));
    server.createContext(
        "/api/brokers",
        exchange ->
            serve(exchange, ex -> new Response(200, "application/json", brokersJson.get())));
    server.createContext("/api/", exchange -> serve(exchange, ex -> NOT_FOUND));
    server.createContext("/healthz", exchange -> serve(exchange, ex -> health(problem.get())));
    server.createContext("/readyz", exchange -> serve(exchange, ex -> readiness()));
    String page = loadPage();
    server.createContext(
        "/",
        exchange ->
            serve(
                exchange,
                ex -> {
                  String path = ex.getRequestURI().getPath();
                  return path.equals("/") || path.equals("/index.html")
                      ? new Response(200, "text/html; charset=utf-8", page)
                      : new Response(404, "text/plain", "not found\n");
                }));
    server.start();
  }

  /**
   * {@code /metrics} as written under {@code metrics.max-bytes}: the collector's own families
   * first, so that its health counts survive a budget filled by the agents' labels, then the others
   * in {@code MetricDef} order; the series that do not fit are dropped, and counted when {@code
   * counted} (a scrape, not a readiness probe).
   */
  PrometheusWriter.Written metricsText(boolean openMetrics, boolean counted) {
    List<Exposition.Family> families = new ArrayList<>(metrics.get());
    families.sort(
        Comparator.comparing((Exposition.Family f) -> !f.name().startsWith(OWN_FAMILY_PREFIX)));
    PrometheusWriter.Written written =
        PrometheusWriter.write(families, openMetrics, metricsMaxBytes);
    if (counted) {
      metricsSeriesDropped.addAndGet(written.seriesDropped());
    }
    return written;
  }

  private static final String OWN_FAMILY_PREFIX = "klat_collector_";

  /**
   * {@code /readyz}: 200 when {@code /metrics} can be produced, 503 with the reason when it cannot
   * (a part failed, or the heap could not hold it). The outcome of a scrape in the last {@link
   * #READINESS_REUSE_NANOS} answers; without one, {@code /metrics} is produced to find out, so a
   * readiness probe between scrapes costs at most one rendering per that interval and never doubles
   * the cost of a scraped collector. {@code /healthz} is liveness only and does not depend on it.
   */
  Response readiness() {
    Rendering last = lastRendering;
    if (last == null || System.nanoTime() - last.atNanos() > READINESS_REUSE_NANOS) {
      try {
        last = rendered(metricsText(false, false));
      } catch (RuntimeException | OutOfMemoryError e) {
        last = failed(e);
      }
    }
    return last.problem() == null
        ? new Response(
            200,
            "text/plain",
            "ready: /metrics is "
                + last.characters()
                + " characters, "
                + last.seriesDropped()
                + " series over metrics.max-bytes dropped\n")
        : new Response(503, "text/plain", "/metrics cannot be produced: " + last.problem() + "\n");
  }

  /** How long a rendering of {@code /metrics} answers {@code /readyz}: 30 s. */
  static final long READINESS_REUSE_NANOS = 30_000_000_000L;

  private volatile Rendering lastRendering;

  /** What the last rendering of {@code /metrics} gave: its size, or why it failed. */
  private record Rendering(long atNanos, int characters, long seriesDropped, String problem) {}

  /** A scrape of {@code /metrics}, remembered for {@code /readyz}. */
  private PrometheusWriter.Written scrape(boolean openMetrics) {
    try {
      PrometheusWriter.Written written = metricsText(openMetrics, true);
      rendered(written);
      return written;
    } catch (RuntimeException | OutOfMemoryError e) {
      failed(e);
      throw e;
    }
  }

  private Rendering rendered(PrometheusWriter.Written written) {
    Rendering r =
        new Rendering(System.nanoTime(), written.text().length(), written.seriesDropped(), null);
    lastRendering = r;
    return r;
  }

  private Rendering failed(Throwable e) {
    Rendering r = new Rendering(System.nanoTime(), 0, 0, e.toString());
    lastRendering = r;
    return r;
  }

  /**
   * Series dropped from {@code /metrics} answers since start because of {@code metrics.max-bytes}.
   */
  public long metricsSeriesDropped() {
    return metricsSeriesDropped.get();
  }

  // The live page: plain HTML and JavaScript that reads /api/history, then polls /api/breakdown;
  // no build step.
  private static String loadPage() throws IOException {
    try (java.io.InputStream in =
        AdminServer.class.getResourceAsStream("/dev/klat/collector/ui/index.html")) {
      if (in == null) {
        throw new IOException("the page dev/klat/collector/ui/index.html is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The bound address, with the actual port. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  record Response(int status, String contentType, String body) {}

  private static final Response NOT_FOUND = new Response(404, "text/plain", "not found\n");

  /** {@code /readyz}: 200 while the collector serves. */
  private static void serve(HttpExchange exchange, Function<HttpExchange, Response> handler) {
    // The request body is never read: GET has none, and reading a missing one would block.
    try {
      Response r;
      if (!"GET".equals(exchange.getRequestMethod())
          && !"HEAD".equals(exchange.getRequestMethod())) {
        r = new Response(405, "text/plain", "use GET\n");
      } else {
        try {
          r = handler.apply(exchange);
        } catch (IllegalArgumentException e) {
          r = new Response(400, "application/json", "{\"error\":\"" + esc(e.getMessage()) + "\"}");
        }
      }
      byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", r.contentType());
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(r.status(), head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (IOException e) {
      // client went away
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "admin request failed", e);
    } finally {
      exchange.close();
    }
  }

  /** The filters of {@code /api/breakdown}, {@code /api/diagnosis} and {@code /api/slowest}. */
  private record Window(String topic, String group, long nanos) {
    static Window of(HttpExchange ex) {
      Map<String, String> params = query(ex.getRequestURI().getRawQuery());
      return new Window(
          emptyToNull(params.get("topic")),
          emptyToNull(params.get("group")),
          params.containsKey("window")
              ? parseDuration(params.get("window"))
              : DEFAULT_WINDOW_NANOS);
    }
  }

  private static Response breakdown(HttpExchange ex, RecentQueries query) {
    Window w = Window.of(ex);
    RecentBreakdowns.Summary s = query.summarise(w.topic(), w.group(), w.nanos());
    RecentBreakdowns.CommitParts parts = query.commitParts(w.topic(), w.group(), w.nanos());
    RecentBreakdowns.OpenTelemetryRecords otel =
        query.opentelemetry(w.topic(), w.group(), w.nanos());
    ShareSummary share = query.share(w.topic(), w.group(), w.nanos());
    return new Response(
        200,
        "application/json",
        SummaryJson.breakdown(w.topic(), w.group(), w.nanos(), s, parts, otel, share));
  }

  private static Response diagnosis(HttpExchange ex, RecentQueries query) {
    Window w = Window.of(ex);
    String pipeline = emptyToNull(query(ex.getRequestURI().getRawQuery()).get("pipeline"));
    if (pipeline != null) {
      ObjectNode out = JSON.createObjectNode();
      out.put("windowSeconds", w.nanos() / 1e9);
      out.setAll((ObjectNode) JSON.valueToTree(query.diagnosePipeline(pipeline, w.nanos())));
      return new Response(200, "application/json", out.toString());
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("topic", w.topic());
    out.put("group", w.group());
    out.put("windowSeconds", w.nanos() / 1e9);
    out.setAll((ObjectNode) JSON.valueToTree(query.diagnose(w.topic(), w.group(), w.nanos())));
    return new Response(200, "application/json", out.toString());
  }

  private static Response pairs(HttpExchange ex, RecentQueries query) {
    Window w = Window.of(ex);
    ObjectNode out = JSON.createObjectNode();
    out.put("windowSeconds", w.nanos() / 1e9);
    ArrayNode pairs = out.putArray("pairs");
    for (TopicGroup pair : query.pairs(w.nanos(), MAX_PAIRS)) {
      ObjectNode row =
          pairs
              .addObject()
              .put("topic", pair.topic())
              .put("group", pair.group())
              .put("records", pair.records());
      if (pair.shareGroup()) {
        // Section 11: only on share groups, so a consumer group's row is as before.
        row.put("shareGroup", true);
      }
    }
    return new Response(200, "application/json", out.toString());
  }

  private static Response slowest(HttpExchange ex, RecentQueries query) {
    Window w = Window.of(ex);
    String limitText = query(ex.getRequestURI().getRawQuery()).getOrDefault("limit", "20");
    int limit;
    try {
      limit = Integer.parseInt(limitText);
    } catch (NumberFormatException e) {
      limit = -1;
    }
    if (limit < 1 || limit > MAX_SLOWEST) {
      throw new IllegalArgumentException("limit must be 1 to " + MAX_SLOWEST + ": " + limitText);
    }
    Capture capture = captureParam(query(ex.getRequestURI().getRawQuery()).get("capture"));
    ObjectNode out = JSON.createObjectNode();
    out.put("topic", w.topic());
    out.put("group", w.group());
    out.put("windowSeconds", w.nanos() / 1e9);
    ArrayNode records = out.putArray("records");
    // The filter, after the records: the answer's shape before tail capture is unchanged up to
    // there.
    out.put("capture", capture == null ? null : capture.id());
    for (SlowRecord r : query.slowest(w.topic(), w.group(), capture, w.nanos(), limit)) {
      ObjectNode record = records.addObject();
      record.put("topic", r.topic());
      record.put("group", r.group());
      record.put("partition", r.partition());
      record.put("offset", r.offset());
      record.put("capture", r.capture().id());
      if (r.e2eNanos() < 0) {
        record.putNull("e2eSeconds");
      } else {
        record.put("e2eSeconds", r.e2eNanos() / 1e9);
      }
      record.put("e2eClockFlagged", r.e2eClockFlagged());
      ObjectNode segments = record.putObject("segments");
      for (SlowRecord.Part part : r.segments()) {
        part(segments, part).put("clockFlagged", part.clockFlagged());
      }
      ObjectNode combined = record.putObject("combined");
      for (SlowRecord.Part part : r.combined()) {
        part(combined, part);
      }
      record.put("traceId", r.traceIdHex());
      record.put("traceIdDerived", TailTraceIds.isDerived(traceIdHigh(r.traceIdHex())));
    }
    return new Response(200, "application/json", out.toString());
  }

  private static ObjectNode part(ObjectNode parent, SlowRecord.Part part) {
    ObjectNode segment = parent.putObject(part.segment());
    if (part.nanos() < 0) {
      segment.putNull("seconds");
    } else {
      segment.put("seconds", part.nanos() / 1e9);
    }
    segment.put("quality", part.quality().id());
    return segment;
  }

  private static long traceIdHigh(String traceIdHex) {
    return Long.parseUnsignedLong(traceIdHex.substring(0, 16), 16);
  }

  /**
   * The {@code capture} filter: {@code sampled}, {@code tail}, {@code opentelemetry}, or absent for
   * all.
   */
  static Capture captureParam(String value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    for (Capture c : Capture.values()) {
      if (c.id().equals(value)) {
        return c;
      }
    }
    throw new IllegalArgumentException("capture must be sampled, tail or opentelemetry: " + value);
  }

  private static String clocks(Supplier<List<ClockOffset>> clocks) {
    StringBuilder out = new StringBuilder("[");
    boolean first = true;
    for (ClockOffset c : clocks.get()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append("{\"fromHost\":").append(str(c.fromHost()));
      out.append(",\"toHost\":").append(str(c.toHost()));
      out.append(",\"offsetNanos\":").append(c.offsetNanos());
      out.append(",\"uncertaintyNanos\":")
          .append(c.bounded() ? Long.toString(c.uncertaintyNanos()) : "null");
      out.append(",\"lowerBoundNanos\":")
          .append(c.lowerNanos() == Long.MIN_VALUE ? "null" : Long.toString(c.lowerNanos()));
      out.append(",\"upperBoundNanos\":")
          .append(c.upperNanos() == Long.MAX_VALUE ? "null" : Long.toString(c.upperNanos()));
      out.append('}');
    }
    return out.append("]").toString();
  }

  private static String stats(Map<String, Long> stats) {
    StringBuilder out = new StringBuilder("{");
    boolean first = true;
    for (Map.Entry<String, Long> e : stats.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(str(e.getKey())).append(':').append(e.getValue());
    }
    return out.append('}').toString();
  }

  /** Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or plain seconds. */
  static long parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit;
    String number;
    if (t.endsWith("ms")) {
      unit = 1_000_000L;
      number = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      unit = 1_000_000_000L;
      number = t.substring(0, t.length() - 1);
    } else if (t.endsWith("m")) {
      unit = 60_000_000_000L;
      number = t.substring(0, t.length() - 1);
    } else if (t.endsWith("h")) {
      unit = 3_600_000_000_000L;
      number = t.substring(0, t.length() - 1);
    } else {
      unit = 1_000_000_000L;
      number = t;
    }
    try {
      double value = Double.parseDouble(number);
      if (!(value > 0) || value * unit > 1e18) {
        throw new IllegalArgumentException("window out of range: " + text);
      }
      return (long) (value * unit);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad window: " + text);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

package dev.klat.collector.export;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.OtlpPaths;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends each breakdown as a small trace ({@link BreakdownSpans}) to an OTLP/HTTP endpoint (Tempo in
 * the demo) through the OpenTelemetry SDK's exporter.
 *
 * <p>Breakdowns wait in a bounded queue; when it is full, or the endpoint fails, they are dropped
 * and counted, never retried: the traces are a view of breakdowns the metrics already hold, and
 * retrying against a backend that is down would only hold newer ones in the queue. One daemon
 * thread sends.
 */
public final class TraceExporter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(TraceExporter.class.getName());
  private static final int MAX_BATCH = 256;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final BlockingQueue<JoinedBreakdown> queue;
  private final SpanExporter exporter;
  private final Thread thread;
  private final AtomicLong exported = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private volatile boolean running = true;

  /**
   * @param endpoint the OTLP/HTTP base URL, for example {@code http://127.0.0.1:4318}; {@code
   *     /v1/traces} is appended unless the URL already ends with it
   * @param queueCapacity how many breakdowns may wait to be sent
   */
  public TraceExporter(String endpoint, int queueCapacity) {
    this(new Settings(endpoint, queueCapacity, Map.of(), null, null, null));
  }

  /**
   * Where and how traces go: {@code traces.endpoint}, {@code traces.queue-size}, {@code
   * traces.headers} (sent with every request, for example a tenant or an {@code Authorization}),
   * {@code traces.certificate} (PEM: the CA an {@code https} endpoint's certificate chains to,
   * instead of the JVM's), {@code traces.client.certificate} and {@code traces.client.key} (PEM,
   * the key PKCS#8: this collector's certificate, when the endpoint asks for one).
   *
   * @param certificate null for the JVM's trusted CAs
   * @param clientCertificate null for none, as {@code clientKey}
   */
  public record Settings(
      String endpoint,
      int queueCapacity,
      Map<String, String> headers,
      Path certificate,
      Path clientCertificate,
      Path clientKey) {}

  /**
   * Starts the exporter.
   *
   * @throws IllegalArgumentException naming the setting whose file cannot be read
   */
  public TraceExporter(Settings settings) {
    String endpoint = settings.endpoint();
    String url =
        endpoint.endsWith(OtlpPaths.TRACES) ? endpoint : stripSlash(endpoint) + OtlpPaths.TRACES;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    OtlpHttpSpanExporterBuilder builder =
        OtlpHttpSpanExporter.builder()
            .setEndpoint(url)
            .setTimeout(TIMEOUT)
            .setConnectTimeout(Duration.ofSeconds(5))
            .setRetryPolicy(null);
    settings.headers().forEach(builder::addHeader);
    if (settings.certificate() != null) {
      builder.setTrustedCertificates(read("traces.certificate", settings.certificate()));
    }
    if (settings.clientCertificate() != null) {
      builder.setClientTls(
          read("traces.client.key", settings.clientKey()),
          read("traces.client.certificate", settings.clientCertificate()));
    }
    this.exporter = builder.build();
    this.thread = new Thread(this::run, "klat-trace-exporter");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues one breakdown; drops and counts it when the queue is full. */
  public void offer(JoinedBreakdown breakdown) {
    if (!breakdown.hasTraceId() || !queue.offer(breakdown)) {
      dropped.incrementAndGet();
    }
  }

  /** Breakdowns whose spans the endpoint accepted. */
  public long exported() {
    return exported.get();
  }

  /** Breakdowns dropped: queue full, no trace id, or the endpoint refused them. */
  public long dropped() {
    return dropped.get();
  }

  private void run() {
    List<JoinedBreakdown> batch = new ArrayList<>(MAX_BATCH);
    while (running || !queue.isEmpty()) {
      try {
        JoinedBreakdown first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        send(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "trace export failed", e);
        dropped.addAndGet(batch.size());
      } finally {
        batch.clear();
      }
    }
  }

  private void send(List<JoinedBreakdown> batch) {
    List<SpanData> spans = new ArrayList<>(batch.size() * 7);
    for (JoinedBreakdown b : batch) {
      spans.addAll(BreakdownSpans.of(b));
    }
    CompletableResultCode result =
        exporter.export(spans).join(2 * TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    if (result.isSuccess()) {
      exported.addAndGet(batch.size());
    } else {
      // The exporter logs the failure itself, throttled.
      dropped.addAndGet(batch.size());
    }
  }

  private static byte[] read(String setting, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(setting + ": cannot read " + file + ": " + e, e);
    }
  }

  /**
   * Parses {@code traces.headers} as OpenTelemetry's {@code OTEL_EXPORTER_OTLP_HEADERS}: {@code
   * key=value} pairs separated by commas, each side URL-decoded (so {@code %2C} is a comma in a
   * value) and trimmed. The message of a bad value names the pair by position, never its value (it
   * may be a credential).
   *
   * @throws IllegalArgumentException naming {@code setting}
   */
  public static Map<String, String> parseHeaders(String setting, String value) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (value == null || value.isBlank()) {
      return headers;
    }
    String[] pairs = value.split(",");
    for (int i = 0; i < pairs.length; i++) {
      String pair = pairs[i];
      int eq = pair.indexOf('=');
      String key;
      String decoded;
      try {
        key = eq < 0 ? "" : decode(pair.substring(0, eq)).trim();
        decoded = eq < 0 ? "" : decode(pair.substring(eq + 1)).trim();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            setting + ": pair " + (i + 1) + " has a bad %-escape (key=value,key2=value2)");
      }
      if (key.isEmpty() || !key.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        throw new IllegalArgumentException(
            setting + ": pair " + (i + 1) + " is not key=value with a header name as key");
      }
      headers.put(key, decoded);
    }
    return headers;
  }

  // Percent-decoding only: a '+' stays a '+' (a base64 credential keeps it).
  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    exporter.shutdown().join(5, TimeUnit.SECONDS);
  }
}

package dev.klat.collector.export;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.OtlpPaths;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    String url =
        endpoint.endsWith(OtlpPaths.TRACES) ? endpoint : stripSlash(endpoint) + OtlpPaths.TRACES;
    this.queue = new ArrayBlockingQueue<>(queueCapacity);
    this.exporter =
        OtlpHttpSpanExporter.builder()
            .setEndpoint(url)
            .setTimeout(TIMEOUT)
            .setConnectTimeout(Duration.ofSeconds(5))
            .setRetryPolicy(null)
            .build();
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

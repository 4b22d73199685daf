package dev.klat.agent.export;

import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.DoubleSupplier;

/**
 * The export pipeline: a metrics registry, a bounded queue of spans, and one daemon thread, {@code
 * klat-exporter}, that sends both to an OTLP/HTTP endpoint.
 *
 * <h2>Threads and memory</h2>
 *
 * <p>{@link #offer} never blocks and never allocates more than a queue node: a compare-and-swap
 * reserves a slot, and when the queue holds {@link ExportSettings#spanQueueCapacity()} spans the
 * span is dropped and counted. Instruments from {@link #metrics()} record without locks. Only the
 * exporter thread does I/O. It sends spans in batches of at most {@link
 * ExportSettings#maxSpansPerRequest()} (when a batch is full, or every {@link
 * ExportSettings#spanFlushIntervalMillis()}), and the metrics every {@link
 * ExportSettings#metricsIntervalMillis()}, cumulative. Memory is bounded by the queue plus one
 * encoded batch being retried.
 *
 * <h2>Failures</h2>
 *
 * <p>A retryable failure (refused, timed out, HTTP 429/502/503/504) pauses all sending for the
 * server's {@code Retry-After} or an exponential backoff; meanwhile the queue fills and then drops.
 * A span batch is tried at most {@value #MAX_ATTEMPTS_PER_BATCH} times, then dropped. A failed
 * metrics request is never resent: the next one carries the same cumulative totals, newer. A
 * rejected request (other 4xx/5xx) is dropped at once. Every failure is counted, and warned about
 * through the {@link ExportLog} at most once a minute per kind. The pipeline's own health is
 * exported as metrics too (see {@link #DROPPED_SPANS_METRIC} and its siblings).
 *
 * <p>Nothing is registered with the JVM: the caller adds a shutdown hook that calls {@link
 * #shutdown}.
 */
public final class Telemetry {

  // The exporter's own health, named in model/ like every other metric.
  /** Spans dropped, because the queue was full or their export failed for good. */
  public static final String DROPPED_SPANS_METRIC = MetricDef.AGENT_EXPORT_SPANS_DROPPED.name();

  /** Spans the endpoint accepted. */
  public static final String EXPORTED_SPANS_METRIC = MetricDef.AGENT_EXPORT_SPANS_EXPORTED.name();

  /** Export requests (spans or metrics) that did not succeed, each attempt counted. */
  public static final String FAILED_EXPORTS_METRIC = MetricDef.AGENT_EXPORT_REQUESTS_FAILED.name();

  /** Metric series requests refused because the registry was full. */
  public static final String SERIES_OVERFLOW_METRIC = MetricDef.AGENT_EXPORT_SERIES_OVERFLOW.name();

  /** How many times a batch of spans is sent before it is dropped, {@value}. */
  static final int MAX_ATTEMPTS_PER_BATCH = 5;

  /** At most this many data points per metrics request, about 1.8 MB of histograms. */
  static final int MAX_POINTS_PER_METRICS_REQUEST = 256;

  static final Set<String> RESERVED_RESOURCE_KEYS =
      Collections.unmodifiableSet(
          new HashSet<>(
              Arrays.asList(
                  "service.name",
                  "telemetry.sdk.name",
                  "telemetry.sdk.language",
                  "telemetry.sdk.version",
                  SpanAttributes.INSTANCE_ID.name(),
                  SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name(),
                  SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name())));

  // offer() does not wake the exporter (unpark takes a mutex inside the JVM), so the exporter
  // polls: a full batch waits at most this long.
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long ERROR_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ExportSettings settings;
  private final TimeSource time;
  private final RateLimitedLog log;
  private final MetricsRegistry registry;
  private final OtlpHttpSender sender;
  private final Backoff backoff;
  private final String agentVersion;
  private final long startEpochNanos;
  private final int batchTrigger;
  private final Thread thread;
  private final CountDownLatch terminated = new CountDownLatch(1);

  private final ConcurrentLinkedQueue<SpanRecord> queue = new ConcurrentLinkedQueue<>();
  // Reserved queue slots: incremented before a span is added, decremented after one is removed,
  // so it is never below the queue's length and never above the capacity.
  private final AtomicInteger queued = new AtomicInteger();
  private final LongAdder droppedSpans = new LongAdder();
  private final AtomicLong exportedSpans = new AtomicLong();
  private final AtomicLong failedExports = new AtomicLong();

  private volatile boolean closing;
  private volatile long flushDeadlineNanos;

  // Confined to the exporter thread.
  private OtlpEncoder encoder;
  private Batch pending;
  private long backoffUntilNanos;
  private long nextSpanFlushNanos;
  private long nextMetricsNanos;
  private long droppedAtLastWarning;
  private long overflowAtLastWarning;

  Telemetry(ExportSettings settings, ExportLog log, TimeSource time, DoubleSupplier random) {
    this.settings = settings;
    this.time = time;
    this.log = new RateLimitedLog(log == null ? ExportLog.NONE : log, time);
    this.registry = new MetricsRegistry(settings.maxMetricSeries(), time);
    this.agentVersion = agentVersion();
    try {
      this.sender =
          new OtlpHttpSender(
              settings.endpoint(), settings.headers(), settings.gzip(), agentVersion, time);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid endpoint " + settings.endpoint(), e);
    }
    this.backoff = new Backoff(random);
    this.startEpochNanos = time.epochNanos();
    this.batchTrigger = Math.min(settings.maxSpansPerRequest(), settings.spanQueueCapacity());
    long now = time.nanoTime();
    this.backoffUntilNanos = now;
    this.nextSpanFlushNanos =
        now + TimeUnit.MILLISECONDS.toNanos(settings.spanFlushIntervalMillis());
    this.nextMetricsNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.metricsIntervalMillis());
    this.thread = new Thread(this::run, "klat-exporter");
    thread.setDaemon(true);
    // Not the creating thread's loader: that may be a web application's, which this thread would
    // then keep alive.
    thread.setContextClassLoader(Telemetry.class.getClassLoader());
    thread.setUncaughtExceptionHandler((t, e) -> {});
  }

  /**
   * Starts the pipeline and its exporter thread.
   *
   * @param settings the settings
   * @return the running pipeline
   */
  public static Telemetry start(ExportSettings settings) {
    return start(settings, ExportLog.NONE);
  }

  /**
   * Starts the pipeline and its exporter thread.
   *
   * @param settings the settings
   * @param log where warnings go, already rate-limited; null discards them
   * @return the running pipeline
   */
  public static Telemetry start(ExportSettings settings, ExportLog log) {
    Telemetry telemetry =
        new Telemetry(
            settings, log, TimeSource.SYSTEM, () -> ThreadLocalRandom.current().nextDouble());
    telemetry.thread.start();
    return telemetry;
  }

  /**
   * Returns the registry whose instruments are exported.
   *
   * @return the registry, bounded by {@link ExportSettings#maxMetricSeries()}
   */
  public MetricsRegistry metrics() {
    return registry;
  }

  /**
   * Hands a finished span to the exporter. Never blocks and never throws; lock-free.
   *
   * @param span the span; the caller must not use it afterwards
   * @return true if queued, false if dropped because the queue is full or the pipeline is shut down
   *     (counted in {@link #droppedSpans()}), or because {@code span} is null
   */
  public boolean offer(SpanRecord span) {
    if (span == null) {
      return false;
    }
    if (closing) {
      droppedSpans.increment();
      return false;
    }
    int capacity = settings.spanQueueCapacity();
    int current;
    do {
      current = queued.get();
      if (current >= capacity) {
        droppedSpans.increment();
        return false;
      }
    } while (!queued.compareAndSet(current, current + 1));
    queue.offer(span);
    return true;
  }

  /**
   * Returns how many spans were dropped: queue full, offered after shutdown, invalid ids, or export
   * failed for good.
   *
   * @return the number of dropped spans
   */
  public long droppedSpans() {
    return droppedSpans.sum();
  }

  /**
   * Returns how many spans the endpoint accepted.
   *
   * @return the number of exported spans
   */
  public long exportedSpans() {
    return exportedSpans.get();
  }

  /**
   * Returns how many export requests failed, retried attempts included.
   *
   * @return the number of failed requests
   */
  public long failedExports() {
    return failedExports.get();
  }

  /**
   * Returns how many spans wait in the queue.
   *
   * @return at most {@link ExportSettings#spanQueueCapacity()}
   */
  public int queuedSpans() {
    return queued.get();
  }

  /**
   * Stops the pipeline: exports the metrics and the queued spans once more, without retries, then
   * stops the exporter thread. Returns within {@code timeoutMillis} even if the endpoint hangs; the
   * spans not sent by then are dropped. A later call only waits, within its own timeout, for the
   * same stop. Never throws.
   *
   * @param timeoutMillis the most time to spend; 0 or less stops without a final export
   */
  public void shutdown(long timeoutMillis) {
    try {
      long startNanos = time.nanoTime();
      long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis));
      if (!closing) {
        // The exporter's own deadline comes a little earlier, so that it normally finishes and
        // accounts for every span before this method has to give up on it.
        long marginNanos = Math.min(timeoutNanos / 5, TimeUnit.MILLISECONDS.toNanos(200));
        flushDeadlineNanos = startNanos + timeoutNanos - marginNanos;
        closing = true;
      }
      if (Thread.currentThread() == thread) {
        return;
      }
      LockSupport.unpark(thread);
      awaitTermination(startNanos + timeoutNanos);
      if (terminated.getCount() != 0) {
        sender.abort();
        thread.interrupt();
      }
      // Spans offered while closing, or left by an exporter that did not finish in time.
      dropQueued();
    } catch (Throwable ignored) {
      // Called from a shutdown hook: nothing useful can be done with an error here.
    }
  }

  private void awaitTermination(long deadlineNanos) {
    boolean interrupted = false;
    try {
      while (true) {
        long remaining = deadlineNanos - time.nanoTime();
        if (remaining <= 0) {
          return;
        }
        try {
          if (terminated.await(remaining, TimeUnit.NANOSECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    try {
      while (!closing) {
        long waitNanos;
        try {
          waitNanos = runOnce();
        } catch (Throwable t) {
          log.warn(RateLimitedLog.Kind.INTERNAL_ERROR, "exporter error: " + t);
          waitNanos = ERROR_PAUSE_NANOS;
        }
        if (waitNanos > 0 && !closing) {
          LockSupport.parkNanos(this, waitNanos);
        }
        // Someone else's interrupt would make every later park return at once.
        Thread.interrupted();
      }
      finalFlush();
    } catch (Throwable t) {
      log.warn(RateLimitedLog.Kind.INTERNAL_ERROR, "exporter stopped: " + t);
    } finally {
      if (pending != null) {
        droppedSpans.add(pending.spanCount);
        pending = null;
      }
      dropQueued();
      warnAboutDrops();
      terminated.countDown();
    }
  }

  /**
   * Does whatever is due now: a span batch, the metrics, or nothing during a backoff.
   *
   * @return how long to wait before the next call, in nanoseconds
   */
  long runOnce() {
    long now = time.nanoTime();
    warnAboutDrops();
    if (now - backoffUntilNanos < 0) {
      return Math.min(backoffUntilNanos - now, TICK_NANOS);
    }
    if (pending == null) {
      int waiting = queued.get();
      boolean timerDue = now - nextSpanFlushNanos >= 0;
      if (timerDue) {
        nextSpanFlushNanos =
            now + TimeUnit.MILLISECONDS.toNanos(settings.spanFlushIntervalMillis());
      }
      if (waiting >= batchTrigger || (waiting > 0 && timerDue)) {
        pending = takeBatch();
      }
    }
    boolean moreSpans = false;
    if (pending != null) {
      if (!sendPending(false, settings.connectTimeoutMillis(), settings.readTimeoutMillis())) {
        return Math.max(0, backoffUntilNanos - time.nanoTime());
      }
      moreSpans = queued.get() >= batchTrigger;
    }
    // Checked after every batch, so that a steady stream of spans cannot starve the metrics.
    now = time.nanoTime();
    if (now - nextMetricsNanos >= 0) {
      nextMetricsNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.metricsIntervalMillis());
      if (!exportMetrics(false, settings.connectTimeoutMillis(), settings.readTimeoutMillis())) {
        return Math.max(0, backoffUntilNanos - time.nanoTime());
      }
    }
    if (moreSpans) {
      return 0;
    }
    now = time.nanoTime();
    long wait = Math.min(TICK_NANOS, nextMetricsNanos - now);
    return Math.max(0, Math.min(wait, nextSpanFlushNanos - now));
  }

  private void finalFlush() {
    long deadline = flushDeadlineNanos;
    if (deadline - time.nanoTime() <= 0) {
      return;
    }
    // Metrics first: one request carrying the totals of the last interval, lost otherwise.
    if (!exportMetrics(
        true,
        timeoutBefore(deadline, settings.connectTimeoutMillis()),
        timeoutBefore(deadline, settings.readTimeoutMillis()))) {
      return;
    }
    while (deadline - time.nanoTime() > 0) {
      if (pending == null) {
        if (queued.get() == 0) {
          return;
        }
        pending = takeBatch();
        if (pending == null) {
          continue;
        }
      }
      if (!sendPending(
          true,
          timeoutBefore(deadline, settings.connectTimeoutMillis()),
          timeoutBefore(deadline, settings.readTimeoutMillis()))) {
        // Unreachable: the rest would fail the same way, each waiting for a timeout.
        return;
      }
    }
  }

  private int timeoutBefore(long deadlineNanos, int configuredMillis) {
    long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - time.nanoTime());
    return (int) Math.max(1, Math.min(configuredMillis, remainingMillis));
  }

  /** Removes up to one batch of spans from the queue and encodes it; null if none was valid. */
  private Batch takeBatch() {
    List<SpanRecord> spans = new ArrayList<>(Math.min(queued.get(), batchTrigger));
    while (spans.size() < settings.maxSpansPerRequest()) {
      SpanRecord span = queue.poll();
      if (span == null) {
        break;
      }
      queued.decrementAndGet();
      if (span.hasValidIds()) {
        spans.add(span);
      } else {
        droppedSpans.increment();
      }
    }
    if (spans.isEmpty()) {
      return null;
    }
    try {
      return new Batch(encoder().encodeSpans(spans), spans.size());
    } catch (RuntimeException e) {
      droppedSpans.add(spans.size());
      throw e;
    }
  }

  /** Returns false if sending must pause (a backoff was set, or the final flush should stop). */
  private boolean sendPending(boolean finalFlush, int connectTimeoutMillis, int readTimeoutMillis) {
    OtlpHttpSender.Result result =
        sender.sendTraces(pending.body, connectTimeoutMillis, readTimeoutMillis);
    switch (result.outcome) {
      case SUCCESS:
        exportedSpans.addAndGet(pending.spanCount);
        pending = null;
        backoff.reset();
        return true;
      case RETRYABLE:
        failedExports.incrementAndGet();
        pending.attempts++;
        if (finalFlush || pending.attempts >= MAX_ATTEMPTS_PER_BATCH) {
          droppedSpans.add(pending.spanCount);
          pending = null;
        }
        log.warn(
            RateLimitedLog.Kind.EXPORT_RETRYABLE,
            "sending spans to " + settings.endpoint() + " failed, will retry: " + result.detail);
        startBackoff(result);
        return false;
      default:
        failedExports.incrementAndGet();
        droppedSpans.add(pending.spanCount);
        pending = null;
        log.warn(
            RateLimitedLog.Kind.EXPORT_REJECTED,
            "spans rejected by " + settings.endpoint() + ", dropped: " + result.detail);
        return true;
    }
  }

  /** Returns false if sending must pause (a backoff was set, or the final flush should stop). */
  private boolean exportMetrics(
      boolean finalFlush, int connectTimeoutMillis, int readTimeoutMillis) {
    List<MetricFamily> families = registry.collect();
    families.addAll(healthFamilies());
    long timeEpochNanos = time.epochNanos();
    for (List<MetricFamily> chunk : OtlpEncoder.chunk(families, MAX_POINTS_PER_METRICS_REQUEST)) {
      byte[] body = encoder().encodeMetrics(chunk, timeEpochNanos);
      if (body == null) {
        continue;
      }
      OtlpHttpSender.Result result =
          sender.sendMetrics(body, connectTimeoutMillis, readTimeoutMillis);
      if (result.outcome == OtlpHttpSender.Outcome.SUCCESS) {
        backoff.reset();
        continue;
      }
      failedExports.incrementAndGet();
      if (result.outcome == OtlpHttpSender.Outcome.RETRYABLE) {
        log.warn(
            RateLimitedLog.Kind.EXPORT_RETRYABLE,
            "sending metrics to " + settings.endpoint() + " failed, will retry: " + result.detail);
        // The remaining chunks are dropped too: the next export carries newer totals.
        if (!finalFlush) {
          startBackoff(result);
        }
        return false;
      }
      log.warn(
          RateLimitedLog.Kind.EXPORT_REJECTED,
          "metrics rejected by " + settings.endpoint() + ", dropped: " + result.detail);
    }
    return true;
  }

  private List<MetricFamily> healthFamilies() {
    List<MetricFamily> health = new ArrayList<>(4);
    health.add(
        counter(
            DROPPED_SPANS_METRIC,
            "Spans the agent dropped: queue full, or their export failed for good.",
            droppedSpans.sum()));
    health.add(counter(EXPORTED_SPANS_METRIC, "Spans the endpoint accepted.", exportedSpans.get()));
    health.add(
        counter(
            FAILED_EXPORTS_METRIC,
            "Export requests that did not succeed, each attempt counted.",
            failedExports.get()));
    health.add(
        counter(
            SERIES_OVERFLOW_METRIC,
            "Metric series refused because the agent's registry was full.",
            registry.overflowCount()));
    return health;
  }

  private MetricFamily counter(String name, String description, long value) {
    MetricFamily family =
        new MetricFamily(
            name, description, MetricDef.Unit.NONE.otelUnit(), MetricDef.Instrument.COUNTER);
    family.addLong(new String[0], new String[0], startEpochNanos, value);
    return family;
  }

  private void startBackoff(OtlpHttpSender.Result result) {
    long delayMillis = backoff.nextDelayMillis(result.retryAfterMillis);
    backoffUntilNanos = time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
  }

  private void warnAboutDrops() {
    long dropped = droppedSpans.sum();
    if (dropped > droppedAtLastWarning
        && log.warn(
            RateLimitedLog.Kind.SPANS_DROPPED,
            (dropped - droppedAtLastWarning)
                + " spans dropped (queue full or export failed), "
                + dropped
                + " in total")) {
      droppedAtLastWarning = dropped;
    }
    long overflow = registry.overflowCount();
    if (overflow > overflowAtLastWarning
        && log.warn(
            RateLimitedLog.Kind.SERIES_OVERFLOW,
            "more than "
                + settings.maxMetricSeries()
                + " metric series; new ones are reported with tags \""
                + MetricsRegistry.OVERFLOW_TAG_VALUE
                + "\"")) {
      overflowAtLastWarning = overflow;
    }
  }

  private void dropQueued() {
    SpanRecord span;
    while ((span = queue.poll()) != null) {
      queued.decrementAndGet();
      droppedSpans.increment();
    }
  }

  private OtlpEncoder encoder() {
    if (encoder == null) {
      encoder = new OtlpEncoder(resourceAttributes(), agentVersion, sender.clockSync());
    }
    return encoder;
  }

  /** Runs on the exporter thread: the host name lookup may take seconds. */
  Map<String, Object> resourceAttributes() {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("service.name", settings.serviceName());
    attributes.put("service.instance.id", String.format("%016x", settings.instanceId()));
    String hostName = settings.hostName() != null ? settings.hostName() : lookUpHostName();
    if (hostName != null) {
      attributes.put("host.name", hostName);
    }
    attributes.put("telemetry.sdk.name", "klat");
    attributes.put("telemetry.sdk.language", "java");
    attributes.put("telemetry.sdk.version", agentVersion);
    attributes.putAll(settings.resourceAttributes());
    attributes.put(SpanAttributes.INSTANCE_ID.name(), settings.instanceId());
    return attributes;
  }

  private static String lookUpHostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      String env = System.getenv("HOSTNAME");
      return env == null || env.isEmpty() ? null : env;
    }
  }

  private static String agentVersion() {
    Package p = Telemetry.class.getPackage();
    String version = p == null ? null : p.getImplementationVersion();
    return version == null ? "unknown" : version;
  }

  /** The clock exchange with the endpoint; exporter thread only (tests read it once stopped). */
  ClockSync clockSync() {
    return sender.clockSync();
  }

  Thread exporterThread() {
    return thread;
  }

  void startThread() {
    thread.start();
  }

  /** A batch of spans encoded as one request, kept for retries. */
  private static final class Batch {
    final byte[] body;
    final int spanCount;
    int attempts;

    Batch(byte[] body, int spanCount) {
      this.body = body;
      this.spanCount = spanCount;
    }
  }
}

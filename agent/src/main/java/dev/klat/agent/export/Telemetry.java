package dev.klat.agent.export;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.ClockSync;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.model.MetricDef;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * <p><b>Tail spans</b> ({@link #offerTail}) wait in a queue of their own beside it ({@link
 * ExportSettings#tailQueueCapacity()}), so that they never take a sampled span's place; each
 * request takes up to a quarter of its spans from it first. Their drops and exports are also
 * counted apart ({@code klat.agent.tail.spans.*}).
 *
 * <h2>Failures</h2>
 *
 * <p>A retryable failure (refused, timed out, HTTP 429/502/503/504) pauses all sending for the
 * server's {@code Retry-After} or an exponential backoff; meanwhile the queue fills and then drops.
 * A span batch is tried at most {@value SpanExport#MAX_ATTEMPTS_PER_BATCH} times, then dropped. A
 * failed metrics request is never resent: the next one carries the same cumulative totals, newer. A
 * rejected request (other 4xx/5xx, 401 and 403 included) is dropped at once. Every failure is
 * counted by reason, and warned about through the {@link ExportLog} at most once a minute per kind;
 * a configuration problem (a refused token, an untrusted or expired certificate: {@link
 * dev.klat.agentcore.otlp.FailureReason#explained()}) instead once, with what to check ({@link
 * ExportLog#warnOnce}). The pipeline's own health is exported as metrics too (see {@link
 * ExportCounters}).
 *
 * <p>Nothing is registered with the JVM: the caller adds a shutdown hook that calls {@link
 * #shutdown}.
 */
public final class Telemetry {

  // offer() does not wake the exporter (unpark takes a mutex inside the JVM), so the exporter
  // polls: a full batch waits at most this long.
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long ERROR_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ExportSettings settings;
  private final TimeSource time;
  private final RateLimitedLog log;
  private final MetricsRegistry registry;
  private final OtlpHttpSender sender;
  private final ExportChannel channel;
  private final String agentVersion;
  private final MetricsExport metricsExport;
  private final DropWarnings dropWarnings;
  private final int batchTrigger;
  private final Thread thread;
  private final CountDownLatch terminated = new CountDownLatch(1);

  private final ExportCounters counters = new ExportCounters();
  private final SpanQueue queue;
  private final SpanQueue tailQueue;
  private final SpanExport spans;
  // Set once, by the runtime; run by the exporter thread about once a second.
  private volatile Runnable everySecond;

  private volatile boolean closing;
  private volatile long flushDeadlineNanos;

  // Confined to the exporter thread.
  private OtlpEncoder encoder;
  private long nextSpanFlushNanos;
  private long nextMetricsNanos;
  private long nextSecondNanos;

  Telemetry(ExportSettings settings, ExportLog log, TimeSource time, DoubleSupplier random) {
    this.settings = settings;
    this.time = time;
    this.log = new RateLimitedLog(log == null ? ExportLog.NONE : log, time);
    this.registry = new MetricsRegistry(settings.maxMetricSeries(), time);
    this.agentVersion = ResourceAttributes.agentVersion();
    this.queue = new SpanQueue(settings.spanQueueCapacity(), counters);
    Counter tailFailed = registry.counter(MetricDef.AGENT_TAIL_SPANS_DROPPED, "export_failed");
    this.tailQueue =
        new SpanQueue(
            settings.tailQueueCapacity(),
            counters,
            registry.counter(MetricDef.AGENT_TAIL_SPANS_DROPPED, "queue_full"),
            tailFailed);
    try {
      this.sender =
          new OtlpHttpSender(
              settings.endpoint(),
              settings.headers(),
              settings.tls(),
              settings.gzip(),
              agentVersion,
              time);
    } catch (IOException e) {
      // Not the cause: its message quotes the URL, user info and all.
      throw new IllegalArgumentException(
          "invalid endpoint " + Secrets.redactUserInfo(settings.endpoint()));
    }
    this.channel = new ExportChannel(sender, this.log, counters, time, random);
    this.metricsExport = new MetricsExport(registry, channel, time);
    this.spans =
        new SpanExport(
            queue,
            tailQueue,
            registry.counter(MetricDef.AGENT_TAIL_SPANS_EXPORTED),
            tailFailed,
            channel,
            settings.maxSpansPerRequest());
    this.dropWarnings = new DropWarnings(this.log, settings.maxMetricSeries());
    this.batchTrigger = Math.min(settings.maxSpansPerRequest(), settings.spanQueueCapacity());
    long now = time.nanoTime();
    this.nextSpanFlushNanos =
        now + TimeUnit.MILLISECONDS.toNanos(settings.spanFlushIntervalMillis());
    this.nextMetricsNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.metricsIntervalMillis());
    this.nextSecondNanos = now + SECOND_NANOS;
    // Named classes rather than lambdas: the pipeline starts while the first kafka-clients class
    // loads, and each lambda would be a class generated then.
    this.thread = new Thread(new Loop(this), "klat-exporter");
    thread.setDaemon(true);
    // Not the creating thread's loader: that may be a web application's, which this thread would
    // then keep alive.
    thread.setContextClassLoader(Telemetry.class.getClassLoader());
    thread.setUncaughtExceptionHandler(Loop.STATELESS);
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
    Telemetry telemetry = new Telemetry(settings, log, TimeSource.SYSTEM, Loop.STATELESS);
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
    return span != null && queue.offer(span);
  }

  /**
   * Hands a finished tail span to the exporter, into the tail spans' own share of the queue: it
   * never takes a sampled span's place. Never blocks and never throws; lock-free.
   *
   * @param span the span; the caller must not use it afterwards
   * @return true if queued, false if dropped (counted in {@code
   *     klat.agent.tail.spans.dropped{reason=queue_full}}) or null
   */
  public boolean offerTail(SpanRecord span) {
    return span != null && tailQueue.offer(span);
  }

  /**
   * Runs {@code task} on the exporter thread about once a second from now on (off every hot path:
   * the tail thresholds' windows move there). One task; a later call replaces it. The task must not
   * block; what it throws is logged and ignored.
   */
  public void runEverySecond(Runnable task) {
    everySecond = task;
  }

  /**
   * Returns how many spans were dropped: queue full, offered after shutdown, invalid ids, or export
   * failed for good.
   *
   * @return the number of dropped spans
   */
  public long droppedSpans() {
    return counters.droppedSpans();
  }

  /**
   * Returns how many spans the endpoint accepted.
   *
   * @return the number of exported spans
   */
  public long exportedSpans() {
    return counters.exportedSpans();
  }

  /**
   * Returns how many export requests failed, retried attempts included.
   *
   * @return the number of failed requests
   */
  public long failedExports() {
    return counters.failedExports();
  }

  /**
   * Returns how many spans wait in the queue.
   *
   * @return at most {@link ExportSettings#spanQueueCapacity()}
   */
  public int queuedSpans() {
    return queue.size();
  }

  /** How many tail spans wait in their queue. */
  int queuedTailSpans() {
    return tailQueue.size();
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
        queue.close();
        tailQueue.close();
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
      queue.dropAll();
      tailQueue.dropAll();
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
      spans.dropPending();
      queue.dropAll();
      tailQueue.dropAll();
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
    runEverySecondIfDue(now);
    long backoffUntilNanos = channel.backoffUntilNanos();
    if (now - backoffUntilNanos < 0) {
      return Math.min(backoffUntilNanos - now, TICK_NANOS);
    }
    if (!spans.hasPending()) {
      int waiting = spans.waiting();
      boolean timerDue = now - nextSpanFlushNanos >= 0;
      if (timerDue) {
        nextSpanFlushNanos =
            now + TimeUnit.MILLISECONDS.toNanos(settings.spanFlushIntervalMillis());
      }
      if (waiting >= batchTrigger || (waiting > 0 && timerDue)) {
        spans.takeBatch(encoder());
      }
    }
    boolean moreSpans = false;
    if (spans.hasPending()) {
      if (!sendPending(false, settings.connectTimeoutMillis(), settings.readTimeoutMillis())) {
        return Math.max(0, channel.backoffUntilNanos() - time.nanoTime());
      }
      moreSpans = spans.waiting() >= batchTrigger;
    }
    // Checked after every batch, so that a steady stream of spans cannot starve the metrics.
    now = time.nanoTime();
    if (now - nextMetricsNanos >= 0) {
      nextMetricsNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.metricsIntervalMillis());
      if (!exportMetrics(false, settings.connectTimeoutMillis(), settings.readTimeoutMillis())) {
        return Math.max(0, channel.backoffUntilNanos() - time.nanoTime());
      }
    }
    if (moreSpans) {
      return 0;
    }
    now = time.nanoTime();
    long wait = Math.min(TICK_NANOS, nextMetricsNanos - now);
    return Math.max(0, Math.min(wait, nextSpanFlushNanos - now));
  }

  // Called first in runOnce, before a backoff can return early: the task keeps its pace whatever
  // the endpoint does.
  private void runEverySecondIfDue(long now) {
    Runnable task = everySecond;
    if (task == null || now - nextSecondNanos < 0) {
      return;
    }
    nextSecondNanos = now + SECOND_NANOS;
    try {
      task.run();
    } catch (Throwable t) {
      log.warn(RateLimitedLog.Kind.INTERNAL_ERROR, "exporter's periodic task failed: " + t);
    }
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
      if (!spans.hasPending()) {
        if (spans.waiting() == 0) {
          return;
        }
        if (!spans.takeBatch(encoder())) {
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

  /** Returns false if sending must pause (a backoff was set, or the final flush should stop). */
  private boolean sendPending(boolean finalFlush, int connectTimeoutMillis, int readTimeoutMillis) {
    OtlpHttpSender.Result failure =
        spans.sendPending(finalFlush, connectTimeoutMillis, readTimeoutMillis);
    if (failure == null) {
      return true;
    }
    channel.pauseAfter(failure);
    return false;
  }

  /** Returns false if sending must pause (a backoff was set, or the final flush should stop). */
  private boolean exportMetrics(
      boolean finalFlush, int connectTimeoutMillis, int readTimeoutMillis) {
    OtlpHttpSender.Result failure =
        metricsExport.send(encoder(), connectTimeoutMillis, readTimeoutMillis);
    if (failure == null) {
      return true;
    }
    if (!finalFlush) {
      channel.pauseAfter(failure);
    }
    return false;
  }

  private void warnAboutDrops() {
    dropWarnings.check(counters.droppedSpans(), registry.overflowCount());
  }

  private OtlpEncoder encoder() {
    if (encoder == null) {
      encoder =
          new OtlpEncoder(
              ResourceAttributes.of(settings, agentVersion), agentVersion, sender.clockSync());
    }
    return encoder;
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

  /** The exporter thread's body, and the small functions the pipeline needs, without lambdas. */
  private static final class Loop
      implements Runnable, Thread.UncaughtExceptionHandler, DoubleSupplier {
    /** Ignores uncaught exceptions and draws random numbers: needs no pipeline. */
    static final Loop STATELESS = new Loop(null);

    private final Telemetry telemetry;

    Loop(Telemetry telemetry) {
      this.telemetry = telemetry;
    }

    @Override
    public void run() {
      telemetry.run();
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {}

    @Override
    public double getAsDouble() {
      return ThreadLocalRandom.current().nextDouble();
    }
  }
}

package dev.klat.agent.export;

import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.Backoff;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The exporter thread's way to the endpoint, shared by span and metrics export: the HTTP sender,
 * one backoff for both after a retryable failure, the rate-limited log and the health counters.
 * Exporter thread only.
 */
final class ExportChannel {
  final OtlpHttpSender sender;
  final RateLimitedLog log;
  final ExportCounters counters;
  private final TimeSource time;
  private final Backoff backoff;
  private long backoffUntilNanos;

  ExportChannel(
      OtlpHttpSender sender,
      RateLimitedLog log,
      ExportCounters counters,
      TimeSource time,
      DoubleSupplier random) {
    this.sender = sender;
    this.log = log;
    this.counters = counters;
    this.time = time;
    this.backoff = new Backoff(random);
    this.backoffUntilNanos = time.nanoTime();
  }

  /** A request got through: the next failure backs off from the shortest delay again. */
  void succeeded() {
    backoff.reset();
  }

  /**
   * Whether {@code failure} is a configuration problem ({@link
   * dev.klat.agentcore.otlp.FailureReason#explained()}): then its advice, on the first failure of
   * its reason, goes to the log once, and no other warning follows for it; the counters tell how
   * often it recurs.
   */
  boolean explain(OtlpHttpSender.Result failure) {
    if (failure.reason == null || !failure.reason.explained()) {
      return false;
    }
    if (failure.advice != null) {
      log.warnOnce(failure.reason.id, failure.advice);
    }
    return true;
  }

  /** Pauses all sending for the server's {@code Retry-After} or the next backoff delay. */
  void pauseAfter(OtlpHttpSender.Result failure) {
    long delayMillis = backoff.nextDelayMillis(failure.retryAfterMillis);
    backoffUntilNanos = time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
  }

  /** When sending may resume, on {@link TimeSource#nanoTime()}. */
  long backoffUntilNanos() {
    return backoffUntilNanos;
  }
}

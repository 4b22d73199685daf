package dev.klat.agent.export;

import dev.klat.agentcore.clock.TimeSource;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Passes at most one warning per {@link Kind} per minute to an {@link ExportLog}, so that a
 * collector that is down for a day writes 1,440 lines, not millions, into the application's log.
 * The next warning of a kind says how many were suppressed. Never throws, even if the log does.
 */
final class RateLimitedLog {

  /** The kinds of warning that are rate-limited separately. */
  enum Kind {
    SPANS_DROPPED,
    EXPORT_RETRYABLE,
    EXPORT_REJECTED,
    SERIES_OVERFLOW,
    INTERNAL_ERROR
  }

  static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final String PREFIX = "klat export: ";

  private final ExportLog log;
  private final TimeSource time;
  private final AtomicReferenceArray<Long> lastWarnNanos =
      new AtomicReferenceArray<>(Kind.values().length);
  private final AtomicLongArray suppressed = new AtomicLongArray(Kind.values().length);

  RateLimitedLog(ExportLog log, TimeSource time) {
    this.log = log;
    this.time = time;
  }

  /**
   * Passes {@code message} on as {@link ExportLog#warnOnce}: a line that explains a configuration
   * problem, which the caller sends once per reason.
   */
  void warnOnce(String key, String message) {
    try {
      log.warnOnce("export." + key, PREFIX + message);
    } catch (Throwable ignored) {
      // A broken logger must not stop the exporter.
    }
  }

  /** Returns true if the message was passed on, false if it was suppressed. */
  boolean warn(Kind kind, String message) {
    int k = kind.ordinal();
    long now = time.nanoTime();
    Long last = lastWarnNanos.get(k);
    // A reference, not a long, so that "never warned" needs no sentinel nanoTime value.
    if ((last != null && now - last < INTERVAL_NANOS)
        || !lastWarnNanos.compareAndSet(k, last, now)) {
      suppressed.incrementAndGet(k);
      return false;
    }
    long count = suppressed.getAndSet(k, 0);
    String line = count == 0 ? message : message + " (" + count + " similar warnings suppressed)";
    try {
      log.warn(PREFIX + line);
    } catch (Throwable ignored) {
      // A broken logger must not stop the exporter.
    }
    return true;
  }
}

package dev.klat.agentcore.otlp;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One sender's failed requests, counted by {@link FailureReason}, and the rule that explains each
 * configuration problem (an {@link FailureReason#explained()} reason) once: the first failure of
 * such a reason carries its {@link OtlpHttpSender.Result#advice}, later ones none. Thread-safe: the
 * exporter thread records, any thread reads.
 */
public final class ExportFailures {
  private final AtomicLongArray counts = new AtomicLongArray(FailureReason.values().length);
  private final AtomicIntegerArray explained =
      new AtomicIntegerArray(FailureReason.values().length);

  /** Counts one failure; whether it is the first of an explained reason. */
  boolean record(FailureReason reason) {
    counts.incrementAndGet(reason.ordinal());
    return reason.explained() && explained.compareAndSet(reason.ordinal(), 0, 1);
  }

  /** The failures of {@code reason} so far. */
  public long count(FailureReason reason) {
    return counts.get(reason.ordinal());
  }

  /** All failures so far. */
  public long total() {
    long total = 0;
    for (int i = 0; i < counts.length(); i++) {
      total += counts.get(i);
    }
    return total;
  }
}

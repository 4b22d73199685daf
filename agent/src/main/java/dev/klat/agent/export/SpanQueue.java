package dev.klat.agent.export;

import dev.klat.agent.metrics.Counter;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded, lock-free queue between the application's threads, which {@link #offer} spans, and
 * the exporter thread, which takes them. A full queue drops the span: the application never waits.
 * Sampled spans and tail spans each have their own ({@link Telemetry}), so that tail spans never
 * take a sampled span's place; a tail queue counts its drops in the tail counters.
 */
final class SpanQueue {
  private final int capacity;
  private final ExportCounters counters;
  // Null for the sampled queue; the tail queue's drops: queue full, and the others (shut down,
  // invalid ids).
  private final Counter tailQueueFull;
  private final Counter tailFailed;
  private final ConcurrentLinkedQueue<SpanRecord> queue = new ConcurrentLinkedQueue<>();
  // Reserved slots: incremented before a span is added, decremented after one is removed, so it is
  // never below the queue's length and never above the capacity.
  private final AtomicInteger reserved = new AtomicInteger();
  private volatile boolean closed;

  SpanQueue(int capacity, ExportCounters counters) {
    this(capacity, counters, null, null);
  }

  /** A queue of tail spans, whose drops are counted in {@code queueFull} and {@code failed}. */
  SpanQueue(int capacity, ExportCounters counters, Counter queueFull, Counter failed) {
    this.capacity = capacity;
    this.counters = counters;
    this.tailQueueFull = queueFull;
    this.tailFailed = failed;
  }

  /** Whether this is the tail spans' queue. */
  boolean holdsTailSpans() {
    return tailFailed != null;
  }

  private void dropped(boolean full) {
    if (tailFailed == null) {
      counters.spanDropped();
    } else if (full) {
      tailQueueFull.increment();
    } else {
      tailFailed.increment();
    }
  }

  /** Adds the span, or counts it dropped when the queue is full or closed. Never blocks. */
  boolean offer(SpanRecord span) {
    if (closed) {
      dropped(false);
      return false;
    }
    int current;
    do {
      current = reserved.get();
      if (current >= capacity) {
        dropped(true);
        return false;
      }
    } while (!reserved.compareAndSet(current, current + 1));
    queue.offer(span);
    return true;
  }

  /** Spans waiting, at most the capacity. */
  int size() {
    return reserved.get();
  }

  /**
   * Moves up to {@code max} spans with valid ids into {@code out}; the invalid ones it meets are
   * counted dropped.
   */
  void drainTo(List<SpanRecord> out, int max) {
    while (out.size() < max) {
      SpanRecord span = queue.poll();
      if (span == null) {
        return;
      }
      reserved.decrementAndGet();
      if (span.hasValidIds()) {
        out.add(span);
      } else {
        dropped(false);
      }
    }
  }

  /** From now on every offer is dropped. */
  void close() {
    closed = true;
  }

  /** Drops and counts every span still waiting. */
  void dropAll() {
    while (queue.poll() != null) {
      reserved.decrementAndGet();
      dropped(false);
    }
  }
}

package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The spans of one transactional producer's sampled records that wait for their transaction to end
 * (section 9 of the latency model): acknowledged on the producer's network thread, exported on the
 * application's thread when {@code commitTransaction()} returns, with {@code C}, or when {@code
 * abortTransaction()} returns, marked aborted.
 *
 * <p>Lock-free: a span is pushed by a compare-and-swap on the network thread (where klat takes no
 * lock), and the transaction's end takes every held span with one swap. Bounded: at most {@link
 * #MAX_PENDING} spans wait; a span beyond them, or one acknowledged after the producer was closed,
 * is exported at once without the transaction's end and counted in {@code
 * klat.agent.transaction.spans.unpaired}. The end of a transaction does O(held spans) work and no
 * I/O: the export queue never blocks.
 *
 * <p>Why the held spans are exactly the ended transaction's: {@code commitTransaction()} and {@code
 * abortTransaction()} return only after every batch of the transaction completed (Kafka sends the
 * end of the transaction once no batch is in flight, on the same network thread that ran the
 * batches' completion hooks), and a transactional producer refuses {@code send()} outside a
 * transaction, so no batch of the next one exists yet.
 */
final class TransactionSpans {

  /** The most spans one producer holds for its open transaction. */
  static final int MAX_PENDING = 1024;

  /** {@code klat.error.type} of a span whose transaction was aborted. */
  static final String ABORTED = "transaction-aborted";

  private static final String TRANSACTION_ABORTED_EXCEPTION =
      "org.apache.kafka.common.errors.TransactionAbortedException";

  static final String REASON_OVERFLOW = "overflow";
  static final String REASON_CLOSED = "closed";

  private final AtomicReference<Held> held = new AtomicReference<Held>();
  private final AtomicInteger heldCount = new AtomicInteger();
  private final Counter overflow;
  private final Counter unpairedAtClose;
  private volatile boolean closed;

  TransactionSpans(MetricsRegistry metrics) {
    this.overflow = metrics.counter(MetricDef.AGENT_TRANSACTION_SPANS_UNPAIRED, REASON_OVERFLOW);
    this.unpairedAtClose =
        metrics.counter(MetricDef.AGENT_TRANSACTION_SPANS_UNPAIRED, REASON_CLOSED);
  }

  /**
   * Exports {@code span}, the span of an acknowledged record of this producer, when its transaction
   * ends; a span of a failed send carries its own error and leaves at once (a batch that {@code
   * abortTransaction()} failed before it was sent is marked aborted), as does one the bound or a
   * closed producer refuses (counted).
   *
   * @param future the future {@code send()} returned for the record, done by now
   */
  void exportAtEnd(AgentRuntime runtime, SpanRecord span, Future<?> future) {
    if (span.statusError()) {
      if (abortedBeforeSent(future)) {
        markAborted(span);
      }
      runtime.export(span);
      return;
    }
    if (closed) {
      unpairedAtClose.increment();
      runtime.export(span);
      return;
    }
    if (heldCount.incrementAndGet() > MAX_PENDING) {
      heldCount.decrementAndGet();
      overflow.increment();
      runtime.export(span);
      return;
    }
    Held node = new Held(span);
    Held head;
    do {
      head = held.get();
      node.next = head;
    } while (!held.compareAndSet(head, node));
    if (closed) {
      // Raced with close(): whatever is held now will never see its transaction end.
      exportUnpaired(runtime);
    }
  }

  /** At {@code commitTransaction()} return: exports every held span with {@code C}. */
  void committed(AgentRuntime runtime, long commitNanos) {
    Held taken = takeAll();
    if (taken == null) {
      return;
    }
    long commitEpochNanos = runtime.time.epochNanosAt(commitNanos);
    for (Held node = taken; node != null; node = node.next) {
      node.span.put(SpanAttributes.TXN_COMMIT_TIME, commitEpochNanos);
      runtime.export(node.span);
    }
  }

  /** At {@code abortTransaction()} return: exports every held span as aborted. */
  void aborted(AgentRuntime runtime) {
    for (Held node = takeAll(); node != null; node = node.next) {
      markAborted(node.span);
      runtime.export(node.span);
    }
  }

  /**
   * At the producer's {@code close()} return: its open transaction's end is unknown to the agent
   * (Kafka aborts it at a graceful close, the coordinator after {@code transaction.timeout.ms}, but
   * a commit that timed out may still complete), so the held spans leave without it, counted, as do
   * spans acknowledged later.
   */
  void closed(AgentRuntime runtime) {
    closed = true;
    exportUnpaired(runtime);
  }

  /** How many spans wait for the transaction's end. */
  int heldCount() {
    return heldCount.get();
  }

  // Compared by name: the class is only a marker here.
  private static boolean abortedBeforeSent(Future<?> future) {
    if (future == null || !future.isDone()) {
      return false;
    }
    try {
      future.get();
      return false;
    } catch (ExecutionException failed) {
      Throwable cause = failed.getCause();
      return cause != null && cause.getClass().getName().equals(TRANSACTION_ABORTED_EXCEPTION);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static void markAborted(SpanRecord span) {
    span.setError("transaction aborted");
    span.put(SpanAttributes.ERROR_TYPE, ABORTED);
  }

  private void exportUnpaired(AgentRuntime runtime) {
    for (Held node = takeAll(); node != null; node = node.next) {
      unpairedAtClose.increment();
      runtime.export(node.span);
    }
  }

  // Every held span, oldest first.
  private Held takeAll() {
    Held head = held.getAndSet(null);
    Held oldestFirst = null;
    int taken = 0;
    while (head != null) {
      Held next = head.next;
      head.next = oldestFirst;
      oldestFirst = head;
      head = next;
      taken++;
    }
    if (taken > 0) {
      heldCount.addAndGet(-taken);
    }
    return oldestFirst;
  }

  private static final class Held {
    final SpanRecord span;
    Held next;

    Held(SpanRecord span) {
      this.span = span;
    }
  }
}

package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.weave.States;

/**
 * The end of a transactional producer's transaction, woven into {@code KafkaProducer} (see {@link
 * ProducerInstrumentation}): the spans of its sampled records, held since their acknowledgement
 * ({@link TransactionSpans}), leave with {@code C} at {@code commitTransaction()}'s return, marked
 * aborted at {@code abortTransaction()}'s, without either at {@code close()}'s. All three run on
 * the application's thread and return at once for a producer without {@code transactional.id} or
 * that never sent; every failure is caught.
 *
 * <p>Only normal returns are hooked: a commit that throws leaves the spans held, and the
 * application's next call ends them: {@code abortTransaction()} after an abortable error, a retried
 * {@code commitTransaction()} after a timeout, {@code close()} after a fatal one.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class TransactionHooks {

  private TransactionHooks() {}

  /** At each normal return of {@code KafkaProducer.commitTransaction()}: takes {@code C}. */
  public static void onCommitted(Object producer) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null) {
      return;
    }
    long commitNanos = runtime.time.nanoTime();
    try {
      TransactionSpans spans = transactionSpans(producer);
      if (spans != null) {
        spans.committed(runtime, commitNanos);
      }
    } catch (Throwable t) {
      ProducerHooks.warn("producer-commit", t);
    }
  }

  /** At each normal return of {@code KafkaProducer.abortTransaction()}. */
  public static void onAborted(Object producer) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      TransactionSpans spans = runtime == null ? null : transactionSpans(producer);
      if (spans != null) {
        spans.aborted(runtime);
      }
    } catch (Throwable t) {
      ProducerHooks.warn("producer-abort", t);
    }
  }

  /**
   * At each normal return of {@code KafkaProducer.close(Duration, boolean)}, which every public
   * {@code close} calls.
   */
  public static void onClosed(Object producer) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      TransactionSpans spans = runtime == null ? null : transactionSpans(producer);
      if (spans != null) {
        spans.closed(runtime);
      }
    } catch (Throwable t) {
      ProducerHooks.warn("producer-close", t);
    }
  }

  // Null for a producer that never sent (no state yet: nothing is held) or is not transactional.
  private static TransactionSpans transactionSpans(Object producer) {
    Object state = States.get(producer);
    return state instanceof ProducerState ? ((ProducerState) state).transactions : null;
  }
}

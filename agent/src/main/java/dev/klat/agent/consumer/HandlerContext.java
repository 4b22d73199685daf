package dev.klat.agent.consumer;

/**
 * The fetch response being handled on this thread. Kafka builds one {@code CompletedFetch} per
 * partition synchronously inside its fetch response handler; the handler hook stores the response's
 * {@code F} and {@code R} here and the {@code CompletedFetch} constructor hook reads them.
 *
 * <p>Classic consumer: the thread is the application's (inside {@code poll()}) or the group's
 * heartbeat thread; new consumer protocol: the background network thread.
 */
final class HandlerContext {

  private static final ThreadLocal<HandlerContext> CURRENT =
      new ThreadLocal<HandlerContext>() {
        @Override
        protected HandlerContext initialValue() {
          return new HandlerContext();
        }
      };

  private static final String NETWORK_THREAD =
      "org.apache.kafka.clients.consumer.internals.ConsumerNetworkThread";

  /**
   * The new consumer's network thread reads responses as they arrive; a classic consumer's
   * heartbeat thread wakes only every {@code retry.backoff.ms}. Decided once per thread.
   */
  final boolean networkThread = Thread.currentThread().getClass().getName().equals(NETWORK_THREAD);

  boolean active;
  long requestNanos;
  long responseNanos;
  boolean readPromptly;

  private HandlerContext() {}

  static HandlerContext get() {
    return CURRENT.get();
  }
}

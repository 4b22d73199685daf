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

  boolean active;
  long requestNanos;
  long responseNanos;

  private HandlerContext() {}

  static HandlerContext get() {
    return CURRENT.get();
  }
}

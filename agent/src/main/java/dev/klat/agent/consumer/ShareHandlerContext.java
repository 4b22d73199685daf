package dev.klat.agent.consumer;

/**
 * The ShareFetch response being handled on this thread (the share consumer's network thread): its
 * handler hook stores {@code F}, {@code R} and the request manager here, and the constructor hook
 * of each {@code ShareCompletedFetch} built inside the handler reads them.
 */
final class ShareHandlerContext {

  private static final ThreadLocal<ShareHandlerContext> CURRENT =
      new ThreadLocal<ShareHandlerContext>() {
        @Override
        protected ShareHandlerContext initialValue() {
          return new ShareHandlerContext();
        }
      };

  boolean active;
  long requestNanos;
  long responseNanos;
  Object requestManager;

  private ShareHandlerContext() {}

  static ShareHandlerContext get() {
    return CURRENT.get();
  }
}

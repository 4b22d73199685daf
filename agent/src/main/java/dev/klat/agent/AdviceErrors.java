package dev.klat.agent;

/**
 * Receives what woven advice throws. ByteBuddy's {@code suppress = Throwable.class} would swallow
 * it silently; a hook that cannot link (kafka-clients invisible to the agent's class loader) or
 * fails must say so, once in a while, and the application must go on.
 *
 * <p>Public because woven code in kafka-clients' packages calls it. It must not refer to any
 * kafka-clients type, so that it links wherever the agent is.
 */
public final class AdviceErrors {

  private AdviceErrors() {}

  /** Called by woven code with the throwable an advice method threw. Never throws. */
  public static void report(Throwable failure) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        runtime.log.warnThrottled(
            "advice-failure", "a klat hook failed and was skipped for this call: " + failure);
      }
    } catch (Throwable ignored) {
      // Reporting must never become the failure.
    }
  }
}

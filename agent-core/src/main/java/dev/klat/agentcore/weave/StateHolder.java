package dev.klat.agentcore.weave;

/**
 * Added by the client agent to the kafka-clients classes it keeps state in: one field of klat state
 * per instance, so that the hot path finds its state without a map lookup or a lock.
 *
 * <p>Public because the instrumented classes live in kafka-clients' packages.
 */
public interface StateHolder {

  /** The klat state of this instance, or null before the first hook ran. */
  Object klat$state();

  /** Sets the klat state of this instance. */
  void klat$state(Object state);
}

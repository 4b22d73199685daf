package dev.klat.agent.weave;

import dev.klat.agentcore.weave.StateHolder;

/**
 * The klat state of an instrumented kafka-clients object: in its {@link StateHolder} field when its
 * class was woven as it loaded (the {@code -javaagent} path), else in a weak identity map, for
 * objects of classes that were already loaded when the agent attached and so could not get the
 * field.
 *
 * <p>Public because hooks defined in an application's class loader call it.
 */
public final class States {

  private static final WeakIdentityMap ATTACHED = new WeakIdentityMap();

  private States() {}

  /** The state of {@code instance}, or null before the first hook gave it one. */
  public static Object get(Object instance) {
    if (instance instanceof StateHolder) {
      return ((StateHolder) instance).klat$state();
    }
    return ATTACHED.get(instance);
  }

  /** Gives {@code instance} its state; a later call replaces it. */
  public static void set(Object instance, Object state) {
    if (instance instanceof StateHolder) {
      ((StateHolder) instance).klat$state(state);
    } else {
      ATTACHED.put(instance, state);
    }
  }

  /** How many objects keep their state in the map, for tests and diagnostics. */
  static int attachedCount() {
    return ATTACHED.size();
  }
}

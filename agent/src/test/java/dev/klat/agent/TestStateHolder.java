package dev.klat.agent;

import dev.klat.agentcore.weave.StateHolder;

/**
 * Stands in for a kafka-clients object the weaver gave a {@code klat$state} field (a producer, a
 * batch, a {@code CompletedFetch}), so that tests and benchmarks call the hooks without weaving. A
 * subclass can declare the private fields a hook reads from the real class.
 */
public class TestStateHolder implements StateHolder {
  private Object state;

  @Override
  public Object klat$state() {
    return state;
  }

  @Override
  public void klat$state(Object state) {
    this.state = state;
  }
}

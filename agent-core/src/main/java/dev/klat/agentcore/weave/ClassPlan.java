package dev.klat.agentcore.weave;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the weaver does to one Kafka class: its hooks, and whether it holds klat state. */
public final class ClassPlan {

  final String internalName;
  final boolean addState;
  final List<Hook> hooks;

  private ClassPlan(String internalName, boolean addState, List<Hook> hooks) {
    this.internalName = internalName;
    this.addState = addState;
    this.hooks = Collections.unmodifiableList(new ArrayList<Hook>(hooks));
  }

  /**
   * A plan for the class {@code className} (binary name, with dots); with {@code addState}, the
   * class gets a {@link StateHolder} field.
   */
  public static ClassPlan of(String className, boolean addState, List<Hook> hooks) {
    String internalName = className.replace('.', '/');
    for (Hook hook : hooks) {
      if (!hook.className.equals(internalName)) {
        throw new IllegalArgumentException(hook.label + " belongs to " + hook.className);
      }
    }
    return new ClassPlan(internalName, addState, hooks);
  }

  /** The class as an internal name (with slashes). */
  public String internalName() {
    return internalName;
  }

  /** Whether the class gets a {@link StateHolder} field. */
  public boolean addsState() {
    return addState;
  }

  public List<Hook> hooks() {
    return hooks;
  }
}

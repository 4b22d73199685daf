package dev.klat.agentcore.weave;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One call the weaver inserts into a Kafka method (kafka-clients' for the client agent, the
 * broker's for the probe): at its entry, or before each of its normal returns, a call to a public
 * static hook method with values read from the frame (this, an argument, a field of the
 * instrumented class, the value being returned).
 *
 * <p>The inserted code is straight-line: it adds no branch, no local variable and no exception
 * handler, so the method's stack map frames stay valid as they are and the weaver never needs to
 * load a class to compute new ones. The price is that the hook methods must catch everything
 * themselves.
 *
 * <p>Descriptors are given as strings rather than found by reflection, because reflecting on a hook
 * class during {@code premain} would load the Kafka types of its signature before the application
 * does. A unit test checks every declared hook against its method.
 */
public final class Hook {

  /** Where in the method the call goes. */
  public enum At {
    ENTER,
    EXIT
  }

  /** A value the inserted code pushes as one argument of the hook call. */
  public static final class Value {
    enum Kind {
      THIS,
      ARGUMENT,
      FIELD,
      RETURNED
    }

    final Kind kind;
    final int argumentIndex;
    final String fieldName;

    private Value(Kind kind, int argumentIndex, String fieldName) {
      this.kind = kind;
      this.argumentIndex = argumentIndex;
      this.fieldName = fieldName;
    }

    /** The instance whose method runs. */
    public static Value self() {
      return new Value(Kind.THIS, -1, null);
    }

    /** The method's argument {@code index} (0-based, not counting {@code this}). */
    public static Value argument(int index) {
      return new Value(Kind.ARGUMENT, index, null);
    }

    /** A non-static field declared by the instrumented class itself. */
    public static Value field(String name) {
      return new Value(Kind.FIELD, -1, name);
    }

    /** The value the method is about to return; exit hooks only, and only as the first value. */
    public static Value returned() {
      return new Value(Kind.RETURNED, -1, null);
    }

    @Override
    public String toString() {
      switch (kind) {
        case THIS:
          return "this";
        case ARGUMENT:
          return "argument " + argumentIndex;
        case FIELD:
          return "field " + fieldName;
        default:
          return "returned value";
      }
    }
  }

  final String label;
  final String className;
  final String methodName;
  final String alternativeMethodName;

  /** Null: any arguments. */
  final String[] argumentDescriptors;

  /** Null: any return type. */
  final String returnDescriptor;

  final At at;
  final List<Value> values;
  final String hookOwner;
  final String hookName;
  final String hookDescriptor;
  final int storeIntoArgument;

  private Hook(Builder builder) {
    this.label = builder.label;
    this.className = builder.className;
    this.methodName = builder.methodName;
    this.alternativeMethodName = builder.alternativeMethodName;
    this.argumentDescriptors = builder.argumentDescriptors;
    this.returnDescriptor = builder.returnDescriptor;
    this.at = builder.at;
    this.values = Collections.unmodifiableList(new ArrayList<Value>(builder.values));
    this.hookOwner = builder.hookOwner;
    this.hookName = builder.hookName;
    this.hookDescriptor = builder.hookDescriptor;
    this.storeIntoArgument = builder.storeIntoArgument;
  }

  /**
   * Starts a hook on the method {@code methodName} of the class {@code className} (binary name,
   * with dots), named {@code label} in log lines.
   */
  public static Builder on(String label, String className, String methodName) {
    return new Builder(label, className.replace('.', '/'), methodName);
  }

  /** The hook's name in log lines, for example {@code KafkaProducer.send}. */
  public String label() {
    return label;
  }

  /** The hook method's owner, internal name. */
  public String hookOwner() {
    return hookOwner;
  }

  /** The hook method's name. */
  public String hookName() {
    return hookName;
  }

  /** The hook method's descriptor. */
  public String hookDescriptor() {
    return hookDescriptor;
  }

  /**
   * Whether a method with this name and descriptor is the one to instrument: the name is equal (or
   * the alternative name), the return type is the one named, if any, the argument count is equal,
   * and every argument whose descriptor the hook names matches; hooks declared with {@link
   * Builder#anyArguments()} match any arguments.
   */
  boolean matches(String name, String descriptor) {
    if (!methodName.equals(name) && !name.equals(alternativeMethodName)) {
      return false;
    }
    if (returnDescriptor != null
        && !returnDescriptor.equals(
            org.objectweb.asm.Type.getReturnType(descriptor).getDescriptor())) {
      return false;
    }
    if (argumentDescriptors == null) {
      return true;
    }
    org.objectweb.asm.Type[] arguments = org.objectweb.asm.Type.getArgumentTypes(descriptor);
    if (arguments.length != argumentDescriptors.length) {
      return false;
    }
    for (int i = 0; i < arguments.length; i++) {
      String wanted = argumentDescriptors[i];
      if (wanted != null && !wanted.equals(arguments[i].getDescriptor())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return label;
  }

  /** Declares a {@link Hook}. */
  public static final class Builder {
    private final String label;
    private final String className;
    private final String methodName;
    private String alternativeMethodName;
    private String[] argumentDescriptors = new String[0];
    private String returnDescriptor;
    private At at = At.ENTER;
    private final List<Value> values = new ArrayList<Value>();
    private String hookOwner;
    private String hookName;
    private String hookDescriptor;
    private int storeIntoArgument = -1;

    private Builder(String label, String className, String methodName) {
      this.label = label;
      this.className = className;
      this.methodName = methodName;
    }

    /**
     * The method's arguments, one descriptor each ({@code "J"}, {@code "Ljava/util/List;"}); null
     * accepts any type at that position (for arguments whose type changed between versions).
     */
    public Builder arguments(String... descriptors) {
      this.argumentDescriptors = descriptors.clone();
      return this;
    }

    /** Matches the method whatever its arguments (every overload, for constructors). */
    public Builder anyArguments() {
      this.argumentDescriptors = null;
      return this;
    }

    /** Matches only methods returning this type (a descriptor). */
    public Builder returning(String descriptor) {
      this.returnDescriptor = descriptor;
      return this;
    }

    /** Also matches a method of this name: for a method renamed between versions. */
    public Builder orNamed(String name) {
      this.alternativeMethodName = name;
      return this;
    }

    /** Calls the hook at the method's entry (the default). */
    public Builder atEnter() {
      this.at = At.ENTER;
      return this;
    }

    /** Calls the hook before each normal return of the method. */
    public Builder atExit() {
      this.at = At.EXIT;
      return this;
    }

    /** The values passed to the hook, in order. */
    public Builder passing(Value... passed) {
      for (Value value : passed) {
        values.add(value);
      }
      return this;
    }

    /** The hook method: a public static method of {@code owner} (binary name). */
    public Builder calling(String owner, String name, String descriptor) {
      this.hookOwner = owner.replace('.', '/');
      this.hookName = name;
      this.hookDescriptor = descriptor;
      return this;
    }

    /**
     * Stores what the hook returns into the method's argument {@code index} (entry hooks only): the
     * hook may hand the method a replacement argument. The hook's return type must be the
     * argument's type exactly.
     */
    public Builder storingResultInto(int index) {
      this.storeIntoArgument = index;
      return this;
    }

    public Hook build() {
      if (hookOwner == null) {
        throw new IllegalStateException(label + ": no hook method");
      }
      if (methodName.equals("<init>") && at != At.EXIT) {
        // Before the super constructor returns, this is not an object yet.
        throw new IllegalStateException(label + ": constructors take exit hooks only");
      }
      if (storeIntoArgument >= 0 && at != At.ENTER) {
        throw new IllegalStateException(label + ": only entry hooks may replace an argument");
      }
      for (int i = 0; i < values.size(); i++) {
        Value value = values.get(i);
        if (value.kind == Value.Kind.RETURNED && (at != At.EXIT || i != 0)) {
          throw new IllegalStateException(
              label + ": the returned value is passed first, by exit hooks only");
        }
      }
      return new Hook(this);
    }
  }
}

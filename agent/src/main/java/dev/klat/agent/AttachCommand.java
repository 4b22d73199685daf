package dev.klat.agent;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Properties;

/**
 * {@code klat attach PID [klat.key=value ...]}: loads this agent into a running JVM, which then
 * instruments its producers and consumers from their next record on. Refuses a JVM that already
 * runs klat. Uses the JDK's attach API ({@code jdk.attach}), reached by reflection so that the
 * agent itself needs none of it.
 */
public final class AttachCommand {

  private AttachCommand() {}

  public static void main(String[] args) {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println("usage: klat attach PID [klat.key=value ...]");
      System.exit(2);
    }
    try {
      System.out.println(attach(args[0], settings(args)));
    } catch (IllegalStateException | IllegalArgumentException e) {
      System.err.println("klat attach: " + e.getMessage());
      System.exit(1);
    }
  }

  /** Attaches to {@code pid}; returns what was done, or throws saying why not. */
  static String attach(String pid, String settings) {
    Object vm;
    Class<?> vmClass;
    try {
      vmClass = Class.forName("com.sun.tools.attach.VirtualMachine");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "this Java has no attach API (module jdk.attach): run klat attach with a JDK");
    }
    try {
      vm = call(vmClass, null, "attach", new Class<?>[] {String.class}, pid);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot attach to JVM " + pid + ": " + cause(e));
    }
    try {
      Properties properties =
          (Properties) call(vmClass, vm, "getSystemProperties", new Class<?>[0]);
      String running = properties.getProperty(KlatAgent.RUNNING_PROPERTY);
      if (running != null) {
        throw new IllegalStateException(
            "klat is already running in JVM "
                + pid
                + " (agent instance "
                + running
                + "): attaching twice is refused");
      }
      call(
          vmClass,
          vm,
          "loadAgent",
          new Class<?>[] {String.class, String.class},
          agentJar(),
          settings);
      return "klat attached to JVM "
          + pid
          + ": its producers and consumers are measured from their next record on (its log says"
          + " what was instrumented)";
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("attaching to JVM " + pid + " failed: " + cause(e));
    } finally {
      try {
        call(vmClass, vm, "detach", new Class<?>[0]);
      } catch (ReflectiveOperationException ignored) {
        // Detaching only releases the connection; the agent stays loaded either way.
      }
    }
  }

  // The klat.* settings after the PID, comma-separated as agentmain reads them.
  private static String settings(String[] args) {
    StringBuilder settings = new StringBuilder();
    for (int i = 1; i < args.length; i++) {
      String setting = args[i].startsWith("-D") ? args[i].substring(2) : args[i];
      if (!setting.startsWith("klat.") || setting.indexOf('=') < 0 || setting.contains(",")) {
        throw new IllegalArgumentException(
            "'" + args[i] + "' is not a setting klat.key=value (without commas)");
      }
      settings.append(settings.length() == 0 ? "" : ",").append(setting);
    }
    return settings.toString();
  }

  private static String agentJar() {
    try {
      return new File(
              AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .getAbsolutePath();
    } catch (Exception e) {
      throw new IllegalStateException("cannot find the agent's own jar: " + e);
    }
  }

  private static Object call(
      Class<?> type, Object target, String name, Class<?>[] parameters, Object... arguments)
      throws ReflectiveOperationException {
    Method method = type.getMethod(name, parameters);
    return method.invoke(target, arguments);
  }

  private static String cause(ReflectiveOperationException e) {
    Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
    return String.valueOf(cause);
  }
}

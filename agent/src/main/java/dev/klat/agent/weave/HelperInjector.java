package dev.klat.agent.weave;

import dev.klat.agentcore.weave.StateHolder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.objectweb.asm.ClassReader;

/**
 * Defines the agent's kafka-linked hook classes inside an application class loader whose
 * kafka-clients the agent's own loader cannot see, such as a Spring Boot executable jar's: woven
 * code there then finds hooks linked against the application's kafka-clients.
 *
 * <p>Only the hook packages are copied; everything else the hooks use (the runtime, the exporter,
 * {@link StateHolder}, the model) they reach through the application loader's parents, so that
 * there is still one agent per JVM. A loader that cannot see those shared classes (an isolated
 * loader whose parent is not the system class loader) is left alone.
 *
 * <p>The copies are defined before the loader is ever asked for them: a class loader finds a class
 * it defined itself before it delegates to its parent, where the agent's own copies live.
 */
public final class HelperInjector {

  private final Instrumentation instrumentation;
  private final List<String> packagePrefixes;
  private final Map<ClassLoader, Boolean> injected = new WeakHashMap<ClassLoader, Boolean>();
  private Map<String, byte[]> helperClasses;
  private Method defineClass;

  /**
   * @param packagePrefixes the hook packages as internal-name prefixes, for example {@code
   *     dev/klat/agent/producer/}
   */
  public HelperInjector(Instrumentation instrumentation, List<String> packagePrefixes) {
    this.instrumentation = instrumentation;
    this.packagePrefixes = new ArrayList<String>(packagePrefixes);
  }

  /** What {@link #inject} did. */
  public enum Outcome {
    /** The hooks were defined in the loader by this call. */
    INJECTED,
    /** An earlier call defined them. */
    ALREADY_INJECTED,
    /** An earlier call failed; the loader is left alone. */
    FAILED_BEFORE
  }

  /**
   * Injects the hook classes into {@code loader} once. Called from the transformer while the loader
   * defines a kafka-clients class.
   *
   * @throws Exception with the reason when the loader cannot take the hooks (the first time only)
   */
  public synchronized Outcome inject(ClassLoader loader) throws Exception {
    Boolean done = injected.get(loader);
    if (done != null) {
      return done ? Outcome.ALREADY_INJECTED : Outcome.FAILED_BEFORE;
    }
    injected.put(loader, Boolean.FALSE);
    if (loader == null) {
      throw new IllegalStateException("kafka-clients is on the boot class path");
    }
    Class<?> shared = Class.forName(StateHolder.class.getName(), false, loader);
    if (shared != StateHolder.class) {
      throw new IllegalStateException(
          "the class loader does not see the agent's classes through its parents");
    }
    Method define = defineClassMethod();
    for (Map.Entry<String, byte[]> helper : definitionOrder(helperClasses()).entrySet()) {
      byte[] bytes = helper.getValue();
      try {
        define.invoke(loader, helper.getKey().replace('/', '.'), bytes, 0, bytes.length);
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
      }
    }
    injected.put(loader, Boolean.TRUE);
    return Outcome.INJECTED;
  }

  private Method defineClassMethod() throws Exception {
    if (defineClass == null) {
      openJavaLangToAgent();
      Method method =
          ClassLoader.class.getDeclaredMethod(
              "defineClass", String.class, byte[].class, int.class, int.class);
      method.setAccessible(true);
      defineClass = method;
    }
    return defineClass;
  }

  /**
   * From Java 9, {@code ClassLoader.defineClass} is reachable by reflection only once {@code
   * java.base} opens {@code java.lang} to the agent's module, which an agent may ask for. Called by
   * reflection because the agent compiles for Java 8, where there are no modules.
   */
  private void openJavaLangToAgent() throws Exception {
    Method getModule;
    try {
      getModule = Class.class.getMethod("getModule");
    } catch (NoSuchMethodException java8) {
      return;
    }
    Object javaBase = getModule.invoke(Object.class);
    Object agentModule = getModule.invoke(HelperInjector.class);
    Class<?> moduleClass = getModule.getReturnType();
    Method redefineModule =
        Instrumentation.class.getMethod(
            "redefineModule", moduleClass, Set.class, Map.class, Map.class, Set.class, Map.class);
    redefineModule.invoke(
        instrumentation,
        javaBase,
        Collections.emptySet(),
        Collections.emptyMap(),
        Collections.singletonMap("java.lang", Collections.singleton(agentModule)),
        Collections.emptySet(),
        Collections.emptyMap());
  }

  /** The hook classes' bytes, read once from the agent's jar. */
  private Map<String, byte[]> helperClasses() throws IOException {
    if (helperClasses != null) {
      return helperClasses;
    }
    URL location = HelperInjector.class.getProtectionDomain().getCodeSource().getLocation();
    Map<String, byte[]> classes = new HashMap<String, byte[]>();
    JarFile jar;
    try {
      jar = new JarFile(new java.io.File(location.toURI()));
    } catch (java.net.URISyntaxException e) {
      throw new IOException("cannot read the agent's jar at " + location, e);
    }
    try {
      Enumeration<JarEntry> entries = jar.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        String name = entry.getName();
        if (!name.endsWith(".class") || !inHookPackage(name)) {
          continue;
        }
        InputStream in = jar.getInputStream(entry);
        try {
          classes.put(name.substring(0, name.length() - ".class".length()), readAll(in));
        } finally {
          in.close();
        }
      }
    } finally {
      jar.close();
    }
    if (classes.isEmpty()) {
      throw new IOException("no hook classes in " + location);
    }
    helperClasses = classes;
    return classes;
  }

  private boolean inHookPackage(String entryName) {
    for (String prefix : packagePrefixes) {
      // The package itself, not its subpackages.
      if (entryName.startsWith(prefix) && entryName.indexOf('/', prefix.length()) < 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Supertypes first: defining a class resolves its superclass and interfaces at once, and a
   * helper's supertype that is itself a helper must already be the loader's own copy by then.
   */
  static Map<String, byte[]> definitionOrder(Map<String, byte[]> classes) {
    Map<String, byte[]> ordered = new LinkedHashMap<String, byte[]>();
    Set<String> visiting = new HashSet<String>();
    for (String name : classes.keySet()) {
      visit(name, classes, ordered, visiting);
    }
    return ordered;
  }

  private static void visit(
      String name, Map<String, byte[]> classes, Map<String, byte[]> ordered, Set<String> visiting) {
    if (ordered.containsKey(name) || !classes.containsKey(name) || !visiting.add(name)) {
      return;
    }
    ClassReader reader = new ClassReader(classes.get(name));
    visit(reader.getSuperName(), classes, ordered, visiting);
    for (String implemented : reader.getInterfaces()) {
      visit(implemented, classes, ordered, visiting);
    }
    ordered.put(name, classes.get(name));
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) > 0; ) {
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}

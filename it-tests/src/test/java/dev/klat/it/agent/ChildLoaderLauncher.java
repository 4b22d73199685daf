package dev.klat.it.agent;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;

/**
 * Starts an application whose classes, kafka-clients included, live in a child class loader, the
 * way a Spring Boot executable jar or an application server loads them: the system class path holds
 * only this launcher (and the agent). With {@code -Dit.launcher.parent=system} the child's parent
 * is the system class loader (Spring Boot), else the platform loader (isolated).
 */
public final class ChildLoaderLauncher {

  private ChildLoaderLauncher() {}

  /** Usage: {@code ChildLoaderLauncher <class path> <main class> [arguments...]}. */
  public static void main(String[] args) throws Exception {
    String[] entries = args[0].split(File.pathSeparator);
    URL[] urls = new URL[entries.length];
    for (int i = 0; i < entries.length; i++) {
      urls[i] = new File(entries[i]).toURI().toURL();
    }
    // "system": the application loader's parent is the system class loader, as in a Spring Boot
    // executable jar, so the agent's classes are visible to it; otherwise an isolated loader.
    ClassLoader parent =
        "system".equals(System.getProperty("it.launcher.parent"))
            ? ClassLoader.getSystemClassLoader()
            : ClassLoader.getSystemClassLoader().getParent();
    try (URLClassLoader loader = new URLClassLoader(urls, parent)) {
      Thread.currentThread().setContextClassLoader(loader);
      Method main = loader.loadClass(args[1]).getMethod("main", String[].class);
      main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
  }
}

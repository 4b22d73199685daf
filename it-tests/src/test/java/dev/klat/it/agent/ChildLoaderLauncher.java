package dev.klat.it.agent;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;

/**
 * Starts an application whose classes, kafka-clients included, live in a child class loader, the
 * way a Spring Boot executable jar or an application server loads them: the system class path holds
 * only this launcher (and the agent).
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
    try (URLClassLoader loader =
        new URLClassLoader(urls, ClassLoader.getSystemClassLoader().getParent())) {
      Thread.currentThread().setContextClassLoader(loader);
      Method main = loader.loadClass(args[1]).getMethod("main", String[].class);
      main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
  }
}

package dev.klat.agent;

import dev.klat.agentcore.log.AgentLog;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;

/**
 * Decides, once per class loader, whether its kafka-clients is a version the agent supports: 2.8 to
 * 4.x. Older clients have other internals; a client from 5.0 on may have changed anything. Either
 * way the agent steps aside for that loader, with one line, rather than weave what it has not
 * checked.
 */
final class ClientVersionCheck {

  static final String VERSION_RESOURCE = "kafka/kafka-version.properties";

  private final AgentLog log;
  private final Map<ClassLoader, Boolean> supportedByLoader =
      new WeakHashMap<ClassLoader, Boolean>();

  ClientVersionCheck(AgentLog log) {
    this.log = log;
  }

  /** Whether the kafka-clients that {@code loader} defines classes from is supported. */
  synchronized boolean supported(ClassLoader loader) {
    Boolean known = supportedByLoader.get(loader);
    if (known != null) {
      return known;
    }
    String version = version(loader);
    boolean supported = version == null || isSupported(version);
    if (version == null) {
      log.warn(
          "could not read the kafka-clients version in class loader "
              + loader
              + " ("
              + VERSION_RESOURCE
              + "): instrumenting it on the strength of its classes alone");
    } else if (!supported) {
      log.warn(
          "kafka-clients "
              + version
              + " in class loader "
              + loader
              + " is not supported (klat supports 2.8 to 4.x): its producers and consumers are"
              + " not instrumented");
    }
    supportedByLoader.put(loader, supported);
    return supported;
  }

  /** 2.8.x, every 3.x and every 4.x; anything unparsable is not supported. */
  static boolean isSupported(String version) {
    String[] parts = version.trim().split("[.-]");
    if (parts.length < 2) {
      return false;
    }
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = Integer.parseInt(parts[1]);
      return (major == 2 && minor >= 8) || major == 3 || major == 4;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String version(ClassLoader loader) {
    InputStream in =
        loader == null
            ? ClassLoader.getSystemResourceAsStream(VERSION_RESOURCE)
            : loader.getResourceAsStream(VERSION_RESOURCE);
    if (in == null) {
      return null;
    }
    try {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      return null;
    } finally {
      try {
        in.close();
      } catch (IOException ignored) {
        // Read already.
      }
    }
  }
}

package dev.klat.collector.broker;

import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import javax.management.remote.JMXServiceURL;

/**
 * Reads the configured broker lists, {@code nodeId=endpoint,...}: each entry checked, a bad one
 * named with its key and broker, a broker given twice refused.
 */
public final class BrokerEndpoints {
  private BrokerEndpoints() {}

  /**
   * Parses {@code nodeId=http://host:port/metrics,...}.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  public static Map<Integer, URI> exporters(String key, String text) {
    Map<Integer, URI> out = new TreeMap<>();
    entries(key, text)
        .forEach(
            (id, value) -> {
              try {
                URI uri = new URI(value);
                String scheme = uri.getScheme();
                if (uri.getHost() == null
                    || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
                  throw new URISyntaxException(value, "not an http(s) URL with a host");
                }
                out.put(id, uri);
              } catch (URISyntaxException e) {
                throw new IllegalArgumentException(
                    key + ": broker " + id + ": " + e.getMessage(), e);
              }
            });
    return out;
  }

  /**
   * Parses {@code nodeId=service:jmx:...,...} or {@code nodeId=host:port,...}.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  public static Map<Integer, JMXServiceURL> jmx(String key, String text) {
    Map<Integer, JMXServiceURL> out = new TreeMap<>();
    entries(key, text)
        .forEach(
            (id, value) -> {
              String url = value;
              if (!value.startsWith("service:jmx:")) {
                int colon = value.lastIndexOf(':');
                int port = colon < 0 ? -1 : parsePort(value.substring(colon + 1));
                String host = colon < 0 ? "" : value.substring(0, colon);
                if (host.startsWith("[") && host.endsWith("]")) {
                  host = host.substring(1, host.length() - 1);
                }
                if (host.isEmpty() || port <= 0) {
                  throw new IllegalArgumentException(
                      key
                          + ": broker "
                          + id
                          + ": "
                          + value
                          + " is neither service:jmx:... nor host:port");
                }
                url = JmxSource.serviceUrl(host, port);
              }
              try {
                out.put(id, new JMXServiceURL(url));
              } catch (MalformedURLException e) {
                throw new IllegalArgumentException(
                    key + ": broker " + id + ": " + e.getMessage(), e);
              }
            });
    return out;
  }

  private static int parsePort(String text) {
    try {
      int port = Integer.parseInt(text);
      return port > 0 && port <= 65535 ? port : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Map<Integer, String> entries(String key, String text) {
    Map<Integer, String> out = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String entry = part.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      int id;
      try {
        id = eq <= 0 ? -1 : Integer.parseInt(entry.substring(0, eq).trim());
      } catch (NumberFormatException e) {
        id = -1;
      }
      if (id < 0) {
        throw new IllegalArgumentException(
            key + ": expected nodeId=endpoint (node id a whole number >= 0): " + entry);
      }
      if (out.put(id, entry.substring(eq + 1).trim()) != null) {
        throw new IllegalArgumentException(key + ": broker " + id + " given twice");
      }
    }
    return out;
  }
}

package dev.klat.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** Reads the admin endpoints of a collector the demo or the lab started on loopback. */
public final class AdminClient {
  private AdminClient() {}

  /**
   * Returns the body of {@code path} on the collector's admin port, or null when it answered
   * anything but 200.
   *
   * @throws IOException when the collector cannot be reached within the timeouts
   */
  public static String get(int adminPort, String path) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + adminPort + path).toURL().openConnection();
    connection.setConnectTimeout(2000);
    connection.setReadTimeout(5000);
    try {
      if (connection.getResponseCode() != 200) {
        return null;
      }
      try (InputStream in = connection.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } finally {
      connection.disconnect();
    }
  }
}

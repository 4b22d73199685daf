package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/** Free loopback ports, never the same one twice in this JVM. */
final class Ports {

  static final String LOOPBACK = "127.0.0.1";

  private static final Set<Integer> handedOut = new HashSet<>();

  private Ports() {}

  static synchronized int free() {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
        int port = socket.getLocalPort();
        if (handedOut.add(port)) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("no free loopback port", e);
      }
    }
    throw new IllegalStateException("no new free loopback port after 100 attempts");
  }
}

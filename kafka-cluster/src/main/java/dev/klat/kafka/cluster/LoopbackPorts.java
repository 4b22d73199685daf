package dev.klat.kafka.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports, never the same one twice in this JVM: for brokers, and for everything else a
 * test starts on loopback (collectors, Prometheus), so that two choices made before either binds
 * cannot be the same port (two join members of one test were once handed one admin port).
 *
 * <p>Ports are taken below the kernel's ephemeral range: a port the kernel hands out for a listen
 * socket on port 0 comes from the same range as the local ports of outgoing connections, so in the
 * time between choosing it and the broker binding it, any client connecting anywhere could take it
 * (a broker failed to start with "Address already in use" that way while another test suite ran).
 */
public final class LoopbackPorts {

  static final String LOOPBACK = "127.0.0.1";

  private static final int LOWEST_PORT = 15_000;
  private static final int DEFAULT_EPHEMERAL_START = 32_768;

  private static final Set<Integer> handedOut = new HashSet<>();
  private static final int ephemeralStart = ephemeralRangeStart();

  private LoopbackPorts() {}

  /** A loopback port nothing listens on now, not handed out before in this JVM. */
  public static synchronized int free() {
    if (ephemeralStart - LOWEST_PORT >= 1_000) {
      for (int attempt = 0; attempt < 200; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, ephemeralStart);
        if (!handedOut.contains(port) && bindable(port)) {
          handedOut.add(port);
          return port;
        }
      }
    }
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

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(LOOPBACK))) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  // Linux: "32768\t60999"; elsewhere the IANA range's start is a safe guess.
  private static int ephemeralRangeStart() {
    try {
      // Files.readString stops after the first byte of this /proc file (it reports size 0).
      String range;
      try (BufferedReader in =
          Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
        range = in.readLine().trim();
      }
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}

package dev.klat.demo;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * The ports the demo's collector listens on, checked before anything starts: another process on one
 * of them (another klat collector, say) would answer in its place, and the demo would show that
 * process's figures.
 */
final class DemoPorts {

  /** A port the demo needs, what it is for, and the property that moves it. */
  record Need(int port, String what, String property) {}

  private DemoPorts() {}

  /**
   * Returns what to tell the user about the first port of {@code needs} that is in use on
   * 127.0.0.1, or null when all are free.
   */
  static String firstInUse(List<Need> needs) {
    for (Need need : needs) {
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress("127.0.0.1", need.port()));
      } catch (IOException inUse) {
        return "port "
            + need.port()
            + " ("
            + need.what()
            + ") is in use by another process: stop it, or run the demo on another port with -D"
            + need.property()
            + "=PORT";
      }
    }
    return null;
  }
}

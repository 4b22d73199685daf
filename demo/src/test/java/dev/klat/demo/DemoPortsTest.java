package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoPortsTest {

  @Test
  void aPortAnotherProcessListensOnIsNamedWithThePropertyThatMovesIt() throws Exception {
    try (ServerSocket other = new ServerSocket()) {
      other.bind(new InetSocketAddress("127.0.0.1", 0));
      int taken = other.getLocalPort();
      int free;
      try (ServerSocket s = new ServerSocket(0)) {
        free = s.getLocalPort();
      }
      String message =
          DemoPorts.firstInUse(
              List.of(
                  new DemoPorts.Need(free, "OTLP/HTTP", "klat.demo.otlp.port"),
                  new DemoPorts.Need(taken, "the collector's page", "klat.demo.admin.port")));

      assertThat(message)
          .isEqualTo(
              "port "
                  + taken
                  + " (the collector's page) is in use by another process: stop it, or run the"
                  + " demo on another port with -Dklat.demo.admin.port=PORT");
      assertThat(DemoPorts.firstInUse(List.of(new DemoPorts.Need(free, "x", "y")))).isNull();
    }
  }
}

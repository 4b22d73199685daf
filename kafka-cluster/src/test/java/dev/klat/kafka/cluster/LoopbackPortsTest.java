package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

  @Test
  void portsAreDistinctBindableAndOutsideTheRangeOfOutgoingConnections() throws Exception {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    int ephemeralStart =
        Files.isReadable(range)
            ? Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0])
            : 32_768;
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = LoopbackPorts.free();
      assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
      assertThat(port).isLessThan(ephemeralStart);
      try (ServerSocket socket =
          new ServerSocket(port, 1, InetAddress.getByName(LoopbackPorts.LOOPBACK))) {
        assertThat(socket.getLocalPort()).isEqualTo(port);
      }
    }
  }
}

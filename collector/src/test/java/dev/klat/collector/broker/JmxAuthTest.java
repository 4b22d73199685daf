package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Map;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXPrincipal;
import javax.management.remote.JMXServiceURL;
import javax.security.auth.Subject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JMX reads with credentials, against an in-process RMI connector server that checks them. */
class JmxAuthTest {

  @Test
  void theCredentialsOfThePasswordFileLogIn(@TempDir Path dir) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Registry registry = LocateRegistry.createRegistry(port);
    JMXAuthenticator authenticator =
        credentials -> {
          if (credentials instanceof String[] c
              && c.length == 2
              && "monitor".equals(c[0])
              && "pa ss".equals(c[1])) {
            return new Subject(
                true,
                java.util.Set.of(new JMXPrincipal("monitor")),
                java.util.Set.of(),
                java.util.Set.of());
          }
          throw new SecurityException("bad credentials");
        };
    String url = "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi";
    JMXConnectorServer server =
        JMXConnectorServerFactory.newJMXConnectorServer(
            new JMXServiceURL(url),
            Map.of(JMXConnectorServer.AUTHENTICATOR, authenticator),
            ManagementFactory.getPlatformMBeanServer());
    server.start();
    try {
      Path password = Files.writeString(dir.resolve("jmx-password"), "pa ss\n");
      JmxAuth auth =
          JmxAuth.of(
              "monitor", SecretFile.read("brokers.jmx-password-file", password.toString()), false);
      try (JmxSource source = new JmxSource(new JMXServiceURL(url), 2000, 2000, auth)) {
        assertThat(source.read(System::nanoTime)).isNotNull();
      }
      try (JmxSource anonymous = new JmxSource(new JMXServiceURL(url), 2000, 2000)) {
        assertThatThrownBy(() -> anonymous.read(System::nanoTime))
            .isInstanceOf(SecurityException.class);
      }
      assertThat(auth.toString()).isEqualTo("user monitor").doesNotContain("pa ss");
      assertThatThrownBy(() -> JmxAuth.of("monitor", null, false))
          .hasMessageContaining("brokers.jmx-password-file");
    } finally {
      server.stop();
      UnicastRemoteObject.unexportObject(registry, true);
    }
  }
}

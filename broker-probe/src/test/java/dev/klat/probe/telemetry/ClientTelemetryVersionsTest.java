package dev.klat.probe.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.ClientTelemetryAttributes;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The forwarder against the client telemetry interfaces of older brokers' kafka-clients, each in a
 * class loader of its own (the test's 4.4 kafka-clients out of sight): on 3.7 and 4.0 it loads, is
 * the {@code ClientTelemetry} and {@code MetricsReporter} those brokers look for, configures and
 * gives its receiver; on 3.6, which has no {@code ClientTelemetry}, it cannot load at all, which is
 * why docs/client-telemetry.md says not to name it on such a broker.
 */
class ClientTelemetryVersionsTest {

  private static final String FORWARDER = ClientTelemetryForwarder.class.getName();

  @ParameterizedTest
  @ValueSource(strings = {"3.7.2", "4.0.2"})
  void onAKafkaWithTheInterfaceItIsTheReporterTheBrokerCalls(String version) throws Exception {
    try (URLClassLoader loader = loader(version)) {
      Class<?> forwarder = Class.forName(FORWARDER, true, loader);
      Class<?> clientTelemetry =
          loader.loadClass("org.apache.kafka.server.telemetry.ClientTelemetry");
      Class<?> reporter = loader.loadClass("org.apache.kafka.common.metrics.MetricsReporter");
      assertThat(clientTelemetry.getClassLoader()).isSameAs(loader);
      assertThat(clientTelemetry).isAssignableFrom(forwarder);
      assertThat(reporter).isAssignableFrom(forwarder);

      Object instance = forwarder.getConstructor().newInstance();
      forwarder.getMethod("configure", Map.class).invoke(instance, Map.of("node.id", "3"));
      Object receiver = forwarder.getMethod("clientReceiver").invoke(instance);
      assertThat(loader.loadClass("org.apache.kafka.server.telemetry.ClientTelemetryReceiver"))
          .isAssignableFrom(receiver.getClass());
      forwarder.getMethod("close").invoke(instance);
    }
  }

  @Test
  void onKafka36ItCannotLoad() throws Exception {
    try (URLClassLoader loader = loader("3.6.2")) {
      assertThatThrownBy(() -> Class.forName(FORWARDER, true, loader))
          .isInstanceOf(NoClassDefFoundError.class)
          .hasMessageContaining("org/apache/kafka/server/telemetry/ClientTelemetry");
    }
  }

  /** kafka-clients of this version, the probe's classes, the core and the model; nothing else. */
  private static URLClassLoader loader(String version) throws Exception {
    Path clients = Paths.get("target", "telemetry-interfaces", "kafka-clients-" + version + ".jar");
    assertThat(clients).exists();
    return new URLClassLoader(
        new URL[] {
          clients.toUri().toURL(),
          location(ClientTelemetryForwarder.class),
          location(AgentLog.class),
          location(ClientTelemetryAttributes.class)
        },
        ClassLoader.getPlatformClassLoader());
  }

  private static URL location(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }
}

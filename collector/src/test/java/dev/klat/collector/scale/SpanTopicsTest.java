package dev.klat.collector.scale;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.SpanTopicSettings;
import java.net.ServerSocket;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

class SpanTopicsTest {

  @Test
  void anUnreachableClusterNamesTheBootstrapSetting() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String bootstrap = "127.0.0.1:" + closedPort;
    SpanTopicSettings settings =
        new SpanTopicSettings(bootstrap, "spans", "metrics", "logs", "g", 3, (short) 1);
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1500,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000))) {
      assertThatThrownBy(() -> SpanTopics.ensure(admin, settings))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(bootstrap)
          .hasMessageContaining("spans.kafka.bootstrap-servers");
    }
  }
}

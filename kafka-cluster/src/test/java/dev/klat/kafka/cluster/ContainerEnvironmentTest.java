package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The apache/kafka image turns environment variables back into properties; ours must round-trip.
 */
class ContainerEnvironmentTest {

  @Test
  void propertiesBecomeApacheKafkaImageVariables() {
    Properties config = new Properties();
    config.put("node.id", "2");
    config.put("offsets.topic.replication.factor", "3");
    config.put("listener.name.client_ssl.some-key", "x");

    assertThat(ContainerKafkaCluster.environment(config))
        .containsEntry("KAFKA_NODE_ID", "2")
        .containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "3")
        .containsEntry("KAFKA_LISTENER_NAME_CLIENT___SSL_SOME__KEY", "x");
  }
}

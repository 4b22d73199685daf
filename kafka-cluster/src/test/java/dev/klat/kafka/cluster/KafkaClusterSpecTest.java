package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.kafka.cluster.TopicSpec.TimestampType;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KafkaClusterSpecTest {

  @Test
  void brokerPropertiesOverrideInOrderOfSetting() {
    KafkaClusterSpec spec =
        KafkaClusterSpec.brokers(3)
            .brokerProperty("log.retention.ms", "1000")
            .brokerProperty("log.retention.ms", "2000")
            .build();

    assertThat(spec.brokerCount()).isEqualTo(3);
    assertThat(spec.brokerProperties()).containsEntry("log.retention.ms", "2000");
  }

  @Test
  void rejectsClustersWithoutBrokers() {
    assertThatThrownBy(() -> KafkaClusterSpec.brokers(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("brokerCount");
  }

  @Test
  void rejectsNamesThatAreNotSafeDirectoryNames() {
    assertThatThrownBy(() -> KafkaClusterSpec.brokers(1).name("../escape"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsNonPositiveStartTimeout() {
    assertThatThrownBy(() -> KafkaClusterSpec.brokers(1).startTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void topicSpecCarriesTheLatencyRelevantConfigs() {
    TopicSpec topic =
        TopicSpec.named("orders")
            .partitions(6)
            .replicationFactor(3)
            .minInsyncReplicas(2)
            .timestampType(TimestampType.LOG_APPEND_TIME)
            .build();

    assertThat(topic.partitions()).isEqualTo(6);
    assertThat(topic.replicationFactor()).isEqualTo((short) 3);
    assertThat(topic.configs())
        .containsEntry("min.insync.replicas", "2")
        .containsEntry("message.timestamp.type", "LogAppendTime");
  }

  @Test
  void topicSpecRejectsIllegalTopicNames() {
    assertThatThrownBy(() -> TopicSpec.named("has space"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void internalTopicsAreReplicatedAsWidelyAsTheClusterAllows() {
    assertThat(BrokerConfig.defaults(1))
        .containsEntry("offsets.topic.replication.factor", "1")
        .containsEntry("transaction.state.log.min.isr", "1");
    assertThat(BrokerConfig.defaults(3))
        .containsEntry("offsets.topic.replication.factor", "3")
        .containsEntry("transaction.state.log.min.isr", "2");
    assertThat(BrokerConfig.defaults(5)).containsEntry("offsets.topic.replication.factor", "3");
  }
}

package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaDistributionTest {

  @Test
  void brokerClasspathHoldsTheKafkaServerAndALoggingBackend() {
    KafkaDistribution distribution = KafkaDistribution.load();

    assertThat(distribution.kafkaVersion).isEqualTo("4.4.0");
    assertThat(distribution.brokerClasspath)
        .contains("kafka_2.13-4.4.0.jar")
        .contains("kafka-clients-4.4.0.jar")
        .contains("log4j-core-")
        .contains("log4j-slf4j-impl-")
        .contains("slf4j-api-1.7.");
    assertThat(distribution.jmxExporterAgent.getFileName().toString())
        .startsWith("jmx_prometheus_javaagent-");
  }

  @Test
  void exporterRulesAreTheOnesDeployUses(@TempDir Path directory) throws Exception {
    Path written = KafkaDistribution.writeExporterRules(directory);

    Path deployed = Paths.get("..", "deploy", "jmx-exporter", "kafka-broker.yaml");
    assertThat(Files.readString(written)).isEqualTo(Files.readString(deployed));
  }
}

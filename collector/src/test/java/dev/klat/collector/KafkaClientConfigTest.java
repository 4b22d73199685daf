package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {

  private static final String JAAS =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"klat\""
          + " password=\"s3cret-value\";";

  @Test
  void theFileGoesUnderKlatsOwnAndTheWarningNamesKeysNeverValues(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file,
        "security.protocol=SASL_SSL\n"
            + "sasl.mechanism=SCRAM-SHA-512\n"
            + "sasl.jaas.config="
            + JAAS.replace("\"", "\\\"")
            + "\n"
            + "bootstrap.servers=elsewhere:9092\n"
            + "client.id=theirs\n");
    KafkaClientConfig config =
        CollectorConfig.of(Map.of("brokers.kafka-config", file.toString()))
            .brokerSettings()
            .kafka();
    assertThat(config.keys())
        .containsExactly(
            "bootstrap.servers",
            "client.id",
            "sasl.jaas.config",
            "sasl.mechanism",
            "security.protocol");

    List<String> logged = new ArrayList<>();
    Logger log = Logger.getLogger(KafkaClientConfig.class.getName());
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            logged.add(r.getMessage());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(capture);
    try {
      Properties p =
          config.over(
              Map.of("bootstrap.servers", "kafka-1:9093", "client.id", "klat-collector-discovery"),
              "discovery");
      assertThat(p)
          .containsEntry("bootstrap.servers", "kafka-1:9093")
          .containsEntry("client.id", "klat-collector-discovery")
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.jaas.config", JAAS);
    } finally {
      log.removeHandler(capture);
    }
    assertThat(logged).hasSize(1);
    assertThat(logged.get(0))
        .contains("brokers.kafka-config", "discovery", "bootstrap.servers, client.id")
        .doesNotContain("elsewhere", "theirs", "s3cret");
    assertThat(config.toString()).doesNotContain("s3cret");
  }

  @Test
  void aSecuritySettingWhoseConnectionIsOffIsAWarning(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("client.properties"), "security.protocol=SSL\n");
    assertThat(
            CollectorConfig.of(
                    Map.of(
                        "brokers.kafka-config",
                        file.toString(),
                        "spans.kafka.config",
                        file.toString(),
                        "brokers.jmx-ssl",
                        "true"))
                .warnings())
        .containsExactlyInAnyOrder(
            "brokers.kafka-config is set but applies only with brokers.bootstrap: ignored",
            "spans.kafka.config is set but applies only with mode ingest or join: ignored",
            "brokers.jmx-ssl is set but applies only with brokers.jmx or brokers.jmx-port:"
                + " ignored");
  }

  @Test
  void noFileIsPlaintextAndAMissingFileNamesTheSetting() {
    assertThat(CollectorConfig.of(Map.of()).brokerSettings().kafka().properties()).isEmpty();
    assertThatThrownBy(
            () -> CollectorConfig.of(Map.of("brokers.kafka-config", "/nonexistent/client.conf")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("brokers.kafka-config")
        .hasMessageContaining("/nonexistent/client.conf");
    assertThatThrownBy(
            () ->
                CollectorConfig.of(
                        Map.of(
                            "mode",
                            "join",
                            "spans.kafka.bootstrap-servers",
                            "k:9092",
                            "spans.kafka.config",
                            "/nonexistent/spans.conf"))
                    .spanTopics())
        .hasMessageContaining("spans.kafka.config");
  }
}

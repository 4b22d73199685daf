package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LabOptionsTest {

  @Test
  void experimentsRunInTheCatalogueOrderWhateverOrderTheyAreGiven() {
    LabOptions options =
        LabOptions.parse(
            List.of("--experiment", "fetch", "--experiment", "linger,acks", "--time-budget", "3m"),
            Paths.get("out"));
    assertThat(options.experiments()).containsExactly("linger", "acks", "fetch");
    assertThat(options.timeBudget()).isEqualTo(Duration.ofMinutes(3));
    assertThat(options.bootstrap()).isNull();
  }

  @Test
  void anUnknownExperimentOrDurationIsAClearError() {
    assertThatThrownBy(() -> LabOptions.parse(List.of("--experiment", "lingr"), Paths.get("out")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown experiment lingr (known: linger,");
    assertThatThrownBy(() -> LabOptions.parse(List.of("--time-budget", "soon"), Paths.get("out")))
        .hasMessageContaining("not a duration: soon");
    assertThatThrownBy(() -> LabOptions.parse(List.of("--out"), Paths.get("out")))
        .hasMessageContaining("--out needs a value");
  }

  @Test
  void aCommandConfigMustExistAndGoWithABootstrapServer(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("client.properties");
    assertThatThrownBy(
            () ->
                LabOptions.parse(
                    List.of("--bootstrap-server", "k:9092", "--command-config", file.toString()),
                    Paths.get("out")))
        .hasMessageContaining("no such readable file");
    java.nio.file.Files.writeString(file, "security.protocol=SSL\n");
    assertThatThrownBy(
            () -> LabOptions.parse(List.of("--command-config", file.toString()), Paths.get("out")))
        .hasMessageContaining("applies to --bootstrap-server");
    LabOptions options =
        LabOptions.parse(
            List.of("--bootstrap-server", "k:9092", "--command-config", file.toString()),
            Paths.get("out"));
    org.assertj.core.api.Assertions.assertThat(options.commandConfig()).isEqualTo(file);
  }

  @Test
  void repeatsAndThroughputSecondsDefaultToTodaysBehaviourAndAreRead() {
    LabOptions defaults = LabOptions.parse(List.of(), Paths.get("out"));
    assertThat(defaults.repeats()).isEqualTo(1);
    assertThat(defaults.throughputSeconds()).isNull();
    assertThat(defaults.brokerExporterPort()).isNull();
    assertThat(defaults.brokerJmxPort()).isNull();
    LabOptions options =
        LabOptions.parse(List.of("--repeats", "3", "--throughput-seconds", "20"), Paths.get("out"));
    assertThat(options.repeats()).isEqualTo(3);
    assertThat(options.throughputSeconds()).isEqualTo(20);
    assertThat(
            LabOptions.parse(List.of("--throughput-seconds", "0"), Paths.get("out"))
                .throughputSeconds())
        .isZero();
  }

  @Test
  void badRepeatsThroughputSecondsOrRateAreClearErrors() {
    assertThatThrownBy(() -> LabOptions.parse(List.of("--repeats", "0"), Paths.get("out")))
        .hasMessage("--repeats must be from 1 to 20, not 0");
    assertThatThrownBy(() -> LabOptions.parse(List.of("--repeats", "three"), Paths.get("out")))
        .hasMessage("--repeats takes a whole number, not three");
    assertThatThrownBy(() -> LabOptions.parse(List.of("--repeats"), Paths.get("out")))
        .hasMessage("--repeats needs a value");
    assertThatThrownBy(
            () -> LabOptions.parse(List.of("--throughput-seconds", "-1"), Paths.get("out")))
        .hasMessage("--throughput-seconds must be from 0 to 600, not -1");
    assertThatThrownBy(
            () -> LabOptions.parse(List.of("--throughput-seconds", "2.5"), Paths.get("out")))
        .hasMessage("--throughput-seconds takes a whole number, not 2.5");
    assertThatThrownBy(() -> LabOptions.parse(List.of("--rate", "fast"), Paths.get("out")))
        .hasMessage("--rate takes a number, not fast");
  }

  @Test
  void brokerPortsApplyToAPlaintextUserClusterOnly(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    LabOptions options =
        LabOptions.parse(
            List.of(
                "--bootstrap-server",
                "k:9092",
                "--broker-exporter-port",
                "9404",
                "--broker-jmx-port",
                "9999"),
            Paths.get("out"));
    assertThat(options.brokerExporterPort()).isEqualTo(9404);
    assertThat(options.brokerJmxPort()).isEqualTo(9999);
    assertThatThrownBy(
            () -> LabOptions.parse(List.of("--broker-exporter-port", "9404"), Paths.get("out")))
        .hasMessageContaining("apply to --bootstrap-server");
    assertThatThrownBy(
            () ->
                LabOptions.parse(
                    List.of("--bootstrap-server", "k:9092", "--broker-jmx-port", "70000"),
                    Paths.get("out")))
        .hasMessage("--broker-jmx-port must be from 1 to 65535, not 70000");
    java.nio.file.Path file = dir.resolve("client.properties");
    java.nio.file.Files.writeString(file, "security.protocol=SSL\n");
    // The collector's discovery takes the same file (brokers.kafka-config).
    assertThat(
            LabOptions.parse(
                    List.of(
                        "--bootstrap-server",
                        "k:9092",
                        "--command-config",
                        file.toString(),
                        "--broker-jmx-port",
                        "9999"),
                    Paths.get("out"))
                .brokerJmxPort())
        .isEqualTo(9999);
  }
}

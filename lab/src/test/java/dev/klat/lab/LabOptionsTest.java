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
}

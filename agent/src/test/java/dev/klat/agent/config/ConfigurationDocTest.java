package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the key table in docs/configuration.md in step with {@link ConfigKey}. */
class ConfigurationDocTest {

  private static List<String> tableRows() throws IOException {
    Path dir = Paths.get("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/configuration.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("docs/configuration.md above the working directory").isNotNull();
    return Files.readAllLines(dir.resolve("docs/configuration.md")).stream()
        .filter(line -> line.startsWith("| `klat."))
        .toList();
  }

  @Test
  void everyKeyHasOneRowWithItsEnvironmentVariableAndDefault() throws IOException {
    List<String> rows = tableRows();

    assertThat(rows).hasSize(ConfigKey.values().length);
    for (ConfigKey key : ConfigKey.values()) {
      String row =
          rows.stream()
              .filter(r -> r.startsWith("| `" + key.key + "` |"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no row for " + key.key));
      String[] cells = row.split("(?<!\\\\)\\|");
      // cells[0] is the empty string before the first '|'.
      assertThat(cells).as(row).hasSizeGreaterThanOrEqualTo(6);
      assertThat(cells[2].trim()).isEqualTo("`" + key.envName + "`");
      if (key.defaultValue != null) {
        assertThat(cells[4].trim())
            .as(key.key)
            .isEqualTo("`" + key.defaultValue.replace("|", "\\|") + "`");
      }
    }
  }
}

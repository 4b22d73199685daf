package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The committed JSON under {@code dashboards/grafana} is exactly what the generator writes, so that
 * a change to {@link Dashboards} cannot ship without its JSON, and hand edits to the JSON cannot
 * drift. Regenerate with {@code ./mvnw -q -pl dashboards test -Dtest=GeneratedDashboardsTest
 * -Dklat.dashboards.write=true}.
 */
// JSON, YAML and PromQL text only: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class GeneratedDashboardsTest {

  @Test
  void committedJsonIsWhatTheGeneratorWrites() throws IOException {
    Path dir = Repo.path("dashboards/grafana");
    Map<String, String> rendered = GenerateDashboards.render();
    if (Boolean.getBoolean("klat.dashboards.write")) {
      GenerateDashboards.main(new String[] {dir.toString()});
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toSet()))
          .as("files in %s (a dashboard removed from the generator must be deleted)", dir)
          .containsExactlyInAnyOrderElementsOf(rendered.keySet());
    }
    for (Map.Entry<String, String> e : rendered.entrySet()) {
      String committed =
          new String(Files.readAllBytes(dir.resolve(e.getKey())), StandardCharsets.UTF_8);
      assertThat(committed)
          .as(
              "%s differs from the generator's output; regenerate with ./mvnw -q -pl dashboards"
                  + " test -Dtest=GeneratedDashboardsTest -Dklat.dashboards.write=true",
              e.getKey())
          .isEqualTo(e.getValue());
    }
  }
}

package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code docs/metrics.md} lists every metric the model defines, with its names and labels. */
// A docs table against an enum: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class MetricsDocTest {

  @Test
  void everyMetricHasItsRowWithBothNamesAndItsLabels() throws IOException {
    Path doc = Paths.get("..", "docs", "metrics.md");
    String text = new String(Files.readAllBytes(doc), StandardCharsets.UTF_8);
    for (MetricDef metric : MetricDef.all()) {
      String row =
          "| `"
              + metric.name()
              + "` | `"
              + metric.prometheusName()
              + "` | "
              + metric.instrument().name().toLowerCase(java.util.Locale.ROOT)
              + " | "
              + String.join(", ", metric.tagKeys())
              + " |";
      assertThat(text).as("row of %s in %s", metric.name(), doc).contains(row);
    }
  }
}

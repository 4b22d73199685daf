package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The committed dashboards hold together as Grafana will show them. */
// JSON, YAML and PromQL text only: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class DashboardsTest {

  @Test
  void exemplarsAreAskedOnlyOfHistogramsThatCarryThem() {
    int withExemplars = 0;
    for (Path file : Queries.dashboardFiles()) {
      for (JsonNode panel : Queries.read(Queries.JSON, file).path("panels")) {
        for (JsonNode target : panel.path("targets")) {
          if (target.path("exemplar").asBoolean(false)) {
            withExemplars++;
            // Recorded series and other histograms have no exemplars; asking would show none.
            assertThat(PromQl.metricNames(target.path("expr").asText()))
                .as("%s: %s", file.getFileName(), panel.path("title").asText())
                .isSubsetOf(Config.E2E + "_bucket", Config.SEGMENT + "_bucket");
          }
        }
      }
    }
    // The three end-to-end percentiles, the stacked segment p99 and publish/commit; the records
    // seen through OpenTelemetry: their end-to-end p50 and p99 and their segments' p99.
    assertThat(withExemplars).isEqualTo(8);
  }

  @Test
  void everyPanelIsDescribedAndNoTwoPanelsOverlap() {
    for (Path file : Queries.dashboardFiles()) {
      JsonNode dashboard = Queries.read(Queries.JSON, file);
      assertThat(dashboard.path("uid").asText()).startsWith("klat-");
      List<int[]> boxes = new ArrayList<>();
      Set<Integer> ids = new HashSet<>();
      Set<String> titles = new HashSet<>();
      for (JsonNode panel : dashboard.path("panels")) {
        assertThat(ids.add(panel.path("id").asInt())).as("unique panel id").isTrue();
        // A title names a panel's queries wherever they are checked (PrometheusIT keys them so).
        assertThat(titles.add(panel.path("title").asText()))
            .as("%s: unique panel title '%s'", file.getFileName(), panel.path("title").asText())
            .isTrue();
        JsonNode g = panel.path("gridPos");
        int[] box = {
          g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(), g.path("h").asInt()
        };
        assertThat(box[0] + box[2]).as("panel inside the 24-column grid").isLessThanOrEqualTo(24);
        for (int[] other : boxes) {
          boolean overlap =
              box[0] < other[0] + other[2]
                  && other[0] < box[0] + box[2]
                  && box[1] < other[1] + other[3]
                  && other[1] < box[1] + box[3];
          assertThat(overlap)
              .as(
                  "%s: '%s' overlaps another panel",
                  file.getFileName(), panel.path("title").asText())
              .isFalse();
        }
        boxes.add(box);
        if (!panel.path("type").asText().equals("row")) {
          assertThat(panel.path("description").asText())
              .as("%s: description of '%s'", file.getFileName(), panel.path("title").asText())
              .isNotBlank();
          assertThat(panel.path("targets").size()).isPositive();
        }
      }
    }
  }

  @Test
  void latencyPanelsAreInSeconds() {
    for (Path file : Queries.dashboardFiles()) {
      for (JsonNode panel : Queries.read(Queries.JSON, file).path("panels")) {
        String expr = panel.path("targets").path(0).path("expr").asText();
        if (expr.startsWith("histogram_quantile(")) {
          assertThat(panel.path("fieldConfig").path("defaults").path("unit").asText())
              .as("%s: unit of '%s'", file.getFileName(), panel.path("title").asText())
              .isEqualTo("s");
        }
      }
    }
  }
}

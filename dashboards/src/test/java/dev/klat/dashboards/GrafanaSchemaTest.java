package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.klat.testsupport.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every dashboard the generator writes is valid by Grafana's own published schema: {@code
 * dashboards/schema-check} type-checks the JSON against {@code @grafana/schema}'s types (see {@code
 * dashboards/DESIGN.md}). The check needs Node.js and its packages, which {@code ./klat test}
 * installs ({@code npm ci --prefix dashboards/schema-check}); without them these tests are skipped,
 * saying so, except under {@code CI=true}, where they fail ({@link RequiredTool}).
 */
// Node.js on the generated JSON: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class GrafanaSchemaTest {
  private static final Path CHECK = Repo.path("dashboards/schema-check");

  @TempDir Path dir;

  @Test
  void generatedDashboardsAreValidByGrafanasSchema() throws Exception {
    Map<String, String> rendered = GenerateDashboards.render();
    List<String> files = new ArrayList<>();
    for (Map.Entry<String, String> e : rendered.entrySet()) {
      Path file = dir.resolve(e.getKey());
      Files.writeString(file, e.getValue());
      files.add(file.toString());
    }
    Result r = check(files);
    assertThat(r.status()).as(r.output()).isZero();
    assertThat(r.output()).contains(rendered.size() + " dashboard(s) valid by @grafana/schema");
  }

  /** The check can fail: each broken copy of a dashboard is rejected, with the reason. */
  @Test
  void dashboardsWithAWrongFieldAreRejected() throws Exception {
    String overview = GenerateDashboards.render().get("klat-overview.json");
    Path stringWidth =
        broken(overview, "string-width.json", p -> ((ObjectNode) p.get("gridPos")).put("w", "8"));
    Path misspeltKey =
        broken(overview, "misspelt-key.json", p -> p.set("gridpos", p.remove("gridPos")));
    // A key unknown to the time series plugin's own options schema, one level deeper.
    Path misspeltOption =
        broken(
            overview,
            "misspelt-option.json",
            p -> ((ObjectNode) p.path("options").path("legend")).put("showLegnd", true));

    Result r =
        check(List.of(stringWidth.toString(), misspeltKey.toString(), misspeltOption.toString()));

    assertThat(r.status()).as(r.output()).isEqualTo(1);
    // One error each, naming the file and line: file:line:column - error TSnnnn: message.
    assertThat(r.output())
        .containsPattern(
            "string-width\\.json:\\d+:\\d+ - error TS\\d+: Type 'string' is not assignable to type"
                + " 'number'")
        .containsPattern(
            "misspelt-key\\.json:\\d+:\\d+ - error TS\\d+: .*'\"gridpos\"' does not exist")
        .containsPattern(
            "misspelt-option\\.json:\\d+:\\d+ - error TS\\d+: .*'\"showLegnd\"' does not exist")
        .contains("3 problem(s)");
  }

  /** Writes a copy of {@code json} whose first time series panel {@code breakage} changed. */
  private Path broken(String json, String name, Consumer<ObjectNode> breakage) throws IOException {
    ObjectNode dashboard = (ObjectNode) DashboardBuilder.JSON.readTree(json);
    for (var panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("timeseries")) {
        breakage.accept((ObjectNode) panel);
        Path file = dir.resolve(name);
        DashboardBuilder.JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), dashboard);
        return file;
      }
    }
    throw new IllegalStateException("no time series panel to break");
  }

  record Result(int status, String output) {}

  /** Runs the installed check on {@code files}; skips or fails when it is not installed. */
  private static Result check(List<String> files) throws IOException, InterruptedException {
    String skipped = "the Grafana schema check";
    Path node = RequiredTool.NODE.require(skipped);
    for (String pkg : List.of("@grafana/schema", "typescript")) {
      RequiredTool.require(
          Files.isRegularFile(CHECK.resolve("node_modules").resolve(pkg).resolve("package.json")),
          pkg + " is not installed in " + CHECK + " (npm ci --prefix dashboards/schema-check)",
          skipped);
    }
    List<String> command = new ArrayList<>(List.of(node.toString(), "check.js"));
    command.addAll(files);
    Process p =
        new ProcessBuilder(command).directory(CHECK.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the schema check finished").isTrue();
    return new Result(p.exitValue(), out);
  }
}

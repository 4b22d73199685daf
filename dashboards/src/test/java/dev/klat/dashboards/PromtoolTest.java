package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * promtool accepts the rules and alerts and their unit tests pass. promtool comes with Debian's
 * {@code prometheus} package, which {@code ./klat test} installs; without it these tests are
 * skipped, saying so, and fail under {@code CI=true}.
 */
// promtool on text files: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class PromtoolTest {

  /**
   * Runs promtool and returns its exit status and output; without promtool the calling test is
   * skipped, or fails under {@code CI=true} ({@link RequiredTool}).
   */
  static Result run(String... args) throws IOException, InterruptedException {
    Path promtool =
        RequiredTool.PROMTOOL.require(
            "the promtool check `promtool " + args[0] + " " + args[1] + "`");
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .directory(Repo.root().toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    return new Result(p.exitValue(), out);
  }

  record Result(int status, String output) {}

  @Test
  void rulesAndAlertsPassPromtoolCheck() throws Exception {
    List<String> args = new ArrayList<>(List.of("check", "rules"));
    Queries.ruleFiles().forEach(f -> args.add(f.toString()));
    Result r = run(args.toArray(new String[0]));
    assertThat(r.status()).as(r.output()).isZero();
    assertThat(r.output()).doesNotContain("WARNING");
  }

  @Test
  void rulesAndAlertsPassTheirUnitTests() throws Exception {
    List<String> args = new ArrayList<>(List.of("test", "rules"));
    try (var files = Files.list(Repo.path("dashboards/prometheus/tests"))) {
      files
          .filter(f -> f.toString().endsWith(".yml"))
          .sorted()
          .forEach(f -> args.add(f.toString()));
    }
    assertThat(args).hasSizeGreaterThan(2);
    Result r = run(args.toArray(new String[0]));
    assertThat(r.status()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }
}

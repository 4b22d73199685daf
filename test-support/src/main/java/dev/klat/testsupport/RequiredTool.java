package dev.klat.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * The outside tools klat's tests run, and the one rule for a test whose tool is missing: skipped
 * with its reason locally, failed under {@code CI=true}, where {@code ./klat test} has installed
 * it. A test skips only the step that needs the tool (DemoIT keeps its scenario checks without a
 * browser). {@code test-support/run-tests.sh} installs the same list; a tool added here is added
 * there.
 *
 * <ul>
 *   <li>{@code chromium} renders the collector's page and the lab's report (DemoIT, LabIT);
 *   <li>{@code prometheus} runs the rules and answers every panel's query (PrometheusIT);
 *   <li>{@code promtool} checks the rules, the alerts' unit tests and the deploy config
 *       (PromtoolTest, DeployTest);
 *   <li>{@code node} runs the Grafana schema check (GrafanaSchemaTest) and the kafkajs clients
 *       instrumented by OpenTelemetry (OtelNodeClientsIT); the npm packages of each ({@code
 *       dashboards/schema-check}, {@code it-apps/otel-node}) are checked with {@link
 *       #require(boolean, String, String)}; so is {@code it-apps/rdkafka-node}'s node-rdkafka,
 *       which {@code ./klat test} compiles with the librdkafka it bundles (ClientTelemetryIT's
 *       librdkafka producer, with Debian's g++, make, node-gyp and libnode-dev).
 * </ul>
 *
 * Each constant is named after its command and holds the Debian packages that install it.
 */
public enum RequiredTool {
  CHROMIUM("chromium"),
  PROMETHEUS("prometheus"),
  PROMTOOL("prometheus"),
  NODE("nodejs npm");

  private final String debianPackages;

  RequiredTool(String debianPackages) {
    this.debianPackages = debianPackages;
  }

  /**
   * The tool's executable: the first on the {@code PATH}, else {@code /usr/bin}'s. When there is
   * none, skips the calling test (or fails it under {@code CI=true}) saying that {@code skipped}
   * does not run, for example "DemoIT's browser step".
   */
  public Path require(String skipped) {
    Path found = find(System.getenv());
    String command = command();
    require(
        found != null,
        command + " is not installed (apt-get install " + debianPackages + ")",
        skipped);
    return found;
  }

  private String command() {
    return name().toLowerCase(Locale.ROOT);
  }

  Path find(Map<String, String> environment) {
    List<String> dirs = new ArrayList<>(List.of(environment.getOrDefault("PATH", "").split(":")));
    dirs.add("/usr/bin");
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Paths.get(dir, command());
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /**
   * The rule for any outside requirement that is not one executable (the schema check's npm
   * packages): when {@code installed} is false, {@code skipped} is skipped locally and fails under
   * {@code CI=true}, with {@code missing} as the reason.
   */
  public static void require(boolean installed, String missing, String skipped) {
    check(installed, missing, skipped, "true".equals(System.getenv("CI")));
  }

  static void check(boolean installed, String missing, String skipped, boolean ci) {
    if (installed) {
      return;
    }
    if (ci) {
      throw new AssertionError(
          "CI=true, where ./klat test installs what the tests need, but "
              + missing
              + ": "
              + skipped
              + " cannot run (see the set-up lines at the start of ./klat test's output)");
    }
    throw new TestAbortedException(
        skipped
            + " skipped: "
            + missing
            + "; ./klat test installs it as root or with password-free sudo");
  }
}

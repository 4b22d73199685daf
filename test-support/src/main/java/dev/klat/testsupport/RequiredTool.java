package dev.klat.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.opentest4j.TestAbortedException;

/**
 * The outside tools klat's tests run, and the one rule for a test whose tool is missing: skipped
 * with its reason locally, failed under {@code CI=true}, where {@code ./klat test} has installed
 * it. A test skips only the step that needs the tool (DemoIT keeps its scenario checks without a
 * browser). {@code test-support/run-tests.sh} installs the same list; a tool added here is added
 * there.
 */
public enum RequiredTool {
  /** Renders the collector's page and the lab's report (DemoIT, LabIT). */
  CHROMIUM("chromium", "Debian's chromium (apt-get install chromium)"),
  /** Runs the rules and answers every panel's query (PrometheusIT). */
  PROMETHEUS("prometheus", "Debian's prometheus (apt-get install prometheus)"),
  /** Checks the rules, the alerts' unit tests and the deploy config (PromtoolTest, DeployTest). */
  PROMTOOL("promtool", "promtool, from Debian's prometheus (apt-get install prometheus)"),
  /** Runs the Grafana schema check (GrafanaSchemaTest). */
  NODE("node", "Node.js (apt-get install nodejs npm)");

  private final String command;
  private final String installedBy;

  RequiredTool(String command, String installedBy) {
    this.command = command;
    this.installedBy = installedBy;
  }

  /**
   * The tool's executable: the first on the {@code PATH}, else {@code /usr/bin}'s. When there is
   * none, skips the calling test (or fails it under {@code CI=true}) saying that {@code skipped}
   * does not run, for example "DemoIT's browser step".
   */
  public Path require(String skipped) {
    Path found = find(System.getenv());
    require(found != null, installedBy + " is not installed", skipped);
    return found;
  }

  /** Whether the tool is installed, without skipping anything. */
  public boolean installed() {
    return find(System.getenv()) != null;
  }

  Path find(Map<String, String> environment) {
    List<String> dirs = new ArrayList<>(List.of(environment.getOrDefault("PATH", "").split(":")));
    dirs.add("/usr/bin");
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Paths.get(dir, command);
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
            + " (./klat test installs it as root or with password-free sudo)");
  }
}

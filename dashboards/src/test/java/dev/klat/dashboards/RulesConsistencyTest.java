package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The SLO threshold is one, and it is a bucket bound of the collector's histograms. */
// JSON, YAML and PromQL text only: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class RulesConsistencyTest {

  @Test
  void sloThresholdIsACollectorBucketBound() throws Exception {
    // The bounds of the collector jar that users run (its Maven artifact is not the fat jar).
    URL jar = Repo.path("collector/target/klat-collector.jar").toUri().toURL();
    List<String> bounds = new ArrayList<>();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar}, null)) {
      Class<?> buckets = loader.loadClass("dev.klat.collector.aggregate.Buckets");
      Method count = buckets.getMethod("count");
      Method upperSeconds = buckets.getMethod("upperSeconds", int.class);
      // The last bucket is +Inf.
      for (int i = 0; i < (int) count.invoke(null) - 1; i++) {
        double upper = (double) upperSeconds.invoke(null, i);
        bounds.add(new BigDecimal(Double.toString(upper)).stripTrailingZeros().toPlainString());
      }
    }
    assertThat(bounds).hasSizeGreaterThan(100).contains(Config.SLO_THRESHOLD_SECONDS);
  }

  @Test
  void rulesUseTheDashboardsThresholdEverywhere() throws Exception {
    Pattern le = Pattern.compile("le=\"([^\"]+)\"");
    int found = 0;
    for (Queries.Query q : Queries.rules()) {
      Matcher m = le.matcher(q.expr());
      while (m.find()) {
        found++;
        assertThat(m.group(1)).as(q.where()).isEqualTo(Config.SLO_THRESHOLD_SECONDS);
      }
    }
    assertThat(found).isEqualTo(7);
    String alerts =
        new String(
            Files.readAllBytes(Repo.path("dashboards/prometheus/klat-alerts.yml")),
            StandardCharsets.UTF_8);
    assertThat(alerts).contains(Config.SLO_THRESHOLD_SECONDS);
  }

  @Test
  void everyAlertHasARunbookSection() throws Exception {
    String runbook =
        new String(Files.readAllBytes(Repo.path("dashboards/RUNBOOK.md")), StandardCharsets.UTF_8);
    for (Queries.Query q : Queries.rules()) {
      if (q.kind().equals("alert")) {
        String alert = q.where().substring(q.where().indexOf(' ') + 1);
        assertThat(runbook).as("RUNBOOK.md section for %s", alert).contains("## " + alert);
      }
    }
  }
}

package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.Buckets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The SLO threshold is one, and it is a bucket bound of the collector's histograms. */
class RulesConsistencyTest {

  @Test
  void sloThresholdIsACollectorBucketBound() {
    List<String> bounds = new ArrayList<>();
    // The last bucket is +Inf.
    for (int i = 0; i < Buckets.count() - 1; i++) {
      bounds.add(
          new java.math.BigDecimal(Double.toString(Buckets.upperSeconds(i)))
              .stripTrailingZeros()
              .toPlainString());
    }
    assertThat(bounds).contains(Config.SLO_THRESHOLD_SECONDS);
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

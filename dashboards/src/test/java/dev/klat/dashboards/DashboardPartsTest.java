package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Each dashboard's builder, and the PromQL helpers they share, on their own. */
// JSON, YAML and PromQL text only: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class DashboardPartsTest {

  @Test
  void quantilesSumBucketsBeforeTakingTheQuantile() {
    assertThat(Dashboards.quantile(0.99, "m", "topic", "a=\"b\""))
        .isEqualTo(
            "histogram_quantile(0.99, sum by (topic, le) (rate(m_bucket{a=\"b\"}[$__rate_interval])))");
  }

  @Test
  void trimShowsWholeNumbersWithoutAFractionAndRoundsToMilliseconds() {
    assertThat(Dashboards.trim(5.0)).isEqualTo("5");
    assertThat(Dashboards.trim(0.50331648)).isEqualTo("0.503");
  }

  @Test
  void overviewAsksTheThreeEndToEndPercentiles() {
    List<String> exprs = exprs(OverviewDashboard.build());
    for (String q : new String[] {"0.5", "0.99", "0.999"}) {
      assertThat(exprs)
          .anyMatch(e -> e.startsWith("histogram_quantile(" + q + ", ") && e.contains(Config.E2E));
    }
  }

  @Test
  void breakdownStacksEverySegmentFromTheSegmentHistogram() {
    JsonNode dashboard = BreakdownDashboard.build();
    assertThat(dashboard.path("uid").asText()).isEqualTo("klat-breakdown");
    assertThat(exprs(dashboard))
        .anyMatch(
            e ->
                e.startsWith("histogram_quantile(0.99, sum by (segment, le)")
                    && e.contains(Config.SEGMENT));
  }

  @Test
  void brokerRequestQuantilesAreShownInSeconds() {
    List<String> brokerRequestMetrics =
        exprs(BrokersDashboard.build()).stream()
            .filter(e -> e.startsWith("kafka_network_requestmetrics_") && e.contains("quantile="))
            .toList();
    assertThat(brokerRequestMetrics).hasSizeGreaterThanOrEqualTo(4);
    assertThat(brokerRequestMetrics).allMatch(e -> e.endsWith(" / 1000"));
  }

  private static List<String> exprs(JsonNode dashboard) {
    List<String> out = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        if (target.has("expr")) {
          out.add(target.path("expr").asText());
        }
      }
    }
    return out;
  }
}

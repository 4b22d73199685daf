package dev.klat.dashboards;

import static dev.klat.dashboards.Config.RATE_INTERVAL;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.MetricDef;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * klat's Grafana dashboards. Every metric name comes from {@link MetricDef} or from the broker JMX
 * exporter rules in {@code deploy/jmx-exporter/kafka-broker.yaml}; {@code MetricNamesTest} checks
 * both.
 */
public final class Dashboards {

  private Dashboards() {}

  /**
   * Returns every dashboard by file name.
   *
   * @return file name ({@code klat-overview.json}) to the dashboard's JSON tree, in a fixed order
   */
  public static Map<String, JsonNode> all() {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    out.put("klat-overview.json", OverviewDashboard.build());
    out.put("klat-breakdown.json", BreakdownDashboard.build());
    out.put("klat-brokers.json", BrokersDashboard.build());
    out.put("klat-pipelines.json", PipelinesDashboard.build());
    return out;
  }

  // The per-second rate of a counter or histogram series over Grafana's rate interval.
  static String rate(String series) {
    return "rate(" + series + "[" + RATE_INTERVAL + "])";
  }

  // A quantile of a histogram across the agents' and collector's series of one topic and group;
  // buckets are summed before the quantile is taken, never the quantiles themselves.
  static String quantile(double q, String metric, String by, String matchers) {
    return "histogram_quantile("
        + q
        + ", sum by ("
        + by
        + ", le) ("
        + rate(metric + "_bucket{" + matchers + "}")
        + "))";
  }

  static String trim(double v) {
    double rounded = Math.round(v * 1000) / 1000.0;
    return rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
  }
}

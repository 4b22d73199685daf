package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.AttributeDef;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Dashboards and rules speak model/'s vocabulary: every metric a query reads is one {@link
 * MetricDef} defines, a series our recording rules record, a broker metric the JMX exporter rules
 * produce, or one of Prometheus' own.
 */
// JSON, YAML and PromQL text only: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class MetricNamesTest {
  // Series Prometheus itself writes for every target and alert.
  private static final Set<String> PROMETHEUS_BUILT_INS =
      Set.of("up", "ALERTS", "ALERTS_FOR_STATE", "scrape_duration_seconds");

  private final JmxExporterNames broker =
      new JmxExporterNames(Repo.path("deploy/jmx-exporter/kafka-broker.yaml"));

  private static Set<String> modelNames() {
    Set<String> out = new HashSet<>();
    for (MetricDef def : MetricDef.all()) {
      out.addAll(def.prometheusSeriesNames());
    }
    return out;
  }

  @Test
  void everyQueryReadsOnlyDefinedMetrics() {
    Set<String> allowed = modelNames();
    allowed.addAll(Queries.recordedNames());
    allowed.addAll(PROMETHEUS_BUILT_INS);
    List<String> unknown = new ArrayList<>();
    int checked = 0;
    for (Queries.Query q : Queries.all()) {
      if (!q.promQl()) {
        continue;
      }
      Set<String> names = PromQl.metricNames(q.expr());
      assertThat(names).as("metric names in %s: %s", q.where(), q.expr()).isNotEmpty();
      for (String name : names) {
        checked++;
        if (!allowed.contains(name) && !broker.defines(name)) {
          unknown.add(q.where() + ": " + name);
        }
      }
    }
    assertThat(checked).isGreaterThan(40);
    assertThat(unknown)
        .as("metric names that model/ and the JMX exporter rules do not define")
        .isEmpty();
  }

  @Test
  void recordedNamesAreLevelMetricOperationsOfAModelMetric() {
    Set<String> model = modelNames();
    for (String recorded : Queries.recordedNames()) {
      String[] parts = recorded.split(":");
      assertThat(parts).as("%s is level:metric:operations", recorded).hasSize(3);
      assertThat(model).as("the metric part of %s", recorded).contains(parts[1]);
    }
  }

  @Test
  void theNameCheckCatchesAnUnknownName() {
    assertThat(
            PromQl.metricNames(
                "sum by (topic, le) (rate(klat_e2e_latency_bogus_bucket{le=\"0.5\", group=~\"$group\"}[$__rate_interval])) / on (topic) group_left up"))
        .containsExactly("klat_e2e_latency_bogus_bucket", "up");
    assertThat(
            PromQl.metricNames(
                "label_values(klat_e2e_latency_seconds_count{topic=~\"$topic\"}, group)"))
        .containsExactly("klat_e2e_latency_seconds_count");
    assertThat(broker.defines("kafka_network_requestmetrics_totaltimems")).isTrue();
    assertThat(broker.defines("kafka_network_requestmetrics_totaltimems_mean")).isTrue();
    assertThat(broker.defines("kafka_network_requestmetrics_totaltime")).isFalse();
    assertThat(modelNames()).doesNotContain("klat_e2e_latency_bogus_bucket");
  }

  @Test
  void traceQlReadsOnlySpanAttributesTheModelDefines() {
    Set<String> attributes = new HashSet<>();
    for (AttributeDef a : SpanAttributes.all()) {
      attributes.add(a.name());
    }
    Pattern spanAttribute = Pattern.compile("\\bspan\\.([a-z0-9_.]+)");
    int checked = 0;
    for (Queries.Query q : Queries.dashboards()) {
      if (q.promQl()) {
        continue;
      }
      Matcher m = spanAttribute.matcher(q.expr());
      while (m.find()) {
        checked++;
        assertThat(attributes).as("span attribute in %s", q.where()).contains(m.group(1));
      }
    }
    assertThat(checked).isPositive();
  }

  @Test
  void dashboardsUseOnlyTheProvisionedDatasources() {
    Set<String> uids = new HashSet<>();
    for (Path file : Queries.dashboardFiles()) {
      collectUids(Queries.read(Queries.JSON, file), uids);
    }
    assertThat(uids).containsExactlyInAnyOrder(Config.PROMETHEUS_UID, Config.TEMPO_UID);
  }

  static void collectUids(JsonNode node, Set<String> uids) {
    if (node.isObject() && node.has("datasource") && node.get("datasource").has("uid")) {
      uids.add(node.get("datasource").get("uid").asText());
    }
    node.forEach(child -> collectUids(child, uids));
  }
}

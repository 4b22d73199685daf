package dev.klat.collector.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.MetricDef;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {
  // The agent's bounds (LatencyHistogram): 1 us, then (17 + s) * 2^(e - 4) ns for k = i + 158.
  static double[] agentBounds() {
    double[] bounds = new double[434];
    bounds[0] = 1000 / 1e9;
    for (int i = 1; i < bounds.length; i++) {
      int k = i + 158;
      bounds[i] = ((17L + (k & 15)) << ((k >>> 4) - 4)) / 1e9;
    }
    return bounds;
  }

  static int agentIndex(long nanos) {
    double[] b = agentBounds();
    for (int i = 0; i < b.length; i++) {
      if (nanos / 1e9 <= b[i]) {
        return i;
      }
    }
    return b.length;
  }

  static AgentMetrics.Point e2e(String instance, long start, long time, long... nanos) {
    long[] counts = new long[435];
    double sum = 0;
    for (long n : nanos) {
      counts[agentIndex(n)]++;
      sum += n / 1e9;
    }
    return new AgentMetrics.Point(
        MetricDef.E2E_LATENCY.name(),
        Exposition.Type.HISTOGRAM,
        false,
        Map.of("topic", "orders", "group", "g", "client_id", "ignored"),
        instance,
        start,
        time,
        0,
        agentBounds(),
        counts,
        sum);
  }

  static long total(long[] counts) {
    long t = 0;
    for (long c : counts) {
      t += c;
    }
    return t;
  }

  @Test
  void histogramsOfTwoInstancesMergeExactlyIntoTheExportBuckets() {
    AgentMetrics m = new AgentMetrics(100, Long.MAX_VALUE);
    m.accept(e2e("a", 1, 10, 3_000_000, 250_000_000));
    m.accept(e2e("b", 1, 10, 3_000_000));
    // A later cumulative point of "a" replaces its earlier one.
    m.accept(e2e("a", 1, 20, 3_000_000, 250_000_000, 40_000_000_000L));

    var merged = m.merged(MetricDef.E2E_LATENCY, 0);
    assertThat(merged).hasSize(1);
    var labels = merged.keySet().iterator().next();
    assertThat(labels).containsOnlyKeys("topic", "group");
    long[] counts = merged.get(labels).counts();
    assertThat(total(counts)).isEqualTo(4);
    assertThat(counts[Buckets.indexOfNanos(3_000_000)]).isEqualTo(2);
    assertThat(counts[Buckets.indexOfNanos(250_000_000)]).isEqualTo(1);
    assertThat(counts[Buckets.indexOfNanos(40_000_000_000L)]).isEqualTo(1);
    assertThat(merged.get(labels).value())
        .isCloseTo(40.256, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void aRestartedAgentNeverMakesTheMergedSeriesGoBackwards() {
    AgentMetrics m = new AgentMetrics(100, Long.MAX_VALUE);
    m.accept(e2e("a", 1, 10, 3_000_000, 3_000_000, 3_000_000));
    // Same instance id, new start time and fewer counts: a restart.
    m.accept(e2e("a", 50, 60, 5_000_000));
    m.accept(e2e("a", 50, 70, 5_000_000, 5_000_000));
    long[] counts = m.merged(MetricDef.E2E_LATENCY, 0).values().iterator().next().counts();
    assertThat(total(counts)).isEqualTo(5);
    assertThat(m.counts()[1]).isEqualTo(1);
  }

  @Test
  void aLateOlderPointIsNotMistakenForARestart() {
    AgentMetrics m = new AgentMetrics(100, Long.MAX_VALUE);
    m.accept(e2e("a", 1, 10, 3_000_000));
    m.accept(e2e("a", 1, 20, 3_000_000, 3_000_000));
    m.accept(e2e("a", 1, 10, 3_000_000)); // a retried request, delivered late
    m.accept(e2e("a", 50, 60, 5_000_000)); // restart
    m.accept(e2e("a", 1, 30, 3_000_000, 3_000_000, 3_000_000)); // from before the restart
    long[] counts = m.merged(MetricDef.E2E_LATENCY, 0).values().iterator().next().counts();
    assertThat(total(counts)).isEqualTo(3);
    assertThat(m.counts()[1]).isEqualTo(1);
  }

  @Test
  void countersAddUpAcrossInstancesAndDeltasAccumulate() {
    AgentMetrics m = new AgentMetrics(100, Long.MAX_VALUE);
    String name = MetricDef.AGENT_EXPORT_SPANS_DROPPED.name();
    m.accept(
        new AgentMetrics.Point(
            name, Exposition.Type.COUNTER, false, Map.of(), "a", 1, 2, 5, null, null, 0));
    m.accept(
        new AgentMetrics.Point(
            name, Exposition.Type.COUNTER, false, Map.of(), "b", 1, 2, 7, null, null, 0));
    m.accept(
        new AgentMetrics.Point(
            name, Exposition.Type.COUNTER, true, Map.of(), "c", 1, 2, 1, null, null, 0));
    m.accept(
        new AgentMetrics.Point(
            name, Exposition.Type.COUNTER, true, Map.of(), "c", 2, 3, 1, null, null, 0));
    assertThat(m.merged(MetricDef.AGENT_EXPORT_SPANS_DROPPED, 0).values().iterator().next().value())
        .isEqualTo(14);
  }

  @Test
  void retiredStreamsKeepTheirCountsAndUnknownMetricsAreIgnored() {
    AgentMetrics m = new AgentMetrics(1, Long.MAX_VALUE);
    m.accept(e2e("a", 1, 10, 3_000_000));
    m.accept(e2e("b", 1, 10, 3_000_000));
    assertThat(m.streamCount()).isEqualTo(1);
    assertThat(total(m.merged(MetricDef.E2E_LATENCY, 0).values().iterator().next().counts()))
        .isEqualTo(2);
    assertThat(
            m.accept(
                new AgentMetrics.Point(
                    "http.server.duration",
                    Exposition.Type.GAUGE,
                    false,
                    Map.of(),
                    "a",
                    0,
                    0,
                    1,
                    null,
                    null,
                    0)))
        .isFalse();
  }
}

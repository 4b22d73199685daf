package dev.klat.collector.aggregate;

import static dev.klat.collector.aggregate.AgentMetricsTest.e2e;
import static dev.klat.collector.aggregate.AgentMetricsTest.total;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.MetricDef;
import org.junit.jupiter.api.Test;

/**
 * An agent's metrics partition moving from one join member to another: the two members' series add
 * up to what one collector would show, and neither goes back.
 */
class AgentMetricsHandOverTest {

  private static long merged(AgentMetrics m) {
    var all = m.merged(MetricDef.E2E_LATENCY, 0);
    return all.isEmpty() ? 0 : total(all.values().iterator().next().counts());
  }

  @Test
  void theMembersSeriesAddUpToOneCollectorsAcrossAHandOver() {
    AgentMetrics first = new AgentMetrics(100, Long.MAX_VALUE);
    AgentMetrics second = new AgentMetrics(100, Long.MAX_VALUE);
    first.accept(e2e("a", 1, 10, 3_000_000, 3_000_000));
    first.accept(e2e("a", 1, 20, 3_000_000, 3_000_000, 3_000_000));

    first.handOver("a"::equals);
    // The first member counted through the point of time 20; the second reads it again first.
    AgentMetrics.TakeOver countedThrough20 = new AgentMetrics.TakeOver(20, Long.MIN_VALUE);
    second.accept(e2e("a", 1, 10, 3_000_000, 3_000_000), countedThrough20);
    second.accept(e2e("a", 1, 20, 3_000_000, 3_000_000, 3_000_000), countedThrough20);
    second.accept(
        e2e("a", 1, 30, 3_000_000, 3_000_000, 3_000_000, 3_000_000, 3_000_000), countedThrough20);

    assertThat(merged(first)).as("the first keeps what it counted").isEqualTo(3);
    assertThat(merged(second)).as("the second counts what came after").isEqualTo(2);
    assertThat(first.streamCount()).isZero();
  }

  @Test
  void withoutTheOtherMembersCountAnAgentStartedBeforeTheTakeOverCountsFromItsFirstPoint() {
    AgentMetrics second = new AgentMetrics(100, Long.MAX_VALUE);
    AgentMetrics.TakeOver unknown = new AgentMetrics.TakeOver(Long.MIN_VALUE, 25);
    second.accept(e2e("a", 1, 30, 3_000_000, 3_000_000, 3_000_000, 3_000_000), unknown);
    second.accept(e2e("a", 1, 40, 3_000_000, 3_000_000, 3_000_000, 3_000_000, 3_000_000), unknown);
    // What the agent added between the two members' points (one export interval) is not counted.
    assertThat(merged(second)).isEqualTo(1);
  }

  @Test
  void anAgentStartedAfterTheTakeOverCountsWhole() {
    AgentMetrics second = new AgentMetrics(100, Long.MAX_VALUE);
    second.accept(
        e2e("b", 50, 60, 3_000_000, 3_000_000), new AgentMetrics.TakeOver(Long.MIN_VALUE, 25));
    assertThat(merged(second)).isEqualTo(2);
  }

  @Test
  void otherInstancesStayWithTheMember() {
    AgentMetrics m = new AgentMetrics(100, Long.MAX_VALUE);
    m.accept(e2e("a", 1, 10, 3_000_000));
    m.accept(e2e("b", 1, 10, 3_000_000));
    m.handOver("a"::equals);
    assertThat(m.streamCount()).isEqualTo(1);
    assertThat(merged(m)).isEqualTo(2);
  }
}

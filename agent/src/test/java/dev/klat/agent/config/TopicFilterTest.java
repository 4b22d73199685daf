package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.log.CapturedLog;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TopicFilterTest {

  private static TopicFilter defaults() {
    return AgentConfig.load(Map.of(), Map.of(), new CapturedLog().log).topicFilter();
  }

  @Test
  void internalTopicsAreExcludedByDefault() {
    TopicFilter filter = defaults();

    assertThat(filter.accepts("__consumer_offsets")).isFalse();
    assertThat(filter.accepts("__transaction_state")).isFalse();
    assertThat(filter.accepts("_confluent-metrics")).isFalse();
    assertThat(filter.accepts("_confluent-command")).isFalse();
    assertThat(filter.accepts("_schemas")).isFalse();
  }

  @Test
  void applicationTopicsAreIncludedByDefault() {
    TopicFilter filter = defaults();

    assertThat(filter.accepts("orders")).isTrue();
    assertThat(filter.accepts("payments.v2")).isTrue();
    assertThat(filter.accepts("my_schemas")).isTrue();
    assertThat(filter.accepts("_schemas-backup")).isTrue();
  }

  @Test
  void topicMustFullyMatchIncludeAndNotMatchExclude() {
    TopicFilter filter =
        new TopicFilter(Pattern.compile("orders.*|payments"), Pattern.compile(".*-dlq"));

    assertThat(filter.accepts("orders")).isTrue();
    assertThat(filter.accepts("orders.eu")).isTrue();
    assertThat(filter.accepts("orders-dlq")).isFalse();
    assertThat(filter.accepts("payments")).isTrue();
    assertThat(filter.accepts("payments-v2")).isFalse();
    assertThat(filter.accepts("legacy-orders")).isFalse();
    assertThat(filter.accepts(null)).isFalse();
  }

  @Test
  void configuredPatternsReachTheFilter() {
    TopicFilter filter =
        AgentConfig.load(
                Map.of("klat.topics.include", "orders.*"),
                Map.of("KLAT_TOPICS_EXCLUDE", "orders\\.test"),
                new CapturedLog().log)
            .topicFilter();

    assertThat(filter.accepts("orders.eu")).isTrue();
    assertThat(filter.accepts("orders.test")).isFalse();
    assertThat(filter.accepts("payments")).isFalse();
  }

  @Test
  void regexRunsOncePerTopic() {
    TopicFilter filter = defaults();

    for (int i = 0; i < 1000; i++) {
      filter.accepts("orders");
      filter.accepts("__consumer_offsets");
    }

    assertThat(filter.evaluations()).isEqualTo(2);
    assertThat(filter.cachedTopicCount()).isEqualTo(2);
  }

  @Test
  void cacheIsBoundedAndDecisionsStayCorrectPastTheBound() {
    TopicFilter filter = new TopicFilter(Pattern.compile("t.*"), Pattern.compile("t9"), 3);

    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 10; i++) {
        assertThat(filter.accepts("t" + i)).isEqualTo(i != 9);
      }
    }

    assertThat(filter.cachedTopicCount()).isEqualTo(3);
    assertThat(filter.evaluations()).isEqualTo(3 + 7 * 2);
  }

  @Test
  void regexesFromTheConfigurationCompileOnTheFirstTopicAndFilterAlike() {
    TopicFilter filter = TopicFilter.ofRegex("orders.*|payments", ".*-dlq");

    assertThat(filter.includeRegex()).isEqualTo("orders.*|payments");
    assertThat(filter.toString()).isEqualTo("include=orders.*|payments exclude=.*-dlq");
    assertThat(filter.accepts("orders-eu")).isTrue();
    assertThat(filter.accepts("orders-dlq")).isFalse();
    assertThat(filter.accepts("other")).isFalse();
    assertThat(filter.include().pattern()).isEqualTo("orders.*|payments");
    assertThat(filter.exclude()).isSameAs(filter.exclude());
  }
}

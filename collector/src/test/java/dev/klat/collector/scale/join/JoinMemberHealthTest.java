package dev.klat.collector.scale.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.SpanTopicSettings;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.receive.OtlpIngest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A join member whose reading loop dies says why, for {@code /healthz}. */
class JoinMemberHealthTest {

  private static final long MINUTE = 60_000_000_000L;

  @Test
  void aMemberWhoseLoopDiedNamesTheReasonAndAHealthyOneNothing() throws Exception {
    // A real consumer that cannot subscribe: Kafka refuses an empty topic name at once.
    try (JoinMember broken = member("");
        JoinMember idle = member("klat-spans")) {
      assertThat(broken.problem()).isNull();
      broken.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (broken.problem() == null && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(broken.problem())
          .startsWith("the join member stopped reading the span topic")
          .contains("IllegalArgumentException");
      // Never started, never failed: nothing to report.
      assertThat(idle.problem()).isNull();
    }
  }

  private static JoinMember member(String spansTopic) {
    AgentMetrics metrics = new AgentMetrics(100, Long.MAX_VALUE);
    Correlator correlator =
        new Correlator(
            new Correlator.Settings(MINUTE, 10, MINUTE, 10),
            () -> 0L,
            BrokerInstants.logAppendTime(),
            b -> {});
    SpanTopicSettings topics =
        new SpanTopicSettings(
            "127.0.0.1:1", spansTopic, "klat-metrics", "klat-logs", "health-test", 1, (short) 1);
    return new JoinMember(
        new JoinMember.Settings(topics, 10_000, MINUTE, 100, 5 * MINUTE),
        new OtlpIngest(correlator, metrics),
        metrics,
        correlator,
        b -> {},
        System::nanoTime);
  }
}

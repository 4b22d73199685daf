package dev.klat.collector.scale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.BrokerInstants;
import dev.klat.collector.correlate.Correlator;
import dev.klat.collector.receive.OtlpIngest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A probe topic reader that cannot reach its cluster keeps asking, and says so meanwhile. */
class ProbeLogReaderTest {

  private static final long MINUTE = 60_000_000_000L;

  @Test
  void anUnreachableClusterIsAProblemThatIsRetriedNotAStop() throws Exception {
    Correlator correlator =
        new Correlator(
            new Correlator.Settings(MINUTE, 10, MINUTE, 10),
            () -> 0L,
            BrokerInstants.logAppendTime(),
            b -> {});
    // A real consumer against a port nothing listens on: its metadata requests time out.
    try (ProbeLogReader reader =
        new ProbeLogReader(
            "127.0.0.1:1",
            "klat-logs",
            MINUTE / 1_000_000,
            new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE)),
            Duration.ofMillis(300))) {
      assertThat(reader.problem()).isNull();
      reader.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (reader.problem() == null && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(reader.problem())
          .startsWith("the probe topic reader cannot reach the cluster")
          .endsWith("; retrying");
      long closing = System.nanoTime();
      reader.close();
      assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
    }
  }
}

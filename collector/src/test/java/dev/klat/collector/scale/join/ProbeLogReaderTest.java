package dev.klat.collector.scale.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.KafkaClientConfig;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.receive.OtlpIngest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A probe topic reader that cannot reach its cluster keeps asking instead of stopping. */
class ProbeLogReaderTest {

  private static final long MINUTE = 60_000_000_000L;

  @Test
  void anUnreachableClusterIsRetriedNotAStop() throws Exception {
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
            KafkaClientConfig.none("spans.kafka.config"),
            "klat-logs",
            MINUTE / 1_000_000,
            new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE)),
            Duration.ofMillis(300),
            200)) {
      reader.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (reader.startRetries() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(reader.startRetries()).as("asked again after the first timeout").isGreaterThan(1);
      // Alive and retrying: nothing for /healthz, which would have a restart that cannot help.
      assertThat(reader.problem()).isNull();
      long closing = System.nanoTime();
      reader.close();
      assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
    }
  }
}

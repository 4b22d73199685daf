package dev.klat.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's kafkajs line, read from the {@code opentelemetry} object of /api/breakdown. */
class OpenTelemetryRowTest {

  // As the collector writes it (SummaryJson.opentelemetry), trimmed to what the row reads.
  private static final String ANSWER =
      "{\"count\":0,\"e2e\":{\"p50Seconds\":null},\"opentelemetry\":{\"capture\":\"opentelemetry\","
          + "\"count\":12,\"instrumented\":{\"producer\":0,\"consumer\":12},"
          + "\"e2e\":{\"count\":12,\"p50Seconds\":0.012,\"p99Seconds\":0.5,\"meanSeconds\":0.05},"
          + "\"segments\":{"
          + "\"produce+publish\":{\"count\":0,\"p50Seconds\":null,\"p99Seconds\":null},"
          + "\"commit\":{\"count\":12,\"p50Seconds\":0.002,\"p99Seconds\":0.004},"
          + "\"catch-up+fetch\":{\"count\":12,\"p50Seconds\":0.003,\"p99Seconds\":0.006},"
          + "\"produce\":{\"count\":12,\"p50Seconds\":0.005,\"p99Seconds\":0.49}},"
          + "\"pairs\":[],\"pairsNotShown\":0}}";

  @Test
  void readsTheInstrumentedRecordsAndTheSegmentsTheyKnow() {
    OpenTelemetryRow row = OpenTelemetryRow.parse(ANSWER);

    assertThat(row.count).isEqualTo(12);
    assertThat(row.p99Seconds).isEqualTo(0.5);
    assertThat(row.segmentP99Seconds)
        .containsExactly(
            Map.entry("commit", 0.004),
            Map.entry("catch-up+fetch", 0.006),
            Map.entry("produce", 0.49));
  }

  @Test
  void theLineCarriesNoneOfTheMarksOfTheDemosOtherLines() {
    String token = OpenTelemetryRow.parse(ANSWER).token("demo-orders", "demo-kafkajs");

    assertThat(token)
        .startsWith("kafkajs=demo-orders/demo-kafkajs n=12 p50=12.0 ms p99=500 ms")
        .contains("| segment p99s: commit=4.0ms catch-up+fetch=6.0ms produce=490ms")
        .doesNotContain("driver=", "why=", "pipeline=");
  }

  @Test
  void aCollectorWithoutTheObjectReadsAsNoRecord() {
    OpenTelemetryRow row = OpenTelemetryRow.parse("{\"count\":3}");

    assertThat(row.count).isZero();
    assertThat(row.p50Seconds).isNull();
    assertThat(row.segmentP99Seconds).isEmpty();
  }

  @Test
  void somethingThatIsNotJsonIsAClearError() {
    assertThatThrownBy(() -> OpenTelemetryRow.parse("<html>"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not JSON");
  }

  @Test
  void withoutThePackageTheConsumerSaysWhatIsMissing(@TempDir Path root) throws Exception {
    NodeConsumer node = new NodeConsumer(root, root.resolve("cache"), root, p -> {});

    assertThat(node.missing()).endsWith("it-apps/otel-node/package-lock.json is missing");

    Files.createDirectories(root.resolve("it-apps/otel-node"));
    Files.writeString(root.resolve("it-apps/otel-node/package-lock.json"), "{}");
    assertThat(node.missing()).endsWith("demo/src/main/node/demo-consumer.js is missing");
  }

  @Test
  void eachLockFileHasItsOwnInstallDirectory() {
    assertThat(NodeConsumer.hash("{\"a\":1}".getBytes()))
        .hasSize(16)
        .isEqualTo(NodeConsumer.hash("{\"a\":1}".getBytes()))
        .isNotEqualTo(NodeConsumer.hash("{\"a\":2}".getBytes()));
  }
}

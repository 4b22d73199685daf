package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.SettingValueException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectorConfigTest {

  @Test
  void flagsBeatSystemPropertiesBeatEnvironmentBeatTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("c.properties");
    Files.writeString(
        file, "join.window=1s\nklat.collector.clock.max-pairs=7\nadmin.port=1\notlp.http.port=2\n");
    Properties system = new Properties();
    system.setProperty("klat.collector.admin.port", "3");
    system.setProperty("klat.collector.otlp.http.port", "4");
    CollectorConfig c =
        CollectorConfig.parse(
            new String[] {"--config=" + file, "--otlp.http.port", "5"},
            system,
            Map.of("KLAT_COLLECTOR_ADMIN_PORT", "6", "KLAT_COLLECTOR_JOIN_WINDOW", "2s"));
    assertThat(c.durationMillis("join.window")).isEqualTo(2000);
    assertThat(c.positiveInt("clock.max-pairs")).isEqualTo(7);
    assertThat(c.port("admin.port")).isEqualTo(3);
    assertThat(c.port("otlp.http.port")).isEqualTo(5);
    assertThat(c.string("otlp.http.host")).isEqualTo("127.0.0.1");
    assertThat(c.warnings()).isEmpty();
  }

  @Test
  void unknownKeysWarnAndBadValuesFailNamingTheKey() {
    CollectorConfig c =
        CollectorConfig.parse(new String[] {"--no.such.key=1"}, new Properties(), Map.of());
    assertThat(c.warnings()).singleElement().asString().contains("no.such.key");
    assertThatThrownBy(
            () ->
                CollectorConfig.parse(
                    new String[] {"--join.window=-1s"}, new Properties(), Map.of()))
        .hasMessageContaining("join.window must be a duration such as 500ms");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("clock.window", "0")))
        .hasMessageContaining("clock.window must be more than zero");
    assertThatThrownBy(
            () ->
                CollectorConfig.parse(
                    new String[] {"--admin.port=70000"}, new Properties(), Map.of()))
        .hasMessageContaining("admin.port");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("traces.endpoint", "tempo:4318")))
        .hasMessageContaining("traces.endpoint");
  }

  @Test
  void durationsTakeTheAgentsUnitsAndTheOldMillisecondKeysStillWorkWithAWarning() {
    CollectorConfig c =
        CollectorConfig.parse(
            new String[] {"--clock.window=2m", "--brokers.history.ms=900000"},
            new Properties(),
            Map.of("KLAT_COLLECTOR_JOIN_WINDOW_MS", "1500"));
    assertThat(c.durationMillis("clock.window")).isEqualTo(120_000);
    assertThat(c.durationMillis("join.window")).isEqualTo(1_500);
    assertThat(c.durationMillis("brokers.history")).isEqualTo(900_000);
    assertThat(c.durationMillis("brokers.scrape-interval")).isEqualTo(5_000);
    assertThat(c.durationMillis("metrics.gauge-stale")).isEqualTo(300_000);
    assertThat(c.warnings())
        .containsExactlyInAnyOrder(
            "KLAT_COLLECTOR_JOIN_WINDOW_MS (environment) is deprecated: use"
                + " KLAT_COLLECTOR_JOIN_WINDOW",
            "brokers.history.ms (flag) is deprecated: use brokers.history");
  }

  @Test
  void theOldDottedSpellingsStillWorkWithOneWarningNamingTheNewKey(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("c.properties");
    Files.writeString(file, "klat.collector.traces.queue.size=7\n");
    Properties system = new Properties();
    system.setProperty("klat.collector.metrics.max.streams", "9");
    CollectorConfig c =
        CollectorConfig.parse(
            new String[] {"--config=" + file, "--otlp.max.body.bytes=1024"},
            system,
            Map.of("KLAT_COLLECTOR_BROKERS_SCRAPE_INTERVAL", "2s"));
    assertThat(c.positiveInt("otlp.max-body-bytes")).isEqualTo(1024);
    assertThat(c.positiveInt("metrics.max-streams")).isEqualTo(9);
    assertThat(c.positiveInt("traces.queue-size")).isEqualTo(7);
    // The environment variable is the same for both spellings: nothing to warn about.
    assertThat(c.durationMillis("brokers.scrape-interval")).isEqualTo(2_000);
    assertThat(c.warnings())
        .containsExactlyInAnyOrder(
            "traces.queue.size (" + file + ") is deprecated: use traces.queue-size",
            "metrics.max.streams (system property) is deprecated: use metrics.max-streams",
            "otlp.max.body.bytes (flag) is deprecated: use otlp.max-body-bytes");
  }

  @Test
  void whereASourceSetsBothSpellingsTheNewKeyWinsAndTheWarningSaysSo() {
    CollectorConfig c =
        CollectorConfig.parse(
            new String[] {"--join.max.pending.records=5", "--join.max-pending-records=6"},
            new Properties(),
            Map.of());
    assertThat(c.positiveInt("join.max-pending-records")).isEqualTo(6);
    assertThat(c.warnings())
        .containsExactly(
            "join.max.pending.records (flag) is deprecated: use join.max-pending-records;"
                + " join.max-pending-records is set there too and wins");
    // An old spelling alone is read as the key.
    assertThat(
            CollectorConfig.of(Map.of("spans.kafka.session.timeout", "6s"))
                .durationMillis("spans.kafka.session-timeout"))
        .isEqualTo(6_000);
  }

  @Test
  void aBadValueNamesTheKeyAndWhatItMustBe() {
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("otlp.grpc.enabled", "yes")))
        .isInstanceOf(SettingValueException.class)
        .hasMessage("otlp.grpc.enabled must be true or false: yes");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("otlp.max.body.bytes", "lots")))
        .hasMessage("otlp.max-body-bytes must be an integer > 0: lots");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("mode", "both")))
        .hasMessage("mode must be one of all, ingest, join: both");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("spans.kafka.replication-factor", "40000")))
        .hasMessage("spans.kafka.replication-factor must be an integer from 1 to 32767: 40000");
    assertThat(
            CollectorConfig.of(Map.of("traces.queue-size", "1_000"))
                .positiveInt("traces.queue-size"))
        .isEqualTo(1_000);
  }

  @Test
  void brokerKeysParseIntoSettingsAndBadCombinationsFailNamingTheKeys() {
    assertThat(CollectorConfig.of(Map.of()).brokerSettings().enabled()).isFalse();
    var listed =
        CollectorConfig.of(
                Map.of(
                    "brokers.exporter", "1=http://kafka-1:9404/metrics",
                    "brokers.jmx", "1=kafka-1:9999,2=kafka-2:9999",
                    "brokers.scrape-interval", "500ms",
                    "brokers.stale", "2s"))
            .brokerSettings();
    assertThat(listed.enabled()).isTrue();
    assertThat(listed.exporters()).containsOnlyKeys(1);
    assertThat(listed.jmx()).containsOnlyKeys(1, 2);
    assertThat(listed.scrapeIntervalMs()).isEqualTo(500);
    assertThat(listed.staleMs()).isEqualTo(2000);
    assertThat(listed.historyMs()).isEqualTo(600_000);
    var discovered =
        CollectorConfig.parse(
                new String[] {"--brokers.bootstrap=kafka:9092"},
                new Properties(),
                Map.of("KLAT_COLLECTOR_BROKERS_EXPORTER_PORT", "9404"))
            .brokerSettings();
    assertThat(discovered.bootstrap()).isEqualTo("kafka:9092");
    assertThat(discovered.exporterPort()).isEqualTo(9404);
    assertThat(discovered.jmxPort()).isZero();

    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.bootstrap", "kafka:9092")))
        .hasMessageContaining("brokers.exporter-port");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.jmx-port", "9999")))
        .hasMessageContaining("brokers.bootstrap");
    assertThatThrownBy(
            () ->
                CollectorConfig.of(
                    Map.of("brokers.bootstrap", "kafka:9092", "brokers.jmx-port", "0")))
        .hasMessageContaining("brokers.jmx-port");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.exporter", "1=kafka:9404")))
        .hasMessageContaining("brokers.exporter");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.stale", "1s")))
        .hasMessageContaining("brokers.stale (1000 ms) must be at least brokers.scrape-interval");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.history", "1s")))
        .hasMessageContaining("brokers.history (1000 ms) must be at least brokers.stale");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("brokers.read-timeout", "0")))
        .hasMessageContaining("brokers.read-timeout");
  }

  @Test
  void theHistoryKeepsRetentionOverIntervalPointsAndRefusesWhatWouldNotBound() {
    assertThat(CollectorConfig.of(Map.of()).historyPointsPerPair()).isEqualTo(360);
    assertThat(
            CollectorConfig.of(Map.of("history.interval", "30s", "history.retention", "2h"))
                .historyPointsPerPair())
        .isEqualTo(240);
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("history.retention", "5s")))
        .hasMessage(
            "history.retention over history.interval must be 1 to 10000 points per topic"
                + " and group: 5s / 10s");
    assertThatThrownBy(
            () -> CollectorConfig.of(Map.of("history.interval", "1s", "history.retention", "24h")))
        .hasMessageContaining("must be 1 to 10000 points");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("history.interval", "500ms")))
        .hasMessage("history.interval must be at least 1s: 500ms");
    assertThatThrownBy(() -> CollectorConfig.of(Map.of("history.max-topic-groups", "0")))
        .hasMessageContaining("history.max-topic-groups");
  }
}

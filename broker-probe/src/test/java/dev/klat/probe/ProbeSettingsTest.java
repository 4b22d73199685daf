package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.SettingValueException;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProbeSettingsTest {

  private static ProbeSettings load(Map<String, String> system, Map<String, String> env) {
    Properties properties = new Properties();
    properties.putAll(system);
    return ProbeSettings.load(properties, env);
  }

  @Test
  void theDefaultsAreTheTables() {
    ProbeSettings s = load(Map.of(), Map.of());
    assertThat(s.enabled).isTrue();
    assertThat(s.endpoint).isEqualTo("http://127.0.0.1:4318");
    assertThat(s.serviceName).isEqualTo("kafka-broker");
    assertThat(s.exportIntervalMillis).isEqualTo(200);
    assertThat(s.resolutionMicros).isEqualTo(1_000);
    assertThat(s.queueSize).isEqualTo(32_768);
    assertThat(s.maxPartitions).isEqualTo(20_000);
    assertThat(s.maxRangesPerPartition).isEqualTo(1_024);
    assertThat(s.gzip).isFalse();
    assertThat(s.timeoutMillis).isEqualTo(10_000);
    assertThat(s.logLevel).isEqualTo("info");
    assertThat(s.warnings).isEmpty();
  }

  @Test
  void aSystemPropertyBeatsTheEnvironmentAndAnEmptyValueCountsAsUnset() {
    ProbeSettings s =
        load(
            Map.of("klat.probe.queue-size", " 4_096 ", "klat.service.name", " "),
            Map.of(
                "KLAT_PROBE_QUEUE_SIZE", "2048",
                "KLAT_SERVICE_NAME", "broker-1",
                "KLAT_ENDPOINT", "http://collector:4318/",
                "KLAT_PROBE_RESOLUTION", "0ms",
                "KLAT_LOG_LEVEL", "DEBUG"));
    assertThat(s.queueSize).isEqualTo(4_096);
    assertThat(s.serviceName).isEqualTo("broker-1");
    assertThat(s.endpoint).isEqualTo("http://collector:4318");
    assertThat(s.resolutionMicros).isZero();
    assertThat(s.logLevel).isEqualTo("debug");
  }

  @Test
  void booleansAreStrictSoYesIsAnErrorNamingTheKeyNotASilentFalse() {
    for (String bad : new String[] {"yes", "no", "1", "on"}) {
      assertThatThrownBy(() -> load(Map.of("klat.enabled", bad), Map.of()))
          .isInstanceOf(SettingValueException.class)
          .hasMessage("klat.enabled must be true or false: " + bad);
    }
    assertThatThrownBy(() -> load(Map.of(), Map.of("KLAT_EXPORT_GZIP", "yes")))
        .hasMessage("klat.export.gzip must be true or false: yes");
    assertThat(load(Map.of("klat.enabled", "FALSE"), Map.of()).enabled).isFalse();
  }

  @Test
  void aBadValueNamesTheKeyAndWhatItMustBe() {
    assertThatThrownBy(() -> load(Map.of("klat.probe.queue-size", "512"), Map.of()))
        .hasMessage("klat.probe.queue-size must be an integer from 1024 to 16777216: 512");
    assertThatThrownBy(() -> load(Map.of("klat.probe.export-interval", "1m"), Map.of()))
        .hasMessage("klat.probe.export-interval must be from 10ms to 10s: 1m");
    assertThatThrownBy(() -> load(Map.of("klat.endpoint", "collector:4318"), Map.of()))
        .hasMessageStartingWith("klat.endpoint must be an http or https URL");
    assertThatThrownBy(() -> load(Map.of("klat.log.level", "verbose"), Map.of()))
        .hasMessage("klat.log.level must be one of off, error, warn, info, debug: verbose");
    assertThatThrownBy(
            () ->
                ProbeSettings.load(
                    new Properties(), Collections.singletonMap("KLAT_PROBE_RESOLUTION", "2s")))
        .hasMessage("klat.probe.resolution must be from 0ms to 1s: 2s");
  }
}

package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingNamesTest {

  private static final String[] OLD = {"klat.export.queue.size", "klat.export.queue.size.old"};

  @Test
  void environmentNamesAreOpenTelemetrys() {
    assertThat(SettingNames.envName("klat.sampling.max-per-second"))
        .isEqualTo("KLAT_SAMPLING_MAX_PER_SECOND");
    assertThat(SettingNames.envName("klat.collector.otlp.max-body-bytes"))
        .isEqualTo("KLAT_COLLECTOR_OTLP_MAX_BODY_BYTES");
    // A rename from dots to dashes keeps the environment variable.
    assertThat(SettingNames.envName("klat.export.queue.size"))
        .isEqualTo(SettingNames.envName("klat.export.queue-size"));
  }

  @Test
  void onlyOldSpellingsWithAnotherEnvironmentVariableHaveOne() {
    assertThat(SettingNames.oldEnvNames("", "KLAT_EXPORT_QUEUE_SIZE", OLD))
        .containsExactly("KLAT_EXPORT_QUEUE_SIZE_OLD");
    assertThat(
            SettingNames.oldEnvNames(
                "klat.collector.",
                "KLAT_COLLECTOR_METRICS_GAUGE_STALE",
                new String[] {"metrics.gauge.stale", "metrics.gauge.stale.ms"}))
        .containsExactly("KLAT_COLLECTOR_METRICS_GAUGE_STALE_MS");
    assertThat(SettingNames.oldEnvNames("", "KLAT_ENABLED", new String[0])).isEmpty();
  }

  @Test
  void theNewNameWinsThenTheFirstOldOneSet() {
    Map<String, String> source = new HashMap<>();
    assertThat(SettingNames.spellingIn(source, "klat.export.queue-size", OLD)).isNull();
    source.put("klat.export.queue.size.old", "1");
    assertThat(SettingNames.spellingIn(source, "klat.export.queue-size", OLD))
        .isEqualTo("klat.export.queue.size.old");
    source.put("klat.export.queue.size", "2");
    assertThat(SettingNames.spellingIn(source, "klat.export.queue-size", OLD))
        .isEqualTo("klat.export.queue.size");
    source.put("klat.export.queue-size", "");
    assertThat(SettingNames.spellingIn(source, "klat.export.queue-size", OLD))
        .isEqualTo("klat.export.queue-size");
  }

  @Test
  void eachOldSpellingSetIsOneWarningNamingTheNewKey() {
    Properties source = new Properties();
    source.setProperty("klat.export.queue.size", "64");
    List<String> warnings = new ArrayList<>();
    SettingNames.addOldSpellingWarnings(
        source, "system property", "klat.export.queue-size", OLD, warnings);
    assertThat(warnings)
        .containsExactly(
            "klat.export.queue.size (system property) is deprecated: use klat.export.queue-size");

    source.setProperty("klat.export.queue-size", "32");
    warnings.clear();
    SettingNames.addOldSpellingWarnings(
        source, "system property", "klat.export.queue-size", OLD, warnings);
    assertThat(warnings)
        .containsExactly(
            "klat.export.queue.size (system property) is deprecated: use klat.export.queue-size;"
                + " klat.export.queue-size is set there too and wins");
  }
}

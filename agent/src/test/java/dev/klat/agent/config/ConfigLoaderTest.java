package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader on its own: sources in precedence order, and what it collects to log. */
class ConfigLoaderTest {

  @Test
  void everyDefaultParsesWithoutADiagnostic() throws Exception {
    ConfigLoader loader = new ConfigLoader(Collections.emptyMap(), Collections.emptyMap());
    loader.load();
    assertThat(loader.diagnostics).isEmpty();
    assertThat(loader.errors).isEmpty();
    assertThat(loader.metricsIntervalMillis).isEqualTo(10_000L);
    assertThat(loader.serviceName).isEqualTo(AgentConfig.FALLBACK_SERVICE_NAME);
  }

  @Test
  void everyDefaultIsAValidValueOfItsKeyEvenTheRegexesThatStartUpDoesNotCompile() {
    for (ConfigKey key : ConfigKey.values()) {
      if (key.setting.defaultValue() != null) {
        assertThatCode(() -> ConfigValues.parseRegex(key.setting.defaultValue()))
            .as(key.setting.key())
            .doesNotThrowAnyException();
        assertThatCode(() -> ConfigLoader.parse(key, key.setting.defaultValue()))
            .as(key.setting.key())
            .doesNotThrowAnyException();
      }
    }
  }

  @Test
  void systemPropertyBeatsEnvironmentWhichBeatsTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("klat.properties");
    Files.write(
        file,
        ("klat.sampling.probability=0.3\nklat.sampling.max-per-second=7\nklat.export.queue-size=9\n")
            .getBytes(StandardCharsets.UTF_8));
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.sampling.probability", "0.1");
    sys.put("klat.config.file", file.toString());
    Map<String, String> env = new HashMap<>();
    env.put("KLAT_SAMPLING_PROBABILITY", "0.2");
    env.put("KLAT_SAMPLING_MAX_PER_SECOND", "5");
    ConfigLoader loader = new ConfigLoader(sys, env);
    loader.load();
    assertThat(loader.samplingProbability).isEqualTo(0.1);
    assertThat(loader.samplingMaxPerSecond).isEqualTo(5.0);
    assertThat(loader.exportQueueSize).isEqualTo(9);
  }

  @Test
  void aBadValueIsAnErrorNamingKeyValueAndSourceAndTheDefaultStays() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("KLAT_EXPORT_QUEUE_SIZE", "lots");
    ConfigLoader loader = new ConfigLoader(Collections.emptyMap(), env);
    loader.load();
    assertThat(loader.errors)
        .singleElement()
        .asString()
        .contains(
            "\"lots\"", "klat.export.queue-size", "environment variable KLAT_EXPORT_QUEUE_SIZE");
    assertThat(loader.exportQueueSize).isEqualTo(2048);
  }

  @Test
  void longValuesAreCutInMessages() {
    StringBuilder value = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      value.append('x');
    }
    assertThat(ConfigLoader.printable(value.toString())).endsWith("...(300 chars)").hasSize(214);
  }
}

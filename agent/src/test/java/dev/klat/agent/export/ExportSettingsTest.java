package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.agent.config.AgentConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExportSettingsTest {

  @Test
  void hasTheDocumentedDefaults() {
    ExportSettings settings = ExportSettings.builder().build();
    assertThat(settings.endpoint()).isEqualTo("http://127.0.0.1:4318");
    assertThat(settings.serviceName()).isEqualTo(AgentConfig.FALLBACK_SERVICE_NAME);
    assertThat(settings.instanceId()).isNotZero();
    assertThat(settings.hostName()).isNull();
    assertThat(settings.metricsIntervalMillis()).isEqualTo(10_000);
    assertThat(settings.spanFlushIntervalMillis()).isEqualTo(1_000);
    assertThat(settings.spanQueueCapacity()).isEqualTo(2048);
    assertThat(settings.tailQueueCapacity()).isEqualTo(512);
    assertThat(settings.maxSpansPerRequest()).isEqualTo(512);
    assertThat(settings.maxMetricSeries()).isEqualTo(2000);
    assertThat(settings.gzip()).isTrue();
    assertThat(settings.connectTimeoutMillis()).isEqualTo(5_000);
    assertThat(settings.readTimeoutMillis()).isEqualTo(10_000);
    assertThat(settings.resourceAttributes()).isEmpty();
    assertThat(settings.headers()).isEmpty();
  }

  @Test
  void takesWhatTheAgentConfigurationSaysAboutExport() {
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.endpoint", "http://collector:4318/");
    sys.put("klat.service.name", "orders");
    sys.put("klat.metrics.interval", "2s");
    sys.put("klat.export.queue-size", "64");
    sys.put("klat.export.timeout", "250ms");
    sys.put("klat.export.gzip", "false");
    ExportSettings settings = ExportSettings.builder(AgentConfig.load(sys, null, null)).build();
    assertThat(settings.endpoint()).isEqualTo("http://collector:4318");
    assertThat(settings.serviceName()).isEqualTo("orders");
    assertThat(settings.metricsIntervalMillis()).isEqualTo(2_000);
    assertThat(settings.spanQueueCapacity()).isEqualTo(64);
    assertThat(settings.readTimeoutMillis()).isEqualTo(250);
    assertThat(settings.gzip()).isFalse();
    assertThat(settings.tailQueueCapacity()).isEqualTo(200);
  }

  @Test
  void theTailQueueHoldsTwoSecondsOfTheTailCapWithinItsCeiling() {
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.tail.max-per-second", "5000");
    ExportSettings settings = ExportSettings.builder(AgentConfig.load(sys, null, null)).build();
    assertThat(settings.tailQueueCapacity()).isEqualTo(10_000);
    assertThat(ExportSettings.tailQueueCapacity(2048, 0)).isEqualTo(512);
    assertThat(ExportSettings.tailQueueCapacity(2048, 100)).isEqualTo(512);
    assertThat(ExportSettings.tailQueueCapacity(1, 0)).isEqualTo(1);
    assertThat(ExportSettings.tailQueueCapacity(2048, 100_000))
        .isEqualTo(ExportSettings.MAX_TAIL_QUEUE_CAPACITY);
  }

  @Test
  void removesTrailingSlashesFromTheEndpoint() {
    assertThat(ExportSettings.builder().endpoint("https://collector:4318/otlp/").build().endpoint())
        .isEqualTo("https://collector:4318/otlp");
  }

  @Test
  void rejectsInvalidValuesAtOnce() {
    ExportSettings.Builder b = ExportSettings.builder();
    assertThatThrownBy(() -> b.endpoint(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.endpoint("collector:4318"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.endpoint("ftp://collector"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.endpoint("http://collector:4318/?x=1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.serviceName("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.metricsIntervalMillis(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.spanQueueCapacity(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.maxSpansPerRequest(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.connectTimeoutMillis(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.readTimeoutMillis(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.maxMetricSeries(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.header("X-A", "a\r\nX-B: b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.resourceAttribute("service.name", "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.resourceAttribute("klat.instance.id", "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.resourceAttribute("deployment.environment", null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

package dev.klat.agent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.MetricDef;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.cumulative.CumulativeTimer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerBridgeTest {

  private static final long MS = 1_000_000L;

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final AgentLog log =
      new AgentLog(
          AgentLog.Level.INFO, new PrintStream(logBytes, true, StandardCharsets.UTF_8), () -> 0L);

  @Test
  void aTimerHasTheModelsNameAndTagsAndPrometheusPrintsTheModelsPrometheusName() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Metrics.globalRegistry.add(prometheus);
    try {
      MicrometerBridge bridge = MicrometerBridge.forLoader(getClass().getClassLoader(), log);
      assertThat(bridge.available()).isTrue();
      MicrometerTimer timer = bridge.timer(MetricDef.PRODUCER_LATENCY, "bridge-topic", "bridge-c");

      // 10 ms and 5 ms; the third start is after the end, a negative duration, skipped.
      timer.recordAll(10 * MS, new long[] {0L, 5 * MS, 11 * MS}, 0, 3);
      timer.recordNanos(1 * MS, 3);

      Timer registered =
          prometheus
              .find("klat.producer.latency")
              .tags("topic", "bridge-topic", "client_id", "bridge-c")
              .timer();
      assertThat(registered).isNotNull();
      assertThat(registered.count()).isEqualTo(5);
      assertThat(registered.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(18.0);
      assertThat(registered.getId().getDescription())
          .isEqualTo(MetricDef.PRODUCER_LATENCY.description());
      String name = MetricDef.PRODUCER_LATENCY.prometheusName();
      assertThat(name).isEqualTo("klat_producer_latency_seconds");
      assertThat(prometheus.scrape())
          .contains(name + "_count{client_id=\"bridge-c\",topic=\"bridge-topic\"} 5")
          .contains(name + "_bucket{client_id=\"bridge-c\",topic=\"bridge-topic\",le=\"+Inf\"} 5");
    } finally {
      Metrics.globalRegistry.remove(prometheus);
    }
  }

  @Test
  void withoutMicrometerTheBridgeIsUnavailableSaysSoOnceAndNeverThrows() throws Exception {
    try (URLClassLoader noMicrometer = new URLClassLoader(new URL[0], null)) {
      MicrometerBridge bridge = MicrometerBridge.forLoader(noMicrometer, log);
      MicrometerBridge again = MicrometerBridge.forLoader(noMicrometer, log);

      assertThat(bridge.available()).isFalse();
      assertThat(again.available()).isFalse();
      assertThat(bridge.timer(MetricDef.E2E_LATENCY, "t", "g")).isNull();
      assertThat(log()).containsOnlyOnce(MicrometerBridge.METRICS_CLASS + " not found");
    }
  }

  @Test
  void aTimerThatThrowsMakesTheBridgeStepAsideAndSaySoOnce() {
    SimpleMeterRegistry throwing =
        new SimpleMeterRegistry() {
          @Override
          protected Timer newTimer(
              Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
            return new CumulativeTimer(
                id, Clock.SYSTEM, config, pauseDetector, TimeUnit.SECONDS, false) {
              @Override
              protected void recordNonNegative(long amount, TimeUnit unit) {
                throw new IllegalStateException("boom");
              }
            };
          }
        };
    Metrics.globalRegistry.add(throwing);
    try {
      MicrometerBridge bridge = MicrometerBridge.forLoader(getClass().getClassLoader(), log);
      MicrometerTimer timer = bridge.timer(MetricDef.E2E_LATENCY, "throwing-topic", "g");

      assertThatCode(() -> timer.recordNanos(MS)).doesNotThrowAnyException();
      assertThatCode(() -> timer.recordAll(2 * MS, new long[] {MS}, 0, 1))
          .doesNotThrowAnyException();

      assertThat(bridge.available()).isFalse();
      assertThat(bridge.timer(MetricDef.E2E_LATENCY, "throwing-topic-2", "g")).isNull();
      assertThat(log()).containsOnlyOnce("boom");
    } finally {
      Metrics.globalRegistry.remove(throwing);
    }
  }

  private String log() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }
}

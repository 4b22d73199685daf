package dev.klat.agent.micrometer;

import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.MetricDef;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What {@code klat.micrometer.enabled=true} adds per record and histogram: one {@link
 * MicrometerTimer} call into a Micrometer timer with a percentile histogram, registered in the
 * global registry with a Prometheus registry behind it (as Spring Boot Actuator has), beside klat's
 * own {@link LatencyHistogram} that every record pays anyway.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MicrometerTimerBenchmark {

  private final LatencyHistogram histogram = new LatencyHistogram();
  private MicrometerTimer timer;
  private long[] durations;
  private int next;

  @Setup
  public void setUp() {
    Metrics.addRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    MicrometerBridge bridge =
        MicrometerBridge.forLoader(getClass().getClassLoader(), AgentLog.global());
    timer = bridge.timer(MetricDef.PRODUCER_LATENCY, "bench-topic", "bench-client");
    if (timer == null) {
      throw new IllegalStateException("Micrometer is not usable here");
    }
    durations = new long[1024];
    long x = 12345;
    for (int i = 0; i < durations.length; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      durations[i] = 50_000L + ((x >>> 1) % 200_000_000L);
    }
  }

  @Benchmark
  public void klatHistogram() {
    histogram.recordNanos(durations[next++ & 1023]);
  }

  @Benchmark
  public void micrometerTimer() {
    timer.recordNanos(durations[next++ & 1023]);
  }
}

package dev.klat.agent;

import dev.klat.agent.config.AgentLog;
import dev.klat.agent.config.TopicFilter;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import dev.klat.agent.export.TimeSource;
import java.util.regex.Pattern;

/** Installs an {@link AgentRuntime} for in-process tests of the hooks, exporting nowhere. */
public final class TestRuntime {

  private TestRuntime() {}

  /** Installs a runtime on the system clocks whose exporter points at a closed port; returns it. */
  public static AgentRuntime install() {
    return install(TimeSource.SYSTEM);
  }

  /** Installs a runtime on {@code time} whose exporter points at a closed port; returns it. */
  public static AgentRuntime install(TimeSource time) {
    return install(0.0, 0.0, time);
  }

  /**
   * Installs a runtime that samples like {@code klat.sampling.probability} and {@code
   * klat.sampling.max-per-second}, on {@code time}, exporting to a closed port; returns it. The
   * benchmarks use it too.
   */
  public static AgentRuntime install(
      double samplingProbability, double maxSampledPerSecond, TimeSource time) {
    Telemetry telemetry =
        Telemetry.start(
            ExportSettings.builder()
                .endpoint("http://127.0.0.1:9")
                .serviceName("test")
                .instanceId(7L)
                .metricsIntervalMillis(600_000)
                .build(),
            message -> {});
    AgentRuntime runtime =
        new AgentRuntime(
            7L,
            samplingProbability,
            maxSampledPerSecond,
            true,
            new TopicFilter(Pattern.compile(".*"), Pattern.compile("__.*")),
            AgentLog.global(),
            telemetry,
            time);
    AgentRuntime.set(runtime);
    return runtime;
  }

  /** Removes the runtime, so that hooks do nothing again. */
  public static void uninstall() {
    AgentRuntime.set(null);
  }
}

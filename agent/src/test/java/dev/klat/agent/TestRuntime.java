package dev.klat.agent;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import java.util.HashMap;
import java.util.Map;

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
    return install(samplingProbability, maxSampledPerSecond, time, new HashMap<>());
  }

  /** Installs a runtime on {@code time} with more {@code klat.*} settings; returns it. */
  public static AgentRuntime install(TimeSource time, Map<String, String> settings) {
    return install(0.0, 0.0, time, settings);
  }

  /**
   * Installs a runtime on {@code time} with more {@code klat.*} settings that exports its spans to
   * {@code endpoint} every 100 ms; returns it.
   */
  public static AgentRuntime install(
      TimeSource time, Map<String, String> settings, String endpoint) {
    return install(0.0, 0.0, time, settings, endpoint);
  }

  private static AgentRuntime install(
      double samplingProbability,
      double maxSampledPerSecond,
      TimeSource time,
      Map<String, String> settings) {
    return install(samplingProbability, maxSampledPerSecond, time, settings, "http://127.0.0.1:9");
  }

  private static AgentRuntime install(
      double samplingProbability,
      double maxSampledPerSecond,
      TimeSource time,
      Map<String, String> settings,
      String endpoint) {
    Telemetry telemetry =
        Telemetry.start(
            ExportSettings.builder()
                .endpoint(endpoint)
                .serviceName("test")
                .instanceId(7L)
                .spanFlushIntervalMillis(100)
                .metricsIntervalMillis(600_000)
                .build(),
            message -> {});
    Map<String, String> properties = new HashMap<>();
    properties.put("klat.sampling.probability", Double.toString(samplingProbability));
    properties.put("klat.sampling.max-per-second", Double.toString(maxSampledPerSecond));
    properties.putAll(settings);
    AgentConfig config = AgentConfig.load(properties, null, AgentLog.global());
    AgentRuntime runtime = new AgentRuntime(7L, config, AgentLog.global(), telemetry, time);
    AgentRuntime.set(runtime);
    return runtime;
  }

  /** Makes {@code runtime}, installed before, the one the hooks see again. */
  public static void reinstall(AgentRuntime runtime) {
    AgentRuntime.set(runtime);
  }

  /** Removes the runtime, so that hooks do nothing again. */
  public static void uninstall() {
    AgentRuntime.set(null);
  }
}

package dev.klat.agent;

import dev.klat.agent.config.AgentLog;
import dev.klat.agent.config.TopicFilter;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import java.util.regex.Pattern;

/**
 * Installs an {@link AgentRuntime} for the hook benchmarks, as the agent's own tests do, exporting
 * to a closed port. In the agent's package because the runtime's constructor is package-private.
 */
public final class BenchRuntime {

  private BenchRuntime() {}

  /**
   * Installs a runtime with the given sampling settings and returns it.
   *
   * @param samplingProbability as {@code klat.sampling.probability}
   * @param maxSampledPerSecond as {@code klat.sampling.max-per-second}
   */
  public static AgentRuntime install(double samplingProbability, double maxSampledPerSecond) {
    Telemetry telemetry =
        Telemetry.start(
            ExportSettings.builder()
                .endpoint("http://127.0.0.1:9")
                .serviceName("bench")
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
            telemetry);
    AgentRuntime.set(runtime);
    return runtime;
  }

  /** Removes the runtime, so that hooks do nothing again. */
  public static void uninstall() {
    AgentRuntime.set(null);
  }
}

package dev.klat.agent;

import dev.klat.agent.config.AgentLog;
import dev.klat.agent.config.TopicFilter;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import java.util.regex.Pattern;

/** Installs an {@link AgentRuntime} for in-process tests of the hooks, exporting nowhere. */
public final class TestRuntime {

  private TestRuntime() {}

  /** Installs a runtime whose exporter points at a closed port; returns it. */
  public static AgentRuntime install() {
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
            0.0,
            0.0,
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

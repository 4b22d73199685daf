package dev.klat.agent;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.export.ExportLog;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import java.util.concurrent.TimeUnit;

/**
 * Starts the exporter and publishes the {@link AgentRuntime} when the first kafka-clients class
 * that klat weaves loads, on that class's loading thread, rather than in {@code premain}: an
 * application start pays for the exporter's classes and thread only if it uses Kafka, and then
 * after its {@code main} began. It runs before the class is woven, so no hook ever runs without a
 * runtime. A failure is the same line {@code premain} would print, and no class is woven.
 */
final class RuntimeStarter {

  private static final long SHUTDOWN_FLUSH_MILLIS = 1000;

  private final AgentConfig config;
  private final long instanceId;
  private final AgentLog log;

  // Guarded by this.
  private boolean attempted;
  private boolean started;

  RuntimeStarter(AgentConfig config, long instanceId, AgentLog log) {
    this.config = config;
    this.instanceId = instanceId;
    this.log = log;
  }

  /** Starts the runtime the first time; whether it runs. Called once per woven class. */
  synchronized boolean started() {
    if (!attempted) {
      attempted = true;
      long startNanos = System.nanoTime();
      try {
        Telemetry telemetry =
            Telemetry.start(
                ExportSettings.builder(config).instanceId(instanceId).build(),
                new ThrottledExportLog(log));
        AgentRuntime.set(new AgentRuntime(instanceId, config, log, telemetry, TimeSource.SYSTEM));
        installShutdownFlush(telemetry);
        started = true;
        log.debug(
            "exporter started in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)
                + " ms, as the first kafka-clients class loads");
      } catch (Throwable t) {
        AgentRuntime.set(null);
        log.error("klat agent failed to start; the application runs without it: " + t);
      }
    }
    return started;
  }

  private static void installShutdownFlush(Telemetry telemetry) {
    Thread flush = new Thread(new ShutdownFlush(telemetry), "klat-shutdown-flush");
    flush.setDaemon(true);
    Runtime.getRuntime().addShutdownHook(flush);
  }

  private static final class ShutdownFlush implements Runnable {
    private final Telemetry telemetry;

    ShutdownFlush(Telemetry telemetry) {
      this.telemetry = telemetry;
    }

    @Override
    public void run() {
      telemetry.shutdown(SHUTDOWN_FLUSH_MILLIS);
    }
  }

  /** The exporter's warnings, at most once a minute each, as the agent's log says them. */
  private static final class ThrottledExportLog implements ExportLog {
    private final AgentLog log;

    ThrottledExportLog(AgentLog log) {
      this.log = log;
    }

    @Override
    public void warn(String message) {
      log.warnThrottled("export", message);
    }

    @Override
    public void warnOnce(String key, String message) {
      log.warnOnce(key, message);
    }
  }
}

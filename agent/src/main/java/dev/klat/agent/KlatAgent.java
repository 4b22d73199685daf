package dev.klat.agent;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.config.AgentLog;
import dev.klat.agent.consumer.ConsumerInstrumentation;
import dev.klat.agent.export.ExportSettings;
import dev.klat.agent.export.Telemetry;
import dev.klat.agent.export.TimeSource;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.producer.ProducerInstrumentation;
import dev.klat.agent.weave.ClassPlan;
import dev.klat.agent.weave.HelperInjector;
import dev.klat.agent.weave.KlatTransformer;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code -javaagent} entry point ({@code Premain-Class} and {@code Agent-Class}).
 *
 * <p>Starting never stops the application: every failure is one line on stderr and the application
 * runs without klat. With {@code klat.enabled=false} or an invalid configuration no class is
 * transformed at all.
 */
public final class KlatAgent {

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /**
   * Set once the agent runs, to its instance id: {@code klat attach} reads it to refuse a second
   * attach.
   */
  public static final String RUNNING_PROPERTY = "klat.agent.running";

  private static final long SHUTDOWN_FLUSH_MILLIS = 1000;

  private KlatAgent() {}

  /** Called by the JVM before {@code main} for {@code -javaagent:klat-agent.jar}. */
  public static void premain(String arguments, Instrumentation instrumentation) {
    start(instrumentation, false);
  }

  /**
   * Called when the agent is attached to a running JVM ({@code klat attach PID}, {@code jcmd PID
   * JVMTI.agent_load}): {@code arguments} may carry settings, {@code klat.key=value} separated by
   * commas, which apply as the JVM's system properties would.
   */
  public static void agentmain(String arguments, Instrumentation instrumentation) {
    try {
      AttachArguments.applyAsSystemProperties(arguments);
    } catch (Throwable t) {
      AgentLog.global().error("klat agent not started: " + t.getMessage());
      return;
    }
    start(instrumentation, true);
  }

  private static void start(Instrumentation instrumentation, boolean attachedLate) {
    long startNanos = System.nanoTime();
    AgentLog log = AgentLog.global();
    try {
      if (!STARTED.compareAndSet(false, true)) {
        log.warn("klat agent is already running in this JVM; the second attach is ignored");
        return;
      }
      // Loading sets the log level and reports every unknown key and bad value itself.
      AgentConfig config = AgentConfig.loadFromSystem(log);
      if (config.status() == AgentConfig.Status.INVALID) {
        return;
      }
      if (config.status() == AgentConfig.Status.DISABLED) {
        log.info("klat agent disabled by klat.enabled=false: no class is transformed");
        return;
      }
      log.debug("configuration loaded after " + millisSince(startNanos) + " ms");
      if (config.testClockOffsetMillis() != 0) {
        WallClock.setTestOffsetNanos(TimeUnit.MILLISECONDS.toNanos(config.testClockOffsetMillis()));
        log.warn(
            "klat.test.clock-offset="
                + config.testClockOffsetMillis()
                + "ms: every instant this agent reports is shifted on purpose (tests only)");
      }
      long instanceId = TraceIds.randomNonZeroLong();
      final AgentLog exportLog = log;
      Telemetry telemetry =
          Telemetry.start(
              exportSettings(config, instanceId),
              message -> exportLog.warnThrottled("export", message));
      AgentRuntime.set(new AgentRuntime(instanceId, config, log, telemetry, TimeSource.SYSTEM));
      installShutdownFlush(telemetry);
      log.debug("exporter started after " + millisSince(startNanos) + " ms");

      // Start-up cost matters (every application start pays it): declaring the plans loads a few
      // small classes, and the weaver itself loads only when a kafka-clients class is.
      final AgentLog transformLog = log;
      List<ClassPlan> plans = new ArrayList<ClassPlan>(ProducerInstrumentation.plans());
      plans.addAll(ConsumerInstrumentation.plans());
      HelperInjector injector =
          new HelperInjector(
              instrumentation,
              Arrays.asList("dev/klat/agent/producer/", "dev/klat/agent/consumer/"));
      ClientVersionCheck versionCheck = new ClientVersionCheck(log);
      KlatTransformer transformer =
          new KlatTransformer(
              plans,
              loader ->
                  versionCheck.supported(loader) && hooksReachable(loader, injector, transformLog),
              log);
      // Attached to a running JVM, the transformer must also weave the classes already loaded.
      instrumentation.addTransformer(transformer, attachedLate);
      log.debug("transformer installed after " + millisSince(startNanos) + " ms");
      if (attachedLate) {
        LoadedClients.retransform(instrumentation, plans, log);
      }
      System.setProperty(RUNNING_PROPERTY, Long.toHexString(instanceId));
      log.info("klat agent started in " + millisSince(startNanos) + " ms: " + config.describe());
    } catch (Throwable t) {
      AgentRuntime.set(null);
      log.error("klat agent failed to start; the application runs without it: " + t);
    }
  }

  /**
   * Whether woven code in {@code loader} will find hooks linked against its kafka-clients: the
   * agent's own when they are, else copies defined in the loader itself.
   */
  private static boolean hooksReachable(ClassLoader loader, HelperInjector injector, AgentLog log) {
    if (ProducerInstrumentation.helpersCanLink(loader)) {
      return true;
    }
    try {
      HelperInjector.Outcome outcome = injector.inject(loader);
      if (outcome == HelperInjector.Outcome.INJECTED) {
        log.info(
            "kafka-clients in class loader "
                + loader
                + " is not the one the agent's loader sees (a Spring Boot executable jar, an"
                + " application server): klat's hooks were defined in that class loader");
      }
      return outcome != HelperInjector.Outcome.FAILED_BEFORE;
    } catch (Throwable t) {
      log.warnOnce(
          "helpers-cannot-link-" + System.identityHashCode(loader),
          "kafka-clients in class loader "
              + loader
              + " is not visible to the klat agent and its hooks cannot be placed there ("
              + t
              + "): its producers and consumers are not instrumented");
      return false;
    }
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static ExportSettings exportSettings(AgentConfig config, long instanceId) {
    return ExportSettings.builder(config).instanceId(instanceId).build();
  }

  private static void installShutdownFlush(final Telemetry telemetry) {
    Thread flush =
        new Thread(() -> telemetry.shutdown(SHUTDOWN_FLUSH_MILLIS), "klat-shutdown-flush");
    flush.setDaemon(true);
    Runtime.getRuntime().addShutdownHook(flush);
  }
}

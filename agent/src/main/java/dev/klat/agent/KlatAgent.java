package dev.klat.agent;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.consumer.ConsumerInstrumentation;
import dev.klat.agent.consumer.ShareConsumerInstrumentation;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.producer.ProducerInstrumentation;
import dev.klat.agent.weave.HelperInjector;
import dev.klat.agent.weave.KlatTransformer;
import dev.klat.agentcore.clock.WallClock;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
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

      // Start-up cost matters (every application start pays it, before its main): the exporter,
      // the hook plans and the weaver are made when the first kafka-clients class loads, and
      // nothing here is a lambda (each would be a class generated at start).
      ClientLoaders loaders =
          new ClientLoaders(new RuntimeStarter(config, instanceId, log), instrumentation, log);
      KlatTransformer transformer = new KlatTransformer(new HookPlans(), loaders, log);
      // Attached to a running JVM, the transformer must also weave the classes already loaded.
      instrumentation.addTransformer(transformer, attachedLate);
      log.debug("transformer installed after " + millisSince(startNanos) + " ms");
      if (attachedLate) {
        LoadedClients.retransform(instrumentation, new HookPlans().plans(), log);
      }
      System.setProperty(RUNNING_PROPERTY, Long.toHexString(instanceId));
      log.info("klat agent started in " + millisSince(startNanos) + " ms: " + config.describe());
    } catch (Throwable t) {
      AgentRuntime.set(null);
      log.error("klat agent failed to start; the application runs without it: " + t);
    }
  }

  /** The producer's and the consumer's hooks. */
  private static final class HookPlans implements KlatTransformer.PlanSource {
    @Override
    public List<ClassPlan> plans() {
      List<ClassPlan> plans = new ArrayList<ClassPlan>(ProducerInstrumentation.plans());
      plans.addAll(ConsumerInstrumentation.plans());
      plans.addAll(ShareConsumerInstrumentation.plans());
      return plans;
    }
  }

  /**
   * Admits a class loader's kafka-clients classes to weaving: starts the runtime (first time only),
   * then checks the client version and that the hooks can link there.
   */
  private static final class ClientLoaders implements KlatTransformer.LinkCheck {
    private final RuntimeStarter runtime;
    private final Instrumentation instrumentation;
    private final AgentLog log;
    // Made with the runtime, when the first kafka-clients class loads: not premain's to pay.
    private ClientVersionCheck versionCheck;
    private HelperInjector injector;

    ClientLoaders(RuntimeStarter runtime, Instrumentation instrumentation, AgentLog log) {
      this.runtime = runtime;
      this.instrumentation = instrumentation;
      this.log = log;
    }

    @Override
    public boolean helpersCanLink(ClassLoader loader) {
      if (!runtime.started()) {
        return false;
      }
      ClientVersionCheck check;
      HelperInjector inject;
      synchronized (this) {
        if (versionCheck == null) {
          versionCheck = new ClientVersionCheck(log);
          injector =
              new HelperInjector(
                  instrumentation,
                  Arrays.asList("dev/klat/agent/producer/", "dev/klat/agent/consumer/"));
        }
        check = versionCheck;
        inject = injector;
      }
      return check.supported(loader) && hooksReachable(loader, inject, log);
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
}

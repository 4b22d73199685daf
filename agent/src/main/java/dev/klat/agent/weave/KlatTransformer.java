package dev.klat.agent.weave;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.StateHolder;
import dev.klat.agentcore.weave.Weaver;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's only {@link ClassFileTransformer}. Every class the JVM loads passes through {@link
 * #transform}, so a class outside kafka-clients costs one {@code startsWith} and nothing else.
 *
 * <p>With {@code -javaagent} it is registered as unable to retransform: classes are woven as they
 * load, with their {@link StateHolder} field, and the JVM keeps that weaving through other agents'
 * retransformations. Attached to a running JVM, it is registered as able to retransform, so that
 * classes already loaded can be woven too: a retransformation may not add a field or an interface,
 * so those get their hooks only and {@link States} keeps their instances' state; a class that got
 * its field when it loaded gets the same field again, as every retransformation must keep it.
 */
public final class KlatTransformer implements ClassFileTransformer {

  private static final String KAFKA_CLIENTS_PREFIX = "org/apache/kafka/clients/";

  private final PlanSource planSource;
  private final LinkCheck linkCheck;
  private final AgentLog log;
  // Built from planSource when the first kafka-clients class loads; never changed after.
  private volatile Map<String, ClassPlan> plansByInternalName;

  /** Decides whether hooks woven into classes of a class loader can reach the agent's helpers. */
  public interface LinkCheck {
    boolean helpersCanLink(ClassLoader applicationLoader);
  }

  /**
   * Declares the plans when the first kafka-clients class loads rather than when the agent starts:
   * an application pays for building them, and the classes they load, only if it uses Kafka.
   */
  public interface PlanSource {
    List<ClassPlan> plans();
  }

  public KlatTransformer(List<ClassPlan> plans, LinkCheck linkCheck, AgentLog log) {
    this(new FixedPlans(plans), linkCheck, log);
    plansByInternalName();
  }

  public KlatTransformer(PlanSource plans, LinkCheck linkCheck, AgentLog log) {
    this.planSource = plans;
    this.linkCheck = linkCheck;
    this.log = log;
  }

  private Map<String, ClassPlan> plansByInternalName() {
    Map<String, ClassPlan> byName = plansByInternalName;
    if (byName != null) {
      return byName;
    }
    synchronized (this) {
      if (plansByInternalName == null) {
        Map<String, ClassPlan> built = new HashMap<String, ClassPlan>();
        for (ClassPlan plan : planSource.plans()) {
          if (!plan.internalName().startsWith(KAFKA_CLIENTS_PREFIX)) {
            throw new IllegalArgumentException(plan.internalName() + " is outside kafka-clients");
          }
          if (built.put(plan.internalName(), plan) != null) {
            throw new IllegalArgumentException("two plans for " + plan.internalName());
          }
        }
        plansByInternalName = built;
      }
      return plansByInternalName;
    }
  }

  @Override
  public byte[] transform(
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classFile) {
    if (className == null || !className.startsWith(KAFKA_CLIENTS_PREFIX)) {
      return null;
    }
    ClassPlan plan;
    try {
      plan = plansByInternalName().get(className);
    } catch (Throwable t) {
      log.warnOnce("plans", "klat's hooks are not declared, nothing is instrumented: " + t);
      return null;
    }
    if (plan == null) {
      return null;
    }
    try {
      if (!linkCheck.helpersCanLink(loader)) {
        return null;
      }
      boolean mayAddState =
          classBeingRedefined == null || StateHolder.class.isAssignableFrom(classBeingRedefined);
      Weaver.Result result = Weaver.weave(classFile, plan, mayAddState);
      for (String skipped : result.skipped) {
        log.warnOnce(
            "missing-hook-" + skipped,
            "kafka-clients "
                + className.replace('/', '.')
                + ": hook skipped, the rest of the agent still works: "
                + skipped);
      }
      if (result.bytes != null) {
        log.debug("instrumented " + className.replace('/', '.'));
      }
      return result.bytes;
    } catch (Throwable t) {
      // Returning null leaves the class exactly as it was: the application loses klat, not Kafka.
      log.warnOnce(
          "transform-" + className,
          "could not instrument " + className.replace('/', '.') + " (its hooks are skipped): " + t);
      return null;
    }
  }

  private static final class FixedPlans implements PlanSource {
    private final List<ClassPlan> plans;

    FixedPlans(List<ClassPlan> plans) {
      this.plans = plans;
    }

    @Override
    public List<ClassPlan> plans() {
      return plans;
    }
  }
}

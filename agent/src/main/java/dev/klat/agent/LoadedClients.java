package dev.klat.agent;

import dev.klat.agent.config.AgentLog;
import dev.klat.agent.weave.ClassPlan;
import java.lang.instrument.Instrumentation;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * When the agent is attached to a running JVM: weaves the kafka-clients classes that were loaded
 * before it, so that the producers and consumers already running are instrumented from their next
 * record on. Each class is retransformed on its own, so that one the JVM refuses (or one that
 * fails) leaves the others woven.
 */
final class LoadedClients {

  private LoadedClients() {}

  static void retransform(Instrumentation instrumentation, List<ClassPlan> plans, AgentLog log) {
    Set<String> planned = new HashSet<String>();
    for (ClassPlan plan : plans) {
      planned.add(plan.internalName().replace('/', '.'));
    }
    int woven = 0;
    for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
      if (!planned.contains(loaded.getName())) {
        continue;
      }
      if (!instrumentation.isModifiableClass(loaded)) {
        log.warn("kafka-clients class " + loaded.getName() + " cannot be retransformed: skipped");
        continue;
      }
      try {
        instrumentation.retransformClasses(loaded);
        woven++;
      } catch (Throwable t) {
        log.warn(
            "could not instrument the loaded kafka-clients class "
                + loaded.getName()
                + " (its clients stay as they are): "
                + t);
      }
    }
    if (woven > 0) {
      log.info(
          "attached to a running JVM: "
              + woven
              + " kafka-clients classes already loaded were instrumented; their clients are"
              + " measured from their next record on");
    }
  }
}

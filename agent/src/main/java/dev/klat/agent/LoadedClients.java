package dev.klat.agent;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * When the agent is attached to a running JVM: weaves the kafka-clients classes that were loaded
 * before it, so that the producers and consumers already running are instrumented from their next
 * record on. All of them are retransformed in one call, which the JVM applies at once, so that no
 * record meets a woven {@code send()} and an unwoven batch; if the JVM refuses that, each class is
 * retransformed on its own, so that one it refuses leaves the others woven.
 */
final class LoadedClients {

  private LoadedClients() {}

  static void retransform(Instrumentation instrumentation, List<ClassPlan> plans, AgentLog log) {
    Set<String> planned = new HashSet<String>();
    for (ClassPlan plan : plans) {
      planned.add(plan.internalName().replace('/', '.'));
    }
    List<Class<?>> loaded = new ArrayList<Class<?>>();
    for (Class<?> candidate : instrumentation.getAllLoadedClasses()) {
      if (!planned.contains(candidate.getName())) {
        continue;
      }
      if (instrumentation.isModifiableClass(candidate)) {
        loaded.add(candidate);
      } else {
        log.warn(
            "kafka-clients class " + candidate.getName() + " cannot be retransformed: skipped");
      }
    }
    if (loaded.isEmpty()) {
      return;
    }
    int woven;
    try {
      instrumentation.retransformClasses(loaded.toArray(new Class<?>[0]));
      woven = loaded.size();
    } catch (Throwable all) {
      woven = oneByOne(instrumentation, loaded, log);
    }
    if (woven > 0) {
      log.info(
          "attached to a running JVM: "
              + woven
              + " kafka-clients classes already loaded were instrumented; their clients are"
              + " measured from their next record on");
    }
  }

  private static int oneByOne(
      Instrumentation instrumentation, List<Class<?>> loaded, AgentLog log) {
    int woven = 0;
    for (Class<?> type : loaded) {
      try {
        instrumentation.retransformClasses(type);
        woven++;
      } catch (Throwable t) {
        log.warn(
            "could not instrument the loaded kafka-clients class "
                + type.getName()
                + " (its clients stay as they are): "
                + t);
      }
    }
    return woven;
  }
}

package dev.klat.demo;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that runs one demo application under the klat agent: the demo's and the
 * dashboards' end-to-end test start their producers and consumers the same way.
 */
public final class AgentCommand {
  private AgentCommand() {}

  /** {@code java} of this JVM with the agent attached, sending to {@code endpoint}. */
  public static List<String> of(
      Path agentJar,
      String endpoint,
      String serviceName,
      String classPath,
      String mainClass,
      List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-javaagent:" + agentJar);
    command.add("-Dklat.endpoint=" + endpoint);
    command.add("-Dklat.service.name=" + serviceName);
    // Enough sampled records for a tail of a few hundred breakdowns per scenario.
    command.add("-Dklat.sampling.probability=0.25");
    command.add("-Dklat.metrics.interval=5s");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(args);
    return command;
  }
}

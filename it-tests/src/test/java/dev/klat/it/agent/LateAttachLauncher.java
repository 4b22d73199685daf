package dev.klat.it.agent;

import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Starts without the agent, waits until the test has attached it, then runs {@link ProducerApp}.
 * The application is reached by reflection so that no kafka-clients class loads before the agent is
 * there. Usage: {@code LateAttachLauncher <markerFile> <ProducerApp arguments...>}.
 */
public final class LateAttachLauncher {

  private LateAttachLauncher() {}

  public static void main(String[] args) throws Exception {
    System.out.println("PHASE=waiting-for-agent");
    while (!Files.exists(Paths.get(args[0]))) {
      Thread.sleep(20);
    }
    String[] appArgs = new String[args.length - 1];
    System.arraycopy(args, 1, appArgs, 0, appArgs.length);
    Class.forName("dev.klat.it.agent.ProducerApp")
        .getMethod("main", String[].class)
        .invoke(null, (Object) appArgs);
  }
}

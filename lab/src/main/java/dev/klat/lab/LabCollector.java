package dev.klat.lab;

import dev.klat.demo.AdminClient;
import dev.klat.demo.BreakdownRow;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The collector the lab starts for itself, on ports the kernel picked free (never a collector the
 * user runs, whose figures would mix with the lab's), and what the lab asks it.
 */
final class LabCollector implements AutoCloseable {

  final int otlpPort;
  final int adminPort;
  private Process process;

  /** Picks the two ports; {@link #start} listens on them. */
  LabCollector() throws IOException {
    otlpPort = freePort();
    adminPort = freePort();
  }

  String endpoint() {
    return "http://127.0.0.1:" + otlpPort;
  }

  /**
   * What the collector reads the brokers' request metrics from: the embedded brokers' exporters by
   * list, or the user's brokers discovered through {@code bootstrap} with the exporter or JMX port
   * every broker has; none without either.
   *
   * @param exporters the embedded brokers as {@code --brokers.exporter} wants them, or empty
   * @param exporterPort {@code --broker-exporter-port}, or null
   * @param jmxPort {@code --broker-jmx-port}, or null
   * @param commandConfig {@code --command-config}, which discovery then uses too, or null
   */
  static List<String> brokerArguments(
      String exporters,
      String bootstrap,
      Integer exporterPort,
      Integer jmxPort,
      Path commandConfig) {
    List<String> args = new ArrayList<>();
    if (!exporters.isEmpty()) {
      args.add("--brokers.exporter=" + exporters);
    } else if (exporterPort != null || jmxPort != null) {
      args.add("--brokers.bootstrap=" + bootstrap);
      if (exporterPort != null) {
        args.add("--brokers.exporter-port=" + exporterPort);
      }
      if (jmxPort != null) {
        args.add("--brokers.jmx-port=" + jmxPort);
      }
      if (commandConfig != null) {
        // The same listener and client settings as the lab's own clients.
        args.add("--brokers.kafka-config=" + commandConfig.toAbsolutePath());
      }
    }
    if (!args.isEmpty()) {
      // The lab's windows are seconds long: the estimates need intervals shorter than that.
      args.add("--brokers.scrape-interval=2s");
    }
    return args;
  }

  /** The collector's command line, with {@link #brokerArguments}. */
  List<String> command(Path jar, List<String> brokerArguments) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-jar");
    command.add(jar.toString());
    command.add("--otlp.http.port=" + otlpPort);
    command.add("--admin.port=" + adminPort);
    command.add("--otlp.grpc.enabled=false");
    // Bounded memory: a few settings' worth of breakdowns is all the lab reads.
    command.add("--api.recent-breakdowns=50000");
    command.addAll(brokerArguments);
    return command;
  }

  /** Starts the collector jar; it reads the brokers' request metrics as the arguments say. */
  void start(Path jar, List<String> brokerArguments, Path log) throws Exception {
    List<String> command = command(jar, brokerArguments);
    process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (AdminClient.get(adminPort, "/healthz") != null && process.isAlive()) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new LabException(
            (process.isAlive() ? "the collector did not answer in 60 s" : "the collector exited")
                + "; see "
                + log);
      }
      Thread.sleep(200);
    }
  }

  /** The breakdown of {@code topic} and {@code group} over the last {@code windowMs}. */
  BreakdownRow breakdown(String topic, String group, long windowMs) throws IOException {
    String answer =
        AdminClient.get(
            adminPort,
            "/api/breakdown?topic="
                + URLEncoder.encode(topic, StandardCharsets.UTF_8)
                + "&group="
                + URLEncoder.encode(group, StandardCharsets.UTF_8)
                + "&window="
                + windowMs
                + "ms");
    if (answer == null) {
      throw new IOException("the collector did not answer /api/breakdown with 200");
    }
    return BreakdownRow.parse(topic, group, answer);
  }

  @Override
  public void close() {
    if (process != null) {
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  // Port 0: the kernel's pick, outside the ports other tools on this machine keep for themselves.
  private static int freePort() {
    return dev.klat.kafka.cluster.LoopbackPorts.free();
  }
}

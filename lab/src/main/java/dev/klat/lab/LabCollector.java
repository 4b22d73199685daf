package dev.klat.lab;

import dev.klat.demo.AdminClient;
import dev.klat.demo.BreakdownRow;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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

  /** Starts the collector jar, reading the brokers' request metrics from {@code exporters}. */
  void start(Path jar, String exporters, Path log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-jar");
    command.add(jar.toString());
    command.add("--otlp.http.port=" + otlpPort);
    command.add("--admin.port=" + adminPort);
    command.add("--otlp.grpc.enabled=false");
    // Bounded memory: a few settings' worth of breakdowns is all the lab reads.
    command.add("--api.recent.breakdowns=50000");
    if (!exporters.isEmpty()) {
      command.add("--brokers.exporter=" + exporters);
      command.add("--brokers.scrape.interval=2s");
    }
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
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}

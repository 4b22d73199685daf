package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** One broker JVM: its configuration, process and signals. */
final class ProcessBroker implements Broker {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final ProcessKafkaCluster cluster;
  private final int nodeId;
  private final Path directory;
  private final Path configFile;
  private final Path logFile;
  private final InetSocketAddress clientAddress;
  private final InetSocketAddress secondClientAddress;
  private final ProcessKafkaCluster.BrokerPorts ports;
  private final KafkaDistribution distribution;
  private final Path exporterRules;
  private volatile Process process;

  ProcessBroker(
      ProcessKafkaCluster cluster,
      int nodeId,
      Path directory,
      Properties properties,
      InetSocketAddress clientAddress,
      InetSocketAddress secondClientAddress,
      ProcessKafkaCluster.BrokerPorts ports,
      KafkaDistribution distribution,
      Path exporterRules) {
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.directory = directory;
    this.configFile = directory.resolve("server.properties");
    this.logFile = directory.resolve("broker.log");
    this.clientAddress = clientAddress;
    this.secondClientAddress = secondClientAddress;
    this.ports = ports;
    this.distribution = distribution;
    this.exporterRules = exporterRules;
    try {
      Files.createDirectories(directory);
      try (OutputStream out = Files.newOutputStream(configFile)) {
        properties.store(out, "klat test broker " + nodeId);
      }
      Files.writeString(directory.resolve("log4j2.properties"), LOG4J2_CONFIG);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the configuration of broker " + nodeId, e);
    }
  }

  /** Starts {@code kafka.tools.StorageTool format} for this broker's log directory. */
  Process startFormat(String clusterId) {
    List<String> command = javaCommand();
    // A tool that runs for a few seconds: C2's compiler threads and G1's only slow it down, most of
    // all three at once on two cores (a 3-broker cluster formats in parallel). Measured on CI's
    // machine under load: 5.7-7.8 s with the defaults, 2.2-3.2 s with these. The broker JVM keeps
    // its own settings (launch()).
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("kafka.tools.StorageTool");
    command.add("format");
    command.add("--cluster-id");
    command.add(clusterId);
    command.add("--config");
    command.add(configFile.toString());
    command.add("--ignore-formatted");
    command.addAll(cluster.formatArguments());
    return spawn(command);
  }

  void launch() {
    List<String> command = javaCommand();
    command.add("-Xms128m");
    command.add("-Xmx" + cluster.spec().brokerHeapMb() + "m");
    // Kafka's own start-script GC settings, so that latency looks the way it does in production.
    command.add("-XX:+UseG1GC");
    command.add("-XX:MaxGCPauseMillis=20");
    command.add("-XX:InitiatingHeapOccupancyPercent=35");
    command.add("-XX:+ExplicitGCInvokesConcurrent");
    command.add("-XX:+ExitOnOutOfMemoryError");
    // C1 only: with C2, each broker's compiler threads still took 13-24% of a core 75 s after start
    // (top -H, three brokers on two cores), enough to put hundreds of ms into the tests' p99.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Djava.awt.headless=true");
    command.add("-Dcom.sun.management.jmxremote");
    command.add("-Dcom.sun.management.jmxremote.port=" + ports.jmx());
    command.add("-Dcom.sun.management.jmxremote.rmi.port=" + ports.jmx());
    command.add("-Dcom.sun.management.jmxremote.host=" + LoopbackPorts.LOOPBACK);
    command.add("-Djava.rmi.server.hostname=" + LoopbackPorts.LOOPBACK);
    command.addAll(ClusterSecurity.jmxOptions(cluster.spec(), directory));
    command.add(
        "-javaagent:"
            + distribution.jmxExporterAgent
            + "="
            + LoopbackPorts.LOOPBACK
            + ":"
            + ports.metrics()
            + ":"
            + exporterRules);
    command.addAll(cluster.spec().brokerJvmOptions());
    command.add("kafka.Kafka");
    command.add(configFile.toString());
    process = spawn(command);
  }

  private List<String> javaCommand() {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(distribution.brokerClasspath);
    command.add("-Dlog4j2.configurationFile=" + directory.resolve("log4j2.properties"));
    return command;
  }

  private Process spawn(List<String> command) {
    try {
      Files.writeString(
          logFile,
          "\n===== klat: starting "
              // The SCRAM users' passwords stay out of the log.
              + String.join(" ", command.subList(4, command.size()))
                  .replaceAll("password=[^,\\]]*", "password=***")
              + "\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      return new ProcessBuilder(command)
          .directory(directory.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a JVM for broker " + nodeId, e);
    }
  }

  private static java.io.File nullDevice() {
    return new java.io.File("/dev/null");
  }

  @Override
  public int nodeId() {
    return nodeId;
  }

  @Override
  public InetSocketAddress clientAddress() {
    return clientAddress;
  }

  @Override
  public InetSocketAddress secondClientAddress() {
    return secondClientAddress;
  }

  @Override
  public URI metricsEndpoint() {
    return URI.create("http://" + LoopbackPorts.LOOPBACK + ":" + ports.metrics() + "/metrics");
  }

  @Override
  public String jmxServiceUrl() {
    return "service:jmx:rmi:///jndi/rmi://"
        + LoopbackPorts.LOOPBACK
        + ":"
        + ports.jmx()
        + "/jmxrmi";
  }

  @Override
  public Path logFile() {
    return logFile;
  }

  @Override
  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  @Override
  public long pid() {
    Process p = process;
    return p != null && p.isAlive() ? p.pid() : -1;
  }

  @Override
  public void stop() {
    if (signalStop()) {
      awaitExit(System.nanoTime() + STOP_TIMEOUT.toNanos());
    }
  }

  /** Sends SIGTERM (resuming a paused broker first); false if it was not running. */
  boolean signalStop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return false;
    }
    // A stopped process keeps SIGTERM pending until it runs again.
    signal("CONT");
    p.destroy();
    return true;
  }

  /** Waits until the deadline for the process to exit, then kills it. */
  void awaitExit(long deadlineNanos) {
    Process p = process;
    if (p == null) {
      return;
    }
    try {
      long remainingNanos = Math.max(0, deadlineNanos - System.nanoTime());
      if (!p.waitFor(remainingNanos, TimeUnit.NANOSECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  @Override
  public void kill() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("broker " + nodeId + " survived SIGKILL for 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing broker " + nodeId, e);
    }
  }

  void killQuietly() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }

  @Override
  public void pause() {
    requireRunning("pause");
    signal("STOP");
    // kill(1) returns before the kernel has stopped every thread; callers need it frozen.
    awaitStopped(true);
  }

  @Override
  public void resume() {
    requireRunning("resume");
    signal("CONT");
    awaitStopped(false);
  }

  private void awaitStopped(boolean stopped) {
    Path stat = Paths.get("/proc", Long.toString(pid()), "stat");
    if (!Files.isReadable(stat)) {
      return; // No procfs: the signal was delivered, and that is all we can know.
    }
    long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (isStopped(stat) != stopped) {
      if (System.nanoTime() > deadlineNanos) {
        throw new IllegalStateException(
            "broker " + nodeId + (stopped ? " did not stop" : " did not resume") + " within 10 s");
      }
      ClusterReadiness.sleep(5);
    }
  }

  /** The state field of /proc/PID/stat is {@code T} while the process is stopped by a signal. */
  static boolean isStopped(Path stat) {
    try {
      String line = Files.readString(stat);
      return line.charAt(line.lastIndexOf(')') + 2) == 'T';
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void start() {
    if (isRunning()) {
      throw new IllegalStateException("broker " + nodeId + " is already running");
    }
    launch();
    cluster.awaitReady(Collections.singletonList(this), START_TIMEOUT);
  }

  private void requireRunning(String action) {
    if (!isRunning()) {
      throw new IllegalStateException("cannot " + action + " broker " + nodeId + ": not running");
    }
  }

  private void signal(String signal) {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot send SIG" + signal + " to broker " + nodeId, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling broker " + nodeId, e);
    }
  }

  /** Deletes the log directories; the configuration and the broker log stay for reading. */
  void deleteData() {
    Path data = directory.resolve("data");
    if (!Files.exists(data)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(data)) {
      paths.sorted(Comparator.reverseOrder()).forEach(ProcessBroker::deleteQuietly);
    } catch (IOException | UncheckedIOException e) {
      // Leftover data under target/ is harmless; the next clean removes it.
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // See deleteData.
    }
  }

  @Override
  public String toString() {
    return "broker " + nodeId + " at " + clientAddress + (isRunning() ? "" : " (not running)");
  }

  private static final String LOG4J2_CONFIG =
      String.join(
          "\n",
          "status = warn",
          "appender.stdout.type = Console",
          "appender.stdout.name = STDOUT",
          "appender.stdout.layout.type = PatternLayout",
          "appender.stdout.layout.pattern = [%d] %p %m (%c)%n",
          "rootLogger.level = INFO",
          "rootLogger.appenderRef.stdout.ref = STDOUT",
          "logger.request.name = kafka.request.logger",
          "logger.request.level = WARN",
          "logger.authorizer.name = kafka.authorizer.logger",
          "logger.authorizer.level = WARN",
          "");
}

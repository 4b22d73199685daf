package dev.klat.demo;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * {@code ./klat demo}: starts a 3-broker KRaft cluster, the collector, and a producer and a
 * consumer application with the klat agent, then cycles through the scenarios of {@link Scenario}
 * while a live table shows the end-to-end percentiles and the segment that drives the p99 tail.
 * Beside them runs a two-hop pipeline, also with the agent: the producer's topic, {@link
 * DemoEnricher} (group {@value #ENRICHER_GROUP}) writing to {@value Scenario#SECOND_TOPIC}, and a
 * last group ({@value Scenario#LAST_GROUP}); the demo prints its line from {@code /api/pipelines}.
 * Ctrl-C stops every process it started.
 *
 * <p>Where {@code node} and {@code npm} are on the {@code PATH}, a kafkajs consumer without klat's
 * agent, instrumented by OpenTelemetry ({@link NodeConsumer}, group {@value #NODE_GROUP}), reads
 * the producer's topic too, and the demo prints its records on a line of their own; without them,
 * or when its packages do not install, one line says so and the demo goes on.
 *
 * <p>Settings are system properties: {@code klat.demo.root} (the repository, default {@code .}),
 * {@code klat.demo.scenario.seconds} (45), {@code klat.demo.refresh.seconds} (3), {@code
 * klat.demo.otlp.port} (4318), {@code klat.demo.admin.port} (9464), {@code klat.demo.scenarios}
 * (comma-separated ids, default all, in the order of {@link #DEFAULT_ORDER}), {@code
 * klat.demo.kafkajs} ({@code true}; {@code false} leaves the kafkajs consumer out).
 */
public final class DemoMain {

  static final String TOPIC = "demo-orders";
  static final String GROUP = "demo-app";
  static final String ENRICHER_GROUP = "demo-enricher";
  static final String NODE_GROUP = "demo-kafkajs";
  // Low-rate scenarios first; the slow consumer last, so that the steady phase after it drains its
  // backlog before the cycle starts over. The consumer starts a new member when fetch-wait begins
  // and ends, and its rejoin shows as catch-up: fetch-wait comes after the slow follower, so that
  // the rejoin lands in the slow consumer (catch-up anyway), not at the slow follower's head.
  // The slow last hop second: the pipeline's chains have been linked through the steady phase, and
  // the last group's backlog drains during linger-burst's low rate.
  private static final List<Scenario> DEFAULT_ORDER =
      Arrays.asList(
          Scenario.STEADY,
          Scenario.SLOW_LAST_HOP,
          Scenario.LINGER_BURST,
          Scenario.SLOW_FOLLOWER,
          Scenario.FETCH_WAIT,
          Scenario.SLOW_CONSUMER);

  private final Path root;
  private final Path work;
  private final int otlpPort;
  private Path probeJar;
  private final int adminPort;
  private final long scenarioNanos;
  private final long refreshMillis;
  private final List<Scenario> order;
  private final boolean terminal = System.console() != null;
  private final PrintStream out = System.out;
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private volatile KafkaCluster cluster;
  private volatile FollowerPacer pacer;
  private volatile Scenario current = Scenario.STEADY;
  private volatile long scenarioStartNanos;
  private volatile boolean stopping;
  // The kafkajs consumer: what to print about it (once), and whether it runs.
  private final boolean kafkajs = !"false".equals(System.getProperty("klat.demo.kafkajs"));
  private final java.util.Queue<String> notices =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.concurrent.CountDownLatch appsStarted =
      new java.util.concurrent.CountDownLatch(1);
  private volatile boolean kafkajsRunning;
  private volatile String lastNotice;

  private static final String CLIENT_LOG = "demo-clients.log";

  private DemoMain() {
    root = Paths.get(System.getProperty("klat.demo.root", ".")).toAbsolutePath().normalize();
    work = root.resolve("target").resolve("demo");
    otlpPort = Integer.getInteger("klat.demo.otlp.port", 4318);
    adminPort = Integer.getInteger("klat.demo.admin.port", 9464);
    scenarioNanos = TimeUnit.SECONDS.toNanos(Long.getLong("klat.demo.scenario.seconds", 45));
    refreshMillis = TimeUnit.SECONDS.toMillis(Long.getLong("klat.demo.refresh.seconds", 3));
    String scenarios = System.getProperty("klat.demo.scenarios", "");
    List<Scenario> chosen = new ArrayList<>();
    for (String id : scenarios.split(",")) {
      if (!id.trim().isEmpty()) {
        chosen.add(Scenario.byId(id));
      }
    }
    order = chosen.isEmpty() ? DEFAULT_ORDER : chosen;
  }

  public static void main(String[] args) throws Exception {
    DemoMain demo = new DemoMain();
    // The demo's own Kafka clients log through slf4j-simple (the admin client warns about every
    // broker not up yet): to a file, so that the terminal shows the demo's progress and table.
    Files.createDirectories(demo.work);
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", demo.work.resolve(CLIENT_LOG).toString());
    Runtime.getRuntime().addShutdownHook(new Thread(demo::stopEverything, "klat-demo-stop"));
    try {
      demo.run();
    } catch (IllegalStateException e) {
      System.err.println("klat demo failed: " + e.getMessage());
      demo.stopEverything();
      System.exit(1);
    } catch (Exception e) {
      System.err.println("klat demo failed: " + e);
      demo.stopEverything();
      System.exit(1);
    }
  }

  private void run() throws Exception {
    Path agentJar = requireFile(root.resolve("agent/target/klat-agent.jar"));
    Path collectorJar = requireFile(root.resolve("collector/target/klat-collector.jar"));
    probeJar = requireFile(root.resolve("broker-probe/target/klat-broker-probe.jar"));
    Files.createDirectories(work);
    Path scenarioFile = work.resolve("scenario");
    Scenario.STEADY.writeTo(scenarioFile);

    out.println("klat demo: where does the time go between producer and consumer?");
    String inUse =
        DemoPorts.firstInUse(
            List.of(
                new DemoPorts.Need(otlpPort, "OTLP/HTTP, for the agents", "klat.demo.otlp.port"),
                new DemoPorts.Need(
                    adminPort, "the collector's page and API", "klat.demo.admin.port")));
    if (inUse != null) {
      throw new IllegalStateException(inUse);
    }
    if (kafkajs) {
      // Its packages install while the brokers start.
      startKafkajsInBackground("http://127.0.0.1:" + otlpPort);
    }
    out.println(
        "logs: "
            + root.relativize(work)
            + "/ (the brokers, the collector, the applications; the demo's own clients in "
            + CLIENT_LOG
            + ")");
    cluster =
        progress(
            "starting 3 Kafka brokers (KRaft, one JVM each, with klat's broker probe)",
            this::startCluster);
    progress(
        "creating topics "
            + TOPIC
            + " and "
            + Scenario.SECOND_TOPIC
            + " (3 partitions, 3 replicas, leader broker 1)",
        () -> {
          createTopics();
          return null;
        });
    progress(
        "starting the collector (OTLP on 127.0.0.1:" + otlpPort + ")",
        () -> {
          startCollector(collectorJar);
          return null;
        });
    String endpoint = "http://127.0.0.1:" + otlpPort;
    startApplication(
        "demo-producer",
        agentJar,
        endpoint,
        DemoProducer.class,
        cluster.bootstrapServers(),
        TOPIC,
        scenarioFile.toString());
    startApplication(
        "demo-consumer",
        agentJar,
        endpoint,
        DemoConsumer.class,
        cluster.bootstrapServers(),
        TOPIC,
        GROUP,
        scenarioFile.toString());
    // The pipeline: demo-orders -> demo-enricher -> demo-orders-enriched -> demo-billing.
    startApplication(
        "demo-enricher",
        agentJar,
        endpoint,
        DemoEnricher.class,
        cluster.bootstrapServers(),
        TOPIC,
        ENRICHER_GROUP,
        Scenario.SECOND_TOPIC);
    startApplication(
        Scenario.LAST_GROUP,
        agentJar,
        endpoint,
        DemoConsumer.class,
        cluster.bootstrapServers(),
        Scenario.SECOND_TOPIC,
        Scenario.LAST_GROUP,
        scenarioFile.toString(),
        "last-hop");
    appsStarted.countDown();
    out.println(
        "demo applications started with -javaagent:"
            + root.relativize(agentJar)
            + "; live charts on http://127.0.0.1:"
            + adminPort
            + "/ (API /api/breakdown, /api/diagnosis and /api/pipelines, metrics /metrics); Ctrl-C"
            + " stops"
            + " everything");

    long startNanos = System.nanoTime();
    int index = 0;
    Scenario scenario = order.get(0);
    scenario.writeTo(scenarioFile);
    scenarioStartNanos = startNanos;
    current = scenario;
    pacer =
        new FollowerPacer(
            () -> cluster,
            () -> current,
            () -> scenarioStartNanos,
            TimeUnit.NANOSECONDS.toMillis(scenarioNanos),
            () -> stopping,
            GROUP,
            out);
    pacer.start();
    LiveQueries queries = new LiveQueries(adminPort, out, () -> stopping);
    while (!stopping) {
      long now = System.nanoTime();
      if (now - scenarioStartNanos >= scenarioNanos) {
        index = (index + 1) % order.size();
        scenario = order.get(index);
        scenario.writeTo(scenarioFile);
        scenarioStartNanos = now;
        current = scenario;
      }
      BreakdownRow row = queries.breakdown();
      TopFinding why = row == null ? null : queries.topFinding();
      PipelineRow pipeline = row == null ? null : queries.pipeline();
      OpenTelemetryRow kafkajsRow = row == null || !kafkajsRunning ? null : queries.kafkajs();
      for (String notice; (notice = notices.poll()) != null; ) {
        out.println(notice);
      }
      long secondsLeft = TimeUnit.NANOSECONDS.toSeconds(scenarioNanos - (now - scenarioStartNanos));
      print(
          scenario,
          index,
          secondsLeft,
          TimeUnit.NANOSECONDS.toSeconds(now - startNanos),
          row,
          why,
          pipeline,
          kafkajsRow);
      Thread.sleep(refreshMillis);
    }
  }

  /**
   * Installs the kafkajs consumer's packages while the brokers start, then starts it once the other
   * applications run; every outcome is one notice line, and a failure leaves the demo as it is.
   */
  private void startKafkajsInBackground(String endpoint) {
    NodeConsumer node = new NodeConsumer(root, NodeConsumer.defaultCacheRoot(), work, this::track);
    Thread thread =
        new Thread(
            () -> {
              String missing = node.missing();
              if (missing != null) {
                notice(NodeConsumer.LABEL + ": not started (" + missing + ")");
                return;
              }
              try {
                Path dir = node.install();
                appsStarted.await();
                synchronized (this) {
                  if (stopping) {
                    return;
                  }
                  node.start(dir, cluster.bootstrapServers(), TOPIC, NODE_GROUP, endpoint);
                  kafkajsRunning = true;
                }
                notice(
                    NodeConsumer.LABEL
                        + ": started, group "
                        + NODE_GROUP
                        + ", no klat agent (log: "
                        + root.relativize(work.resolve("demo-node.log"))
                        + ")");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (IOException | RuntimeException e) {
                if (!stopping) {
                  notice(
                      NodeConsumer.LABEL
                          + ": not started ("
                          + e.getMessage()
                          + "); the demo goes on");
                }
              }
            },
            "klat-demo-kafkajs");
    thread.setDaemon(true);
    thread.start();
  }

  // Printed once by the refresh loop, and kept under a terminal's redrawn screen.
  private void notice(String line) {
    lastNotice = line;
    notices.add(line);
  }

  // A process the demo stops with the rest; one started while stopping is stopped at once.
  private void track(Process process) {
    processes.add(process);
    if (stopping) {
      process.destroy();
    }
  }

  private KafkaCluster startCluster() {
    // The probe measures each record's append and commit on the brokers; it sends to the
    // collector, which starts after the brokers (until then the probe drops and retries).
    return KafkaClusterSpec.brokers(3)
        .name("demo")
        .workRoot(work.resolve("kafka-cluster"))
        .brokerProperty("replica.lag.time.max.ms", "10000")
        .brokerProbe(probeJar, "http://127.0.0.1:" + otlpPort)
        .startTimeout(Duration.ofMinutes(3))
        .start();
  }

  // Both topics alike: every partition led by broker 1 and followed by 2 and 3, so that the
  // slow-follower scenario's paused broker follows every demo partition.
  private void createTopics() throws Exception {
    Map<Integer, List<Integer>> assignment = new java.util.HashMap<>();
    assignment.put(0, Arrays.asList(1, 2, 3));
    assignment.put(1, Arrays.asList(1, 3, 2));
    assignment.put(2, Arrays.asList(1, 2, 3));
    Map<String, String> configs = new java.util.HashMap<>();
    configs.put("min.insync.replicas", "2");
    // The broker's append time in every record: the collector splits publish from commit with it.
    configs.put("message.timestamp.type", "LogAppendTime");
    List<String> topics = Arrays.asList(TOPIC, Scenario.SECOND_TOPIC);
    List<NewTopic> newTopics = new ArrayList<>();
    for (String topic : topics) {
      newTopics.add(new NewTopic(topic, assignment).configs(configs));
    }
    try (Admin admin = cluster.admin()) {
      admin.createTopics(newTopics).all().get(60, TimeUnit.SECONDS);
      for (String topic : topics) {
        Topics.awaitReady(admin, topic, assignment.size(), 3, Duration.ofSeconds(60));
      }
    }
  }

  private void startCollector(Path collectorJar) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-Xmx512m");
    command.add("-jar");
    command.add(collectorJar.toString());
    command.add("--otlp.http.port=" + otlpPort);
    command.add("--admin.port=" + adminPort);
    // The demo's agents send OTLP/HTTP: no gRPC port to find free.
    command.add("--otlp.grpc.enabled=false");
    // The brokers' request metrics (their JMX exporters), from which the collector estimates the
    // broker instants where the record timestamp does not give them.
    StringBuilder exporters = new StringBuilder();
    for (Broker broker : cluster.brokers()) {
      if (exporters.length() > 0) {
        exporters.append(',');
      }
      exporters.append(broker.nodeId()).append('=').append(broker.metricsEndpoint());
    }
    command.add("--brokers.exporter=" + exporters);
    command.add("--brokers.scrape-interval=2s");
    Process collector = start(command, "collector");
    processes.add(collector);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (get("/healthz") != null && collector.isAlive()) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      if (!collector.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            (collector.isAlive()
                    ? "the collector did not answer /healthz in 60 s"
                    : "the collector exited")
                + "; see "
                + work.resolve("collector.log"));
      }
      Thread.sleep(200);
    }
  }

  private void startApplication(
      String name, Path agentJar, String endpoint, Class<?> mainClass, String... args)
      throws IOException {
    List<String> command =
        AgentCommand.of(
            agentJar,
            endpoint,
            name,
            System.getProperty("java.class.path"),
            mainClass.getName(),
            Arrays.asList(args));
    processes.add(start(command, name));
  }

  private Process start(List<String> command, String logName) throws IOException {
    Path log = work.resolve(logName + ".log");
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private void print(
      Scenario scenario,
      int index,
      long secondsLeft,
      long elapsedSeconds,
      BreakdownRow row,
      TopFinding why,
      PipelineRow pipeline,
      OpenTelemetryRow kafkajsRow) {
    String line =
        LiveTable.line(scenario, index, order.size(), secondsLeft, elapsedSeconds, row, why);
    String kafkajsLine =
        kafkajsRow == null
            ? null
            : LiveTable.kafkajsLine(
                scenario, index, order.size(), secondsLeft, elapsedSeconds, kafkajsRow);
    String under = kafkajsLine != null ? kafkajsLine : lastNotice;
    if (!terminal) {
      out.println(line);
      if (pipeline != null) {
        out.println(
            LiveTable.pipelineLine(
                scenario, index, order.size(), secondsLeft, elapsedSeconds, pipeline));
      }
      if (kafkajsLine != null) {
        out.println(kafkajsLine);
      }
      return;
    }
    out.print(
        LiveTable.screen(
            scenario,
            index,
            order.size(),
            secondsLeft,
            row,
            why,
            pipeline,
            adminPort,
            under == null ? line : line + "\n" + under));
    out.flush();
  }

  private <T> T progress(String what, Progress.Step<T> step) throws Exception {
    return Progress.run(out, terminal, what, step);
  }

  private String get(String path) throws IOException {
    return AdminClient.get(adminPort, path);
  }

  private synchronized void stopEverything() {
    stopping = true;
    for (Process process : processes) {
      process.destroy();
    }
    for (Process process : processes) {
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
      }
    }
    processes.clear();
    KafkaCluster running = cluster;
    cluster = null;
    if (running != null) {
      FollowerPacer started = pacer;
      if (started != null) {
        started.resumePaused(running);
      }
      running.close();
    }
  }

  private static Path requireFile(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(
          path + " is missing: build first (./mvnw install -DskipTests)");
    }
    return path;
  }

  private static String javaExecutable() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }
}

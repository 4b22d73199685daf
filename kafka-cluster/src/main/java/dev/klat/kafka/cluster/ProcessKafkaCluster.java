package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/** A cluster whose brokers are child JVM processes of this one. */
final class ProcessKafkaCluster extends AbstractKafkaCluster<ProcessBroker> {

  private static final DateTimeFormatter DIRECTORY_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);
  private static final Duration LAST_VOTER_GRACE = Duration.ofSeconds(1);
  private static final long STOP_POLL_MILLIS = 50;

  private final KafkaClusterSpec spec;
  private final ClusterSecurity security;
  private final Thread reaper;

  private ProcessKafkaCluster(KafkaClusterSpec spec, Path workDirectory, String clusterId) {
    super(workDirectory, clusterId);
    this.spec = spec;
    this.security = new ClusterSecurity(spec);
    // A test JVM that dies without closing the cluster must not leave brokers behind.
    this.reaper = new Thread(this::killAll, "klat-kafka-cluster-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  static KafkaCluster start(KafkaClusterSpec spec) {
    KafkaDistribution distribution = KafkaDistribution.load();
    Path workDirectory = createWorkDirectory(spec);
    ProcessKafkaCluster cluster =
        new ProcessKafkaCluster(spec, workDirectory, Uuid.randomUuid().toString());
    try {
      cluster.configureBrokers(distribution);
      cluster.format();
      for (ProcessBroker broker : cluster.brokers) {
        broker.launch();
      }
      cluster.awaitReady(cluster.brokers, spec.startTimeout());
      return cluster;
    } catch (RuntimeException e) {
      throw cluster.startFailed("Kafka cluster", e);
    }
  }

  private static Path createWorkDirectory(KafkaClusterSpec spec) {
    String unique =
        spec.name()
            + "-"
            + LocalDateTime.now().format(DIRECTORY_TIME)
            + "-"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    try {
      return Files.createDirectories(spec.workRoot().resolve(unique)).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the cluster work directory", e);
    }
  }

  private void configureBrokers(KafkaDistribution distribution) {
    Path exporterRules = KafkaDistribution.writeExporterRules(workDirectory());
    int count = spec.brokerCount();
    List<BrokerPorts> ports = new ArrayList<>();
    StringBuilder voters = new StringBuilder();
    for (int nodeId = 1; nodeId <= count; nodeId++) {
      BrokerPorts p = BrokerPorts.allocate();
      ports.add(p);
      if (voters.length() > 0) {
        voters.append(',');
      }
      voters
          .append(nodeId)
          .append('@')
          .append(LoopbackPorts.LOOPBACK)
          .append(':')
          .append(p.controller());
    }
    for (int nodeId = 1; nodeId <= count; nodeId++) {
      BrokerPorts p = ports.get(nodeId - 1);
      Path directory = workDirectory().resolve("broker-" + nodeId);
      InetSocketAddress client = advertised(nodeId, Listener.CLIENT, p.client());
      InetSocketAddress secondClient = advertised(nodeId, Listener.SECOND_CLIENT, p.secondClient());
      InetSocketAddress replication = advertised(nodeId, Listener.REPLICATION, p.replication());
      Properties properties = BrokerConfig.defaults(count);
      properties.put("node.id", Integer.toString(nodeId));
      properties.put("controller.quorum.voters", voters.toString());
      properties.put(
          "listeners",
          "CLIENT://127.0.0.1:"
              + p.client()
              + ",SECOND_CLIENT://127.0.0.1:"
              + p.secondClient()
              + ",REPLICATION://127.0.0.1:"
              + p.replication()
              + ",CONTROLLER://127.0.0.1:"
              + p.controller());
      properties.put(
          "advertised.listeners",
          "CLIENT://"
              + hostPort(client)
              + ",SECOND_CLIENT://"
              + hostPort(secondClient)
              + ",REPLICATION://"
              + hostPort(replication)
              + ",CONTROLLER://127.0.0.1:"
              + p.controller());
      properties.put("log.dirs", directory.resolve("data").toString());
      properties.putAll(security.brokerProperties());
      properties.putAll(spec.brokerProperties());
      brokers.add(
          new ProcessBroker(
              this,
              nodeId,
              directory,
              properties,
              client,
              secondClient,
              p,
              distribution,
              exporterRules));
    }
  }

  private InetSocketAddress advertised(int nodeId, Listener listener, int port) {
    InetSocketAddress bound = InetSocketAddress.createUnresolved(LoopbackPorts.LOOPBACK, port);
    InetSocketAddress address = spec.addressInterceptor().advertise(nodeId, listener, bound);
    if (address == null) {
      throw new IllegalStateException("address interceptor returned null for " + listener);
    }
    return address;
  }

  private static String hostPort(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  private void format() {
    List<Process> formatters = new ArrayList<>();
    for (ProcessBroker broker : brokers) {
      formatters.add(broker.startFormat(clusterId()));
    }
    for (int i = 0; i < formatters.size(); i++) {
      ProcessBroker broker = brokers.get(i);
      try {
        Process formatter = formatters.get(i);
        if (!formatter.waitFor(60, TimeUnit.SECONDS)) {
          formatter.destroyForcibly();
          throw new IllegalStateException("formatting broker " + broker.nodeId() + " timed out");
        }
        if (formatter.exitValue() != 0) {
          throw new IllegalStateException(
              "formatting broker "
                  + broker.nodeId()
                  + " failed with exit code "
                  + formatter.exitValue()
                  + "; see "
                  + broker.logFile());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while formatting", e);
      }
    }
  }

  void awaitReady(Collection<ProcessBroker> waitingFor, Duration timeout) {
    readiness.await(waitingFor, timeout);
  }

  @Override
  public Properties clientProperties() {
    return security.admin(bootstrapServers());
  }

  @Override
  public Properties clientProperties(Listener listener, String principal) {
    String bootstrap =
        switch (listener) {
          case CLIENT -> bootstrapServers();
          case SECOND_CLIENT -> secondClientBootstrapServers();
          default -> throw new IllegalArgumentException("not a client listener: " + listener);
        };
    return security.client(listener, bootstrap, principal);
  }

  /** The {@code kafka-storage format} arguments that create the SCRAM users. */
  List<String> formatArguments() {
    return security.formatArguments();
  }

  KafkaClusterSpec spec() {
    return spec;
  }

  @Override
  void stopBrokers() {
    // Signal all brokers first, then wait: stopping them one by one would make each later broker
    // wait for a controller quorum that the earlier ones already took down.
    for (ProcessBroker broker : brokers) {
      broker.signalStop();
    }
    long deadlineNanos = System.nanoTime() + STOP_GRACE.toNanos();
    if (brokers.size() > 1) {
      killTheLastVoterWhenAlone(deadlineNanos);
    }
    for (ProcessBroker broker : brokers) {
      broker.awaitExit(deadlineNanos);
      broker.deleteData();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // The JVM is exiting; the reaper runs anyway and finds nothing alive.
    }
  }

  /**
   * The metadata quorum's leader, the last broker left, spends Raft's graceful resignation timeout
   * (5 s, {@code KafkaRaftClient.shutdown}) waiting for voters that have already exited: in CI's
   * logs the last of three stopped 5.5 s after the others, which had taken 0.7 s, on every
   * three-broker cluster's close. Its broker part has shut down by then and its data goes next, so
   * once it is alone it gets {@link #LAST_VOTER_GRACE} and is then killed.
   */
  private void killTheLastVoterWhenAlone(long deadlineNanos) {
    boolean alone = false;
    long aloneSinceNanos = 0;
    while (System.nanoTime() - deadlineNanos < 0) {
      List<ProcessBroker> running = brokers.stream().filter(ProcessBroker::isRunning).toList();
      if (running.size() != 1) {
        if (running.isEmpty() || !waitOnePoll()) {
          return;
        }
        continue;
      }
      long now = System.nanoTime();
      if (!alone) {
        alone = true;
        aloneSinceNanos = now;
      } else if (now - aloneSinceNanos >= LAST_VOTER_GRACE.toNanos()) {
        running.get(0).killQuietly();
        return;
      }
      if (!waitOnePoll()) {
        return;
      }
    }
  }

  /** Waits one poll interval; false if interrupted (awaitExit then kills what is left). */
  private static boolean waitOnePoll() {
    try {
      Thread.sleep(STOP_POLL_MILLIS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void killAll() {
    for (ProcessBroker broker : brokers) {
      broker.killQuietly();
    }
  }

  /** The loopback ports of one broker. */
  record BrokerPorts(
      int client, int secondClient, int replication, int controller, int metrics, int jmx) {

    static BrokerPorts allocate() {
      return new BrokerPorts(
          LoopbackPorts.free(),
          LoopbackPorts.free(),
          LoopbackPorts.free(),
          LoopbackPorts.free(),
          LoopbackPorts.free(),
          LoopbackPorts.free());
    }
  }
}

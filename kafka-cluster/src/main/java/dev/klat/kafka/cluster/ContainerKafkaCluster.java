package dev.klat.kafka.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports.Binding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The same cluster as {@link ProcessKafkaCluster}, as {@code apache/kafka} containers on one Docker
 * network, for users who have Docker. Host ports are fixed before start because each broker must
 * advertise the host address of its client listener, and JMX over RMI needs the same port inside
 * and outside the container.
 */
final class ContainerKafkaCluster
    extends AbstractKafkaCluster<ContainerKafkaCluster.ContainerBroker> {

  private static final int CLIENT_PORT = 9092;
  private static final int REPLICATION_PORT = 9091;
  private static final int CONTROLLER_PORT = 9093;
  private static final int METRICS_PORT = 9404;
  private static final String AGENT_IN_CONTAINER = "/opt/klat/jmx_prometheus_javaagent.jar";
  private static final String RULES_IN_CONTAINER = "/opt/klat/kafka-broker.yaml";

  private final Network network;

  private ContainerKafkaCluster(Path workDirectory, String clusterId) {
    super(workDirectory, clusterId);
    this.network = Network.newNetwork();
  }

  static KafkaCluster start(KafkaClusterSpec spec) {
    if (spec.secured()) {
      throw new UnsupportedOperationException(
          "secured listeners run on the process backend only (" + BACKEND_PROPERTY + "=process)");
    }
    KafkaDistribution distribution = KafkaDistribution.load();
    Path workDirectory;
    try {
      workDirectory =
          Files.createDirectories(
                  spec.workRoot().resolve(spec.name() + "-containers-" + System.nanoTime()))
              .toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ContainerKafkaCluster cluster =
        new ContainerKafkaCluster(workDirectory, Uuid.randomUuid().toString());
    try {
      cluster.create(spec, distribution);
      Startables.deepStart(cluster.brokers.stream().map(b -> b.container)).join();
      cluster.readiness.await(cluster.brokers, spec.startTimeout());
      return cluster;
    } catch (RuntimeException e) {
      throw cluster.startFailed("Kafka containers", e);
    }
  }

  private void create(KafkaClusterSpec spec, KafkaDistribution distribution) {
    Path rules = KafkaDistribution.writeExporterRules(workDirectory());
    DockerImageName image = DockerImageName.parse("apache/kafka:" + distribution.kafkaVersion);
    int count = spec.brokerCount();
    String voters =
        java.util.stream.IntStream.rangeClosed(1, count)
            .mapToObj(id -> id + "@" + alias(id) + ":" + CONTROLLER_PORT)
            .collect(Collectors.joining(","));
    for (int nodeId = 1; nodeId <= count; nodeId++) {
      int clientHostPort = LoopbackPorts.free();
      int metricsHostPort = LoopbackPorts.free();
      int jmxPort = LoopbackPorts.free();
      InetSocketAddress client =
          spec.addressInterceptor()
              .advertise(
                  nodeId,
                  Listener.CLIENT,
                  InetSocketAddress.createUnresolved(LoopbackPorts.LOOPBACK, clientHostPort));
      Properties config = BrokerConfig.defaults(count);
      config.put("node.id", Integer.toString(nodeId));
      config.put("controller.quorum.voters", voters);
      config.put(
          "listeners",
          "CLIENT://0.0.0.0:"
              + CLIENT_PORT
              + ",REPLICATION://0.0.0.0:"
              + REPLICATION_PORT
              + ",CONTROLLER://0.0.0.0:"
              + CONTROLLER_PORT);
      config.put(
          "advertised.listeners",
          "CLIENT://"
              + client.getHostString()
              + ":"
              + client.getPort()
              + ",REPLICATION://"
              + alias(nodeId)
              + ":"
              + REPLICATION_PORT);
      config.put("log.dirs", "/var/lib/kafka/data");
      config.putAll(spec.brokerProperties());

      Path directory = workDirectory().resolve("broker-" + nodeId);
      Path logFile = directory.resolve("broker.log");
      try {
        Files.createDirectories(directory);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      @SuppressWarnings("resource") // closed by ContainerBroker
      GenericContainer<?> container =
          new GenericContainer<>(image)
              .withNetwork(network)
              .withNetworkAliases(alias(nodeId))
              .withEnv(environment(config))
              .withEnv("CLUSTER_ID", clusterId())
              .withEnv("KAFKA_HEAP_OPTS", "-Xms128m -Xmx" + spec.brokerHeapMb() + "m")
              .withEnv(
                  "KAFKA_OPTS",
                  "-javaagent:"
                      + AGENT_IN_CONTAINER
                      + "="
                      + METRICS_PORT
                      + ":"
                      + RULES_IN_CONTAINER
                      + " -Dcom.sun.management.jmxremote"
                      + " -Dcom.sun.management.jmxremote.port="
                      + jmxPort
                      + " -Dcom.sun.management.jmxremote.rmi.port="
                      + jmxPort
                      + " -Djava.rmi.server.hostname=127.0.0.1"
                      + " -Dcom.sun.management.jmxremote.authenticate=false"
                      + " -Dcom.sun.management.jmxremote.ssl=false")
              .withCopyFileToContainer(
                  MountableFile.forHostPath(distribution.jmxExporterAgent), AGENT_IN_CONTAINER)
              .withCopyFileToContainer(MountableFile.forHostPath(rules), RULES_IN_CONTAINER)
              .withExposedPorts(CLIENT_PORT, METRICS_PORT, jmxPort)
              .withCreateContainerCmdModifier(
                  cmd -> {
                    HostConfig hostConfig =
                        cmd.getHostConfig() == null ? new HostConfig() : cmd.getHostConfig();
                    cmd.withHostConfig(
                        hostConfig.withPortBindings(
                            bind(clientHostPort, CLIENT_PORT),
                            bind(metricsHostPort, METRICS_PORT),
                            bind(jmxPort, jmxPort)));
                  })
              .withLogConsumer(frame -> append(logFile, frame))
              .withStartupTimeout(spec.startTimeout());
      brokers.add(
          new ContainerBroker(
              this, nodeId, container, client, metricsHostPort, jmxPort, logFile, spec));
    }
  }

  private static PortBinding bind(int hostPort, int containerPort) {
    return new PortBinding(
        Binding.bindIpAndPort(LoopbackPorts.LOOPBACK, hostPort), new ExposedPort(containerPort));
  }

  private static String alias(int nodeId) {
    return "kafka-" + nodeId;
  }

  /**
   * The apache/kafka image turns {@code KAFKA_*} variables into properties the way Confluent's
   * images do: {@code .} is {@code _}, {@code -} is {@code __}, {@code _} is {@code ___}.
   */
  static Map<String, String> environment(Properties config) {
    Map<String, String> env = new TreeMap<>();
    for (String key : config.stringPropertyNames()) {
      String name =
          "KAFKA_"
              + key.replace("_", "___")
                  .replace("-", "__")
                  .replace('.', '_')
                  .toUpperCase(Locale.ROOT);
      env.put(name, config.getProperty(key));
    }
    return env;
  }

  private static void append(Path logFile, OutputFrame frame) {
    try {
      Files.writeString(
          logFile,
          frame.getUtf8String(),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // Losing a log line must not fail a test.
    }
  }

  void awaitReady(ContainerBroker broker, Duration timeout) {
    readiness.await(Collections.singletonList(broker), timeout);
  }

  @Override
  void stopBrokers() {
    for (ContainerBroker broker : brokers) {
      try {
        broker.container.stop();
      } catch (RuntimeException e) {
        // Closing never throws; Testcontainers' reaper removes what is left.
      }
    }
    network.close();
  }

  /** One broker container. */
  static final class ContainerBroker implements Broker {
    private final ContainerKafkaCluster cluster;
    private final int nodeId;
    final GenericContainer<?> container;
    private final InetSocketAddress clientAddress;
    private final int metricsHostPort;
    private final int jmxPort;
    private final Path logFile;
    private final KafkaClusterSpec spec;

    ContainerBroker(
        ContainerKafkaCluster cluster,
        int nodeId,
        GenericContainer<?> container,
        InetSocketAddress clientAddress,
        int metricsHostPort,
        int jmxPort,
        Path logFile,
        KafkaClusterSpec spec) {
      this.cluster = cluster;
      this.nodeId = nodeId;
      this.container = container;
      this.clientAddress = clientAddress;
      this.metricsHostPort = metricsHostPort;
      this.jmxPort = jmxPort;
      this.logFile = logFile;
      this.spec = spec;
    }

    private DockerClient docker() {
      return container.getDockerClient();
    }

    private InspectContainerResponse.ContainerState state() {
      return docker().inspectContainerCmd(container.getContainerId()).exec().getState();
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
    public URI metricsEndpoint() {
      return URI.create("http://" + LoopbackPorts.LOOPBACK + ":" + metricsHostPort + "/metrics");
    }

    @Override
    public String jmxServiceUrl() {
      return "service:jmx:rmi:///jndi/rmi://" + LoopbackPorts.LOOPBACK + ":" + jmxPort + "/jmxrmi";
    }

    @Override
    public Path logFile() {
      return logFile;
    }

    @Override
    public boolean isRunning() {
      return container.getContainerId() != null && Boolean.TRUE.equals(state().getRunning());
    }

    @Override
    public long pid() {
      Long pid = isRunning() ? state().getPidLong() : null;
      return pid == null ? -1 : pid;
    }

    @Override
    public void stop() {
      docker().stopContainerCmd(container.getContainerId()).withTimeout(30).exec();
    }

    @Override
    public void kill() {
      docker().killContainerCmd(container.getContainerId()).withSignal("KILL").exec();
    }

    @Override
    public void pause() {
      docker().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void resume() {
      docker().unpauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void start() {
      docker().startContainerCmd(container.getContainerId()).exec();
      cluster.awaitReady(this, spec.startTimeout());
    }
  }
}

package dev.klat.lab;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The cluster the lab runs on: the embedded 3-broker cluster it starts (with klat's broker probe)
 * or a user's cluster. Either way the lab only ever deletes topics it created itself in this run,
 * all of them prefixed {@value #PREFIX}.
 */
final class LabCluster implements AutoCloseable {

  static final String PREFIX = "klat-lab-";
  private static final long REACH_TIMEOUT_S = 10;

  private final KafkaCluster embedded;
  private final String bootstrap;
  private final Path commandConfig;
  private final Properties clientSettings;
  private final Admin admin;
  private final short replicationFactor;
  private final Set<String> created = ConcurrentHashMap.newKeySet();

  private LabCluster(
      KafkaCluster embedded,
      String bootstrap,
      Path commandConfig,
      Properties clientSettings,
      Admin admin,
      int brokers) {
    this.embedded = embedded;
    this.bootstrap = bootstrap;
    this.commandConfig = commandConfig;
    this.clientSettings = clientSettings;
    this.admin = admin;
    this.replicationFactor = (short) Math.min(3, brokers);
  }

  /** Starts 3 brokers under {@code work}, each with the probe sending to {@code otlpEndpoint}. */
  static LabCluster embedded(Path work, Path probeJar, String otlpEndpoint) {
    KafkaCluster cluster =
        KafkaClusterSpec.brokers(3)
            .name("lab")
            .workRoot(work.resolve("kafka-cluster"))
            .brokerProbe(probeJar, otlpEndpoint)
            .startTimeout(Duration.ofMinutes(3))
            .start();
    try {
      Properties none = new Properties();
      return new LabCluster(
          cluster,
          cluster.bootstrapServers(),
          null,
          none,
          admin(cluster.bootstrapServers(), none),
          3);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Connects to a user's cluster.
   *
   * @param commandConfig the client settings its listener needs (security), or null
   * @throws LabException when it does not answer within 10 s or the file does not read
   */
  static LabCluster external(String bootstrap, Path commandConfig) {
    Properties settings = clientSettings(commandConfig);
    Admin admin = admin(bootstrap, settings);
    try {
      int brokers = admin.describeCluster().nodes().get(REACH_TIMEOUT_S, TimeUnit.SECONDS).size();
      return new LabCluster(null, bootstrap, commandConfig, settings, admin, brokers);
    } catch (TimeoutException | ExecutionException e) {
      admin.close(Duration.ZERO);
      throw new LabException(
          "the Kafka cluster at "
              + bootstrap
              + " is unreachable: no answer within "
              + REACH_TIMEOUT_S
              + " s ("
              + (e.getCause() == null ? e : e.getCause())
              + "); check the address, and that the listener's security settings are in the"
              + " --command-config file"
              + (commandConfig == null ? " (none given: PLAINTEXT)" : " " + commandConfig));
    } catch (InterruptedException e) {
      admin.close(Duration.ZERO);
      Thread.currentThread().interrupt();
      throw new LabException("interrupted while connecting to " + bootstrap);
    }
  }

  /**
   * The client settings of a {@code --command-config} file, as Kafka's tools read theirs; its
   * {@code bootstrap.servers}, if any, gives way to {@code --bootstrap-server}.
   */
  private static Properties clientSettings(Path commandConfig) {
    Properties settings = new Properties();
    if (commandConfig == null) {
      return settings;
    }
    try (Reader in = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
      settings.load(in);
    } catch (IOException e) {
      throw new LabException("cannot read --command-config " + commandConfig + ": " + e);
    }
    settings.remove(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
    return settings;
  }

  /** The client settings for the lab's own clients: the command config's, or none. */
  Properties clientSettings() {
    Properties copy = new Properties();
    copy.putAll(clientSettings);
    return copy;
  }

  /** The command config file, which the lab's producer and consumer processes read; or null. */
  Path commandConfig() {
    return commandConfig;
  }

  private static Admin admin(String bootstrap, Properties clientSettings) {
    Properties properties = new Properties();
    properties.putAll(clientSettings);
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    properties.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, "3000");
    properties.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, "3000");
    return Admin.create(properties);
  }

  boolean isEmbedded() {
    return embedded != null;
  }

  String bootstrapServers() {
    return bootstrap;
  }

  /** The brokers' JMX exporters as the collector's {@code --brokers.exporter} wants them. */
  String exporters() {
    List<String> list = new ArrayList<>();
    if (embedded != null) {
      for (Broker broker : embedded.brokers()) {
        list.add(broker.nodeId() + "=" + broker.metricsEndpoint());
      }
    }
    return String.join(",", list);
  }

  /**
   * Creates {@code name} with broker append times in its records (so that publish and commit split
   * even without the probe) and waits until every partition has a leader.
   *
   * @throws LabException when the name is not the lab's, the topic exists already, or the cluster
   *     refuses to create it
   */
  void createTopic(String name, int partitions) throws InterruptedException {
    if (!name.startsWith(PREFIX)) {
      throw new LabException("the lab only creates topics prefixed " + PREFIX + ", not " + name);
    }
    NewTopic topic =
        new NewTopic(name, partitions, replicationFactor)
            .configs(
                Map.of(
                    "message.timestamp.type",
                    "LogAppendTime",
                    "min.insync.replicas",
                    Integer.toString(Math.min(2, replicationFactor))));
    try {
      admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
      created.add(name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        throw new LabException(
            "topic " + name + " exists already and the lab did not create it: it leaves it alone");
      }
      if (e.getCause() instanceof AuthorizationException) {
        throw new LabException(
            "the cluster refused to create topic "
                + name
                + " ("
                + e.getCause().getMessage()
                + "): the lab needs CREATE, DESCRIBE and DELETE on topics prefixed "
                + PREFIX
                + " and READ on consumer groups prefixed "
                + PREFIX);
      }
      throw new LabException("could not create topic " + name + ": " + e.getCause());
    } catch (TimeoutException e) {
      throw new LabException("topic " + name + " was not created within 60 s");
    }
    awaitLeaders(name);
  }

  private void awaitLeaders(String name) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription description =
            admin.describeTopics(List.of(name)).allTopicNames().get(10, TimeUnit.SECONDS).get(name);
        boolean ready = true;
        for (TopicPartitionInfo partition : description.partitions()) {
          ready &= partition.leader() != null && partition.isr().size() == replicationFactor;
        }
        if (ready) {
          return;
        }
      } catch (ExecutionException | TimeoutException notYet) {
        // Metadata not propagated yet.
      }
      Thread.sleep(200);
    }
    throw new LabException(
        "topic " + name + " has no leader or full ISR for every partition after 60 s");
  }

  /** Deletes {@code name} if this run created it; a topic it did not create is never touched. */
  void deleteTopic(String name) {
    if (created.remove(name)) {
      delete(List.of(name));
    }
  }

  private void delete(Collection<String> names) {
    try {
      admin.deleteTopics(names).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      System.err.println("klat lab: could not delete " + names + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Deletes every topic this run created and still has on the user's cluster, then stops what it
   * started. The embedded cluster goes with its topics (and on Ctrl-C its own shutdown hook is
   * already stopping the brokers, so a deletion would only wait for them).
   */
  @Override
  public synchronized void close() {
    if (embedded == null && !created.isEmpty()) {
      List<String> left = new ArrayList<>(created);
      created.clear();
      delete(left);
    }
    admin.close(Duration.ofSeconds(5));
    if (embedded != null) {
      embedded.close();
    }
  }
}

package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AclBinding;

/**
 * A running Kafka cluster of one or more KRaft brokers.
 *
 * <p>Started with {@link #start(KafkaClusterSpec)}; by default each broker is a separate JVM
 * running Apache Kafka from the Maven Central artifacts, on loopback ports, with the Prometheus JMX
 * exporter attached. Setting the system property {@value #BACKEND_PROPERTY} to {@code
 * testcontainers} runs the same cluster as {@code apache/kafka} containers instead (needs a Docker
 * engine). Closing the cluster stops every broker it started.
 */
public interface KafkaCluster extends AutoCloseable {

  /**
   * System property that selects the backend: {@code process} (default) or {@code testcontainers}.
   */
  String BACKEND_PROPERTY = "klat.it.kafka";

  /**
   * Starts a cluster and waits until every broker is registered and serving metrics.
   *
   * @throws IllegalStateException if the cluster did not become ready; the message names the broker
   *     logs to read
   */
  static KafkaCluster start(KafkaClusterSpec spec) {
    String backend = System.getProperty(BACKEND_PROPERTY, "process").trim();
    switch (backend) {
      case "process":
        return ProcessKafkaCluster.start(spec);
      case "testcontainers":
        return ContainerKafkaCluster.start(spec);
      default:
        throw new IllegalArgumentException(
            BACKEND_PROPERTY + "=" + backend + " is not a backend: use process or testcontainers");
    }
  }

  /** The {@code bootstrap.servers} value that reaches every broker's client listener. */
  default String bootstrapServers() {
    return brokers().stream()
        .map(b -> b.clientAddress().getHostString() + ":" + b.clientAddress().getPort())
        .collect(Collectors.joining(","));
  }

  /**
   * The {@code bootstrap.servers} value for the {@link Listener#SECOND_CLIENT} listener: a client
   * bootstrapped here reaches every broker wherever that listener is advertised (a proxy, say).
   */
  default String secondClientBootstrapServers() {
    return brokers().stream()
        .map(b -> b.secondClientAddress().getHostString() + ":" + b.secondClientAddress().getPort())
        .collect(Collectors.joining(","));
  }

  /** The KRaft cluster id. */
  String clusterId();

  /** The brokers, ordered by node id (node ids start at 1). */
  List<Broker> brokers();

  /**
   * The broker with this node id.
   *
   * @throws IllegalArgumentException if there is none
   */
  default Broker broker(int nodeId) {
    for (Broker broker : brokers()) {
      if (broker.nodeId() == nodeId) {
        return broker;
      }
    }
    throw new IllegalArgumentException("no broker with node id " + nodeId);
  }

  /** Where this cluster keeps its configuration, data and logs. */
  Path workDirectory();

  /**
   * Client properties that reach this cluster: {@code bootstrap.servers} and, on a secured cluster
   * ({@link KafkaClusterSpec.Builder#listener}), the security properties of the fixture's admin, a
   * super user, on {@link Listener#CLIENT}; nothing else, so that callers add what their test is
   * about.
   */
  default Properties clientProperties() {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return properties;
  }

  /**
   * Client properties of the named principal on {@code listener} ({@link Listener#CLIENT} or {@link
   * Listener#SECOND_CLIENT}): its bootstrap servers and, as the listener is secured, the trust
   * store and the SCRAM credentials or the client certificate of a user the spec declared.
   *
   * @throws IllegalArgumentException for a principal the spec does not know
   */
  default Properties clientProperties(Listener listener, String principal) {
    throw new UnsupportedOperationException("this cluster has no secured listeners");
  }

  /** Adds ACLs as the fixture's admin and waits until the controller took them. */
  default void createAcls(Collection<AclBinding> acls) {
    try (Admin admin = admin()) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("creating ACLs " + acls + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating ACLs", e);
    }
  }

  /** A new admin client for this cluster; the caller closes it. */
  default Admin admin() {
    Properties properties = clientProperties();
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(properties);
  }

  /** Creates a topic and waits until every partition has a leader known to every running broker. */
  default void createTopic(TopicSpec topic) {
    try (Admin admin = admin()) {
      // Each broker creates the logs of its replicas one by one: a minute, and more for thousands.
      Topics.create(
          admin, topic, brokers().size(), Duration.ofSeconds(60 + topic.partitions() / 50));
    }
  }

  /** Creates topics; see {@link #createTopic(TopicSpec)}. */
  default void createTopics(TopicSpec... topics) {
    for (TopicSpec topic : topics) {
      createTopic(topic);
    }
  }

  /** The last lines of every broker's log, keyed by node id, for a failure report. */
  default Map<Integer, String> logTails(int lines) {
    Map<Integer, String> tails = new TreeMap<>();
    for (Broker broker : brokers()) {
      tails.put(broker.nodeId(), BrokerLogs.tail(broker.logFile(), lines));
    }
    return tails;
  }

  /** Stops every broker: gracefully first, forcibly after a grace period. Never throws. */
  @Override
  void close();
}

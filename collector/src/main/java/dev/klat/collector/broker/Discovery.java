package dev.klat.collector.broker;

import dev.klat.collector.KafkaClientConfig;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/** Finds the cluster's brokers (node id to host) and the replica counts of its partitions. */
interface Discovery extends AutoCloseable {

  /** The brokers the cluster knows now (live ones; a stopped broker drops out). */
  Map<Integer, String> nodes() throws Exception;

  /**
   * The replica count of each partition of {@code topics}, indexed by partition; a topic that does
   * not exist or cannot be described is left out.
   */
  default Map<String, int[]> replicaCounts(Collection<String> topics) throws Exception {
    return Map.of();
  }

  @Override
  void close();

  /** Through the Kafka Admin client's {@code describeCluster}, one client kept open. */
  final class ViaAdmin implements Discovery {
    private final String bootstrap;
    private final int timeoutMs;
    private final KafkaClientConfig client;
    private Admin admin;

    ViaAdmin(String bootstrap, int timeoutMs) {
      this(bootstrap, timeoutMs, KafkaClientConfig.none("brokers.kafka-config"));
    }

    /** With the client properties of {@code brokers.kafka-config} (security) under klat's own. */
    ViaAdmin(String bootstrap, int timeoutMs, KafkaClientConfig client) {
      this.bootstrap = bootstrap;
      this.timeoutMs = timeoutMs;
      this.client = client;
    }

    @Override
    public synchronized Map<Integer, String> nodes() throws Exception {
      if (admin == null) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "klat-collector-discovery");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(timeoutMs));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(timeoutMs));
        p.put(
            AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG,
            Integer.toString(timeoutMs));
        p.put(
            AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG,
            Integer.toString(timeoutMs));
        admin = Admin.create(client.over(p, "discovery"));
      }
      Map<Integer, String> out = new TreeMap<>();
      for (Node node :
          admin
              .describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs))
              .nodes()
              .get(timeoutMs + 1000L, TimeUnit.MILLISECONDS)) {
        out.put(node.id(), node.host());
      }
      return out;
    }

    @Override
    public synchronized Map<String, int[]> replicaCounts(Collection<String> topics)
        throws Exception {
      Map<String, int[]> out = new HashMap<>();
      if (admin == null || topics.isEmpty()) {
        return out; // nodes() opens the client; it runs first
      }
      Map<String, KafkaFuture<TopicDescription>> described =
          admin
              .describeTopics(topics, new DescribeTopicsOptions().timeoutMs(timeoutMs))
              .topicNameValues();
      for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
        TopicDescription topic;
        try {
          topic = e.getValue().get(timeoutMs + 1000L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException missing) {
          continue; // deleted, not yet created, or not authorised: the others still count
        }
        int partitions = 0;
        for (TopicPartitionInfo p : topic.partitions()) {
          partitions = Math.max(partitions, p.partition() + 1);
        }
        int[] counts = new int[partitions];
        for (TopicPartitionInfo p : topic.partitions()) {
          counts[p.partition()] = p.replicas().size();
        }
        out.put(e.getKey(), counts);
      }
      return out;
    }

    @Override
    public synchronized void close() {
      if (admin != null) {
        admin.close(java.time.Duration.ofMillis(500));
        admin = null;
      }
    }
  }
}

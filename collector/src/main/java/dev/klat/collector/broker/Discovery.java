package dev.klat.collector.broker;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/** Finds the cluster's brokers: node id to host. */
interface Discovery extends AutoCloseable {

  /** The brokers the cluster knows now (live ones; a stopped broker drops out). */
  Map<Integer, String> nodes() throws Exception;

  @Override
  void close();

  /** Through the Kafka Admin client's {@code describeCluster}, one client kept open. */
  final class ViaAdmin implements Discovery {
    private final String bootstrap;
    private final int timeoutMs;
    private Admin admin;

    ViaAdmin(String bootstrap, int timeoutMs) {
      this.bootstrap = bootstrap;
      this.timeoutMs = timeoutMs;
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
        admin = Admin.create(p);
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
    public synchronized void close() {
      if (admin != null) {
        admin.close(java.time.Duration.ofMillis(500));
        admin = null;
      }
    }
  }
}

package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;

/**
 * What the process and the container clusters share: their identity, their work directory, their
 * brokers, and one lazily created Admin client for the readiness checks, closed with the cluster
 * before its brokers stop.
 */
abstract class AbstractKafkaCluster<B extends Broker> implements KafkaCluster {
  final List<B> brokers = new ArrayList<>();
  private final Path workDirectory;
  private final String clusterId;
  final ClusterReadiness readiness;
  private Admin admin;

  AbstractKafkaCluster(Path workDirectory, String clusterId) {
    this.workDirectory = workDirectory;
    this.clusterId = clusterId;
    this.readiness = new ClusterReadiness(this::sharedAdmin);
  }

  @Override
  public String clusterId() {
    return clusterId;
  }

  @Override
  public Path workDirectory() {
    return workDirectory;
  }

  @Override
  public final void close() {
    closeSharedAdmin();
    stopBrokers();
  }

  @Override
  public List<Broker> brokers() {
    return Collections.unmodifiableList(brokers);
  }

  /** Stops every broker; never throws. */
  abstract void stopBrokers();

  /**
   * Closes the cluster after a failed start and says why, with the tail of every broker's log.
   *
   * @param what what did not start, for the message
   */
  final IllegalStateException startFailed(String what, RuntimeException cause) {
    String tails = BrokerLogs.describe(logTails(60));
    close();
    return new IllegalStateException(
        what + " did not start: " + cause.getMessage() + "\n" + tails, cause);
  }

  private synchronized Admin sharedAdmin() {
    if (admin == null) {
      admin = KafkaCluster.super.admin();
    }
    return admin;
  }

  private synchronized void closeSharedAdmin() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }
}

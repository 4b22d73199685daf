package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;

/**
 * What the process and the container clusters share: their identity, their work directory, and one
 * lazily created Admin client for the readiness checks, closed with the cluster.
 */
abstract class AbstractKafkaCluster implements KafkaCluster {
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

  private synchronized Admin sharedAdmin() {
    if (admin == null) {
      admin = KafkaCluster.super.admin();
    }
    return admin;
  }

  synchronized void closeSharedAdmin() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }
}

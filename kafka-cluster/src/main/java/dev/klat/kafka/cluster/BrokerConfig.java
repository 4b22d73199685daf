package dev.klat.kafka.cluster;

import java.util.Properties;

/** Broker configuration the fixture starts from, before the spec's own properties. */
final class BrokerConfig {

  private BrokerConfig() {}

  /**
   * Production defaults except where a small local cluster needs otherwise: internal topics are
   * replicated as widely as the cluster allows, and consumer groups form without the initial
   * rebalance delay.
   */
  static Properties defaults(int brokerCount) {
    int internalReplicas = Math.min(brokerCount, 3);
    int internalMinIsr = Math.min(brokerCount, 2);
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "REPLICATION");
    p.put(
        "listener.security.protocol.map",
        "CLIENT:PLAINTEXT,SECOND_CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("offsets.topic.replication.factor", Integer.toString(internalReplicas));
    p.put("offsets.topic.num.partitions", "10");
    p.put("transaction.state.log.replication.factor", Integer.toString(internalReplicas));
    p.put("transaction.state.log.min.isr", Integer.toString(internalMinIsr));
    p.put("transaction.state.log.num.partitions", "10");
    p.put("share.coordinator.state.topic.replication.factor", Integer.toString(internalReplicas));
    p.put("share.coordinator.state.topic.min.isr", Integer.toString(internalMinIsr));
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "4");
    p.put("log.segment.bytes", Integer.toString(64 * 1024 * 1024));
    return p;
  }
}

package dev.klat.it.agent;

import dev.klat.kafka.cluster.AddressInterceptor;
import dev.klat.kafka.cluster.DelayingProxy;
import dev.klat.kafka.cluster.Listener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The delayable paths of a test cluster: a {@link DelayingProxy} in front of each broker's second
 * client listener (the producers connect there) and in front of its replication listener (the
 * followers fetch from it there), created as the brokers bind; with {@link #withConsumerPaths()},
 * also in front of its first client listener (the consumers, and the tests' admin clients).
 */
final class ProxiedPaths implements AutoCloseable {
  private final Map<Integer, DelayingProxy> producers = new ConcurrentHashMap<>();
  private final Map<Integer, DelayingProxy> replication = new ConcurrentHashMap<>();
  private final Map<Integer, DelayingProxy> consumers = new ConcurrentHashMap<>();
  private final boolean consumerPaths;

  ProxiedPaths() {
    this(false);
  }

  private ProxiedPaths(boolean consumerPaths) {
    this.consumerPaths = consumerPaths;
  }

  /** Paths that can delay the consumers' fetches too. */
  static ProxiedPaths withConsumerPaths() {
    return new ProxiedPaths(true);
  }

  /** Routes each broker's second client and replication listeners through their proxies. */
  AddressInterceptor interceptor() {
    return (nodeId, listener, bound) -> {
      if (listener == Listener.SECOND_CLIENT) {
        return producers.computeIfAbsent(nodeId, n -> DelayingProxy.start(bound)).address();
      }
      if (listener == Listener.REPLICATION) {
        return replication.computeIfAbsent(nodeId, n -> DelayingProxy.start(bound)).address();
      }
      if (listener == Listener.CLIENT && consumerPaths) {
        return consumers.computeIfAbsent(nodeId, n -> DelayingProxy.start(bound)).address();
      }
      return bound;
    };
  }

  /** The path from the producers to broker {@code nodeId}. */
  DelayingProxy toLeader(int nodeId) {
    return producers.get(nodeId);
  }

  /** The path from the followers to broker {@code nodeId}, the leader they fetch from. */
  DelayingProxy toLeaderForFollowers(int nodeId) {
    return replication.get(nodeId);
  }

  /** The path from the consumers to broker {@code nodeId}, with {@link #withConsumerPaths()}. */
  DelayingProxy toLeaderForConsumers(int nodeId) {
    return consumers.get(nodeId);
  }

  @Override
  public void close() {
    producers.values().forEach(DelayingProxy::close);
    replication.values().forEach(DelayingProxy::close);
    consumers.values().forEach(DelayingProxy::close);
  }
}

package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@link BrokerTimings} the correlator reads: the brokers' histories in an immutable map,
 * replaced (copy on write) when a broker comes or goes, so that a lookup takes no lock the scrapers
 * or discovery could hold.
 */
final class TimingStore implements BrokerTimings {
  private final long staleNanos;
  private final Object writeLock = new Object();
  private volatile Map<Integer, BrokerHistory> brokers = Map.of();

  TimingStore(long staleNanos) {
    this.staleNanos = staleNanos;
  }

  void put(int nodeId, BrokerHistory history) {
    synchronized (writeLock) {
      Map<Integer, BrokerHistory> next = new HashMap<>(brokers);
      next.put(nodeId, history);
      brokers = Map.copyOf(next);
    }
  }

  void remove(int nodeId) {
    synchronized (writeLock) {
      Map<Integer, BrokerHistory> next = new HashMap<>(brokers);
      next.remove(nodeId);
      brokers = Map.copyOf(next);
    }
  }

  @Override
  public RequestTimings lookup(int nodeId, Request request, long epochNanos) {
    BrokerHistory history = brokers.get(nodeId);
    return history == null ? null : history.lookup(request, epochNanos, staleNanos);
  }

  @Override
  public Map<Integer, Partitions> partitions() {
    Map<Integer, Partitions> out = new TreeMap<>();
    brokers.forEach(
        (nodeId, history) -> {
          Partitions p = history.partitions();
          if (p.any()) {
            out.put(nodeId, p);
          }
        });
    return Collections.unmodifiableMap(out);
  }

  @Override
  public Partitions partitions(int nodeId) {
    BrokerHistory history = brokers.get(nodeId);
    Partitions p = history == null ? null : history.partitions();
    return p == null || !p.any() ? null : p;
  }

  @Override
  public Map<Integer, Replication> replication(long sinceEpochNanos) {
    Map<Integer, Replication> out = new TreeMap<>();
    brokers.forEach(
        (nodeId, history) -> {
          Replication r = history.replication(sinceEpochNanos);
          if (r != null) {
            out.put(nodeId, r);
          }
        });
    return Collections.unmodifiableMap(out);
  }

  @Override
  public Replication replication(int nodeId, long sinceEpochNanos) {
    BrokerHistory history = brokers.get(nodeId);
    return history == null ? null : history.replication(sinceEpochNanos);
  }
}

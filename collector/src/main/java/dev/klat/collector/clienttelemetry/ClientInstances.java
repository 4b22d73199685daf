package dev.klat.collector.clienttelemetry;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The latest push of each client instance, bounded: at most {@code maxInstances} instances and
 * {@code maxBytes} of their estimated size; over either, the instance whose push is oldest leaves
 * (counted by reason). An instance silent for {@code staleNanos} leaves too ({@code stale}): a
 * client that closed, or one whose subscription stopped. One {@link LinkedHashMap} in push order (a
 * push moves its instance to the end), so the oldest is always the head. Thread-safe.
 */
public final class ClientInstances {
  /** Eviction reasons, as {@code klat_collector_client_telemetry_evictions_total} labels them. */
  public static final String MAX_INSTANCES = "max-instances";

  public static final String MAX_BYTES = "max-bytes";
  public static final String STALE = "stale";

  // The fixed part of an entry: the map entry, the record, its list, map and aggregates.
  static final long ENTRY_BYTES = 400;
  static final long FIGURE_BYTES = 64;
  static final long TOPIC_BYTES = 56;

  private final int maxInstances;
  private final long maxBytes;
  private final long staleNanos;
  private final LinkedHashMap<String, ClientInstance> byId = new LinkedHashMap<>();
  private long bytes;
  private long evictedForCount;
  private long evictedForBytes;
  private long expired;

  /**
   * @param maxInstances the most instances held
   * @param maxBytes the most their estimated sizes add up to
   * @param staleNanos how long an instance is held after its last push
   */
  public ClientInstances(int maxInstances, long maxBytes, long staleNanos) {
    this.maxInstances = maxInstances;
    this.maxBytes = maxBytes;
    this.staleNanos = staleNanos;
  }

  /**
   * Takes an instance's latest push, replacing its previous one; a terminating push keeps the
   * previous push's figures. A client's last push, sent as it closes, covers only the time since
   * its previous one, often without a record (librdkafka 2.12 then pushes every latency as 0): the
   * figures of its working life are the previous push's.
   */
  public synchronized void put(ClientInstance instance, long nowNanos) {
    expire(nowNanos);
    ClientInstance previous = byId.remove(instance.clientInstanceId());
    if (previous != null) {
      bytes -= estimatedBytes(previous);
      if (instance.terminating() && !previous.figures().isEmpty()) {
        instance =
            new ClientInstance(
                instance.clientInstanceId(),
                instance.clientId(),
                instance.softwareName(),
                instance.softwareVersion(),
                instance.principal(),
                instance.role(),
                instance.groupId(),
                instance.topics(),
                instance.brokerId(),
                true,
                instance.lastPushNanos(),
                previous.figures());
      }
    }
    byId.put(instance.clientInstanceId(), instance);
    bytes += estimatedBytes(instance);
    Iterator<ClientInstance> oldest = byId.values().iterator();
    while (byId.size() > maxInstances || (bytes > maxBytes && byId.size() > 1)) {
      ClientInstance evicted = oldest.next();
      if (byId.size() > maxInstances) {
        evictedForCount++;
      } else {
        evictedForBytes++;
      }
      bytes -= estimatedBytes(evicted);
      oldest.remove();
    }
  }

  /** The instances held, oldest push first, after the stale ones left. */
  public synchronized List<ClientInstance> snapshot(long nowNanos) {
    expire(nowNanos);
    return new ArrayList<>(byId.values());
  }

  private void expire(long nowNanos) {
    Iterator<ClientInstance> oldest = byId.values().iterator();
    while (oldest.hasNext()) {
      ClientInstance i = oldest.next();
      if (nowNanos - i.lastPushNanos() < staleNanos) {
        return;
      }
      bytes -= estimatedBytes(i);
      oldest.remove();
      expired++;
    }
  }

  /** The instances held. */
  public synchronized int size() {
    return byId.size();
  }

  /** Their estimated bytes. */
  public synchronized long estimatedBytes() {
    return bytes;
  }

  /**
   * Instances that left, by reason ({@link #MAX_INSTANCES}, {@link #MAX_BYTES}, {@link #STALE}).
   */
  public synchronized Map<String, Long> evictions() {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put(MAX_INSTANCES, evictedForCount);
    out.put(MAX_BYTES, evictedForBytes);
    out.put(STALE, expired);
    return out;
  }

  /** Instances evicted to make room (not the stale ones), as {@code /api/clients} counts them. */
  public synchronized long evicted() {
    return evictedForCount + evictedForBytes;
  }

  /**
   * An instance's size, from its fields rather than measured, on the high side: two bytes a
   * character (the strings may be Latin-1 or UTF-16), the fixed objects above.
   */
  static long estimatedBytes(ClientInstance i) {
    long chars =
        i.clientInstanceId().length()
            + i.clientId().length()
            + i.softwareName().length()
            + i.softwareVersion().length()
            + i.principal().length()
            + (i.groupId() == null ? 0 : i.groupId().length());
    long topics = 0;
    for (String t : i.topics()) {
      topics += TOPIC_BYTES + 2L * t.length();
    }
    return ENTRY_BYTES + 2 * chars + topics + FIGURE_BYTES * i.figures().size();
  }
}

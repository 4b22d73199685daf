package dev.klat.collector.scale.join;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.receive.OtlpIngest;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * The metrics partitions a join member owns. An agent's points are cumulative, so an agent moving
 * from one member to another must be counted by the second from exactly where the first stopped:
 * each commit names, per agent of the partition, the time of the last point counted, and goes back
 * to the oldest of those points, which the next owner reads again as the base of its count (see
 * {@link AgentMetrics.TakeOver}). Confined to the member's thread.
 */
final class MetricPartitions {
  private static final String COUNTED = "klat.counted=";
  // Kafka refuses commit metadata over offset.metadata.max.bytes (4,096 by default).
  private static final int MAX_METADATA_CHARS = 3_500;

  private final OtlpIngest ingest;
  private final AgentMetrics agentMetrics;
  private final long staleNanos;
  private final Map<Integer, Owned> owned = new HashMap<>();
  final AtomicLong recordsRead = new AtomicLong();
  final AtomicLong recordsMalformed = new AtomicLong();

  /**
   * @param staleNanos an agent silent this long is no longer tracked: the commit moves past its
   *     last point (should it come back, the next owner counts it whole)
   */
  MetricPartitions(OtlpIngest ingest, AgentMetrics agentMetrics, long staleNanos) {
    this.ingest = ingest;
    this.agentMetrics = agentMetrics;
    this.staleNanos = staleNanos;
  }

  private static final class Owned {
    final Map<String, Long> previousOwnerCounted;
    final long startedBeforeEpochNanos;
    // instance -> {offset of its last record, its newest point's time, when it was read}
    final Map<String, long[]> counted = new HashMap<>();
    // Every agent read here, stale or not: all are handed over.
    final Set<String> seen = new HashSet<>();

    Owned(Map<String, Long> previousOwnerCounted, long startedBeforeEpochNanos) {
      this.previousOwnerCounted = previousOwnerCounted;
      this.startedBeforeEpochNanos = startedBeforeEpochNanos;
    }
  }

  void assigned(int partition, OffsetAndMetadata committed, long nowEpochNanos) {
    Map<String, Long> previous = committed == null ? Map.of() : parse(committed.metadata());
    // A previous owner whose count this member cannot know (too many agents to name): count the
    // agents started before now from their first point on.
    long startedBefore = committed != null && previous == null ? nowEpochNanos : Long.MIN_VALUE;
    owned.put(partition, new Owned(previous == null ? Map.of() : previous, startedBefore));
  }

  void read(ConsumerRecord<byte[], byte[]> record, long nowNanos) {
    recordsRead.incrementAndGet();
    Owned o = owned.get(record.partition());
    if (o == null || record.value() == null) {
      return;
    }
    String instance =
        record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    Long counted = instance == null ? null : o.previousOwnerCounted.get(instance);
    AgentMetrics.TakeOver takeOver =
        new AgentMetrics.TakeOver(
            counted == null ? Long.MIN_VALUE : counted,
            counted == null ? o.startedBeforeEpochNanos : Long.MIN_VALUE);
    OtlpIngest.MetricsRead read = ingest.metricsFrom(record.value(), takeOver);
    if (read.error() != null) {
      if (recordsMalformed.getAndIncrement() == 0) {
        JoinMember.warnMalformed(record, "metrics", read.error(), "metricRecordsMalformed");
      }
      return;
    }
    if (instance != null) {
      o.seen.add(instance);
      long[] last = o.counted.get(instance);
      long newest = Math.max(read.newestPointNanos(), last == null ? Long.MIN_VALUE : last[1]);
      o.counted.put(instance, new long[] {record.offset(), newest, nowNanos});
    }
  }

  /**
   * What to commit for {@code partition}: back to the oldest last-counted record of its agents,
   * with their counted times; the position alone when it names too many agents.
   */
  OffsetAndMetadata commit(int partition, long position, long nowNanos) {
    Owned o = owned.get(partition);
    if (o == null) {
      return new OffsetAndMetadata(position);
    }
    o.counted.values().removeIf(c -> nowNanos - c[2] > staleNanos);
    StringBuilder metadata = new StringBuilder(COUNTED);
    long offset = position;
    for (Map.Entry<String, long[]> e : o.counted.entrySet()) {
      offset = Math.min(offset, e.getValue()[0]);
      if (metadata.length() > COUNTED.length()) {
        metadata.append('&');
      }
      metadata
          .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(e.getValue()[1]);
    }
    if (metadata.length() > MAX_METADATA_CHARS) {
      return new OffsetAndMetadata(position, "klat.counted-unknown");
    }
    return new OffsetAndMetadata(offset, metadata.toString());
  }

  /** Gives the partition's agents up: what this member counted of them stays in its series. */
  void revoked(int partition) {
    Owned o = owned.remove(partition);
    if (o != null && !o.seen.isEmpty()) {
      agentMetrics.handOver(o.seen::contains);
    }
  }

  Set<Integer> partitions() {
    return owned.keySet();
  }

  /** The counted times a commit's metadata names; null when unknown (not named, or too many). */
  static Map<String, Long> parse(String metadata) {
    if (metadata == null || !metadata.startsWith(COUNTED)) {
      return null;
    }
    Map<String, Long> out = new HashMap<>();
    String body = metadata.substring(COUNTED.length());
    if (body.isEmpty()) {
      return out;
    }
    for (String entry : body.split("&")) {
      String[] kv = entry.split("=", 2);
      try {
        out.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8), Long.parseLong(kv[1]));
      } catch (RuntimeException malformed) {
        return null;
      }
    }
    return out;
  }
}

package dev.klat.agent.consumer;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.Gauge;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.micrometer.MicrometerTimer;
import dev.klat.agent.tail.TailThreshold;
import dev.klat.agent.tail.TailThresholds;
import dev.klat.model.MetricDef;
import dev.klat.model.TailTraceIds;
import java.util.Arrays;

/**
 * The instruments of one (topic, consumer group), resolved once so that {@code poll()} does no
 * lookups per record.
 */
final class ConsumerTopicInstruments {

  /** Beyond this a partition number is garbage, and no per-partition state is kept for it. */
  private static final int MAX_PARTITION = 100_000;

  final String topic;

  /** {@link TailTraceIds#topicHash} of {@link #topic}, for tail spans' trace ids. */
  private final long topicHash;

  final LatencyHistogram e2eLatency;
  final LatencyHistogram fetchLatency;
  final LatencyHistogram bufferLatency;

  /**
   * The histograms' Micrometer timers: all null unless {@code klat.micrometer.enabled} and the
   * consumer's Micrometer took them, so that the setting off costs one null check per list.
   */
  final MicrometerTimer e2eLatencyTimer;

  final MicrometerTimer fetchLatencyTimer;
  final MicrometerTimer bufferLatencyTimer;

  /**
   * The tail threshold of {@code P - timestamp} on {@code CreateTime} records: {@code auto} follows
   * {@link #e2eLatency}. {@link TailThreshold#NEVER} when tail capture is off.
   */
  final TailThreshold e2eTailThreshold;

  /**
   * Records of this topic and group whose {@code P - timestamp} was above its threshold; null when
   * tail capture is off.
   */
  final Counter tailFlagged;

  // Made at the first LogAppendTime record: most topics never have one, and each auto threshold
  // holds a window. Used only by the thread polling the consumer.
  private TailThreshold appendTailThreshold;
  private final TailThresholds tailThresholds;
  private final String groupId;
  private final MetricsRegistry registry;
  // Indexed by partition number. Written only by the thread polling the consumer; a race between
  // two threads polling in turn at most creates the same gauge twice (the registry dedupes).
  private volatile Gauge[] lagByPartition = new Gauge[0];
  // Indexed by partition number; used only by the thread polling the consumer.
  private PartitionFetchHistory[] historyByPartition = new PartitionFetchHistory[0];
  // False for instruments that several topics share: a partition number names no one partition.
  private final boolean keepsHistories;

  ConsumerTopicInstruments(String topic, String groupId, MetricsRegistry registry) {
    this(topic, groupId, registry, null, null, true);
  }

  /**
   * With {@code micrometer} null when the histograms are not mirrored into Micrometer, {@code
   * tailThresholds} null when no record is ever flagged.
   */
  ConsumerTopicInstruments(
      String topic,
      String groupId,
      MetricsRegistry registry,
      MicrometerBridge micrometer,
      TailThresholds tailThresholds) {
    this(topic, groupId, registry, micrometer, tailThresholds, true);
  }

  private ConsumerTopicInstruments(
      String topic,
      String groupId,
      MetricsRegistry registry,
      MicrometerBridge micrometer,
      TailThresholds tailThresholds,
      boolean keepsHistories) {
    this.keepsHistories = keepsHistories;
    this.topic = topic;
    this.topicHash = TailTraceIds.topicHash(topic);
    this.groupId = groupId;
    this.registry = registry;
    this.e2eLatency = registry.histogram(MetricDef.E2E_LATENCY, topic, groupId);
    this.fetchLatency = registry.histogram(MetricDef.CONSUMER_FETCH_LATENCY, topic, groupId);
    this.bufferLatency = registry.histogram(MetricDef.CONSUMER_BUFFER_LATENCY, topic, groupId);
    MicrometerTimer e2e =
        micrometer == null ? null : micrometer.timer(MetricDef.E2E_LATENCY, topic, groupId);
    MicrometerTimer fetch =
        e2e == null ? null : micrometer.timer(MetricDef.CONSUMER_FETCH_LATENCY, topic, groupId);
    MicrometerTimer buffer =
        fetch == null ? null : micrometer.timer(MetricDef.CONSUMER_BUFFER_LATENCY, topic, groupId);
    // All or none, so that the poll path checks one of them.
    boolean all = buffer != null;
    this.e2eLatencyTimer = all ? e2e : null;
    this.fetchLatencyTimer = all ? fetch : null;
    this.bufferLatencyTimer = buffer;
    this.tailThresholds = tailThresholds;
    this.e2eTailThreshold =
        tailThresholds == null
            ? TailThreshold.NEVER
            : tailThresholds.forConsumer(topic, e2eLatency);
    this.tailFlagged =
        tailThresholds != null && tailThresholds.enabled()
            ? registry.counter(MetricDef.CONSUMER_TAIL_RECORDS_FLAGGED, topic, groupId)
            : null;
  }

  /**
   * The instruments that the topics beyond a consumer's limit share under the name {@code
   * overflowTopic}; they keep no fetch history, since partition 0 of one topic says nothing about
   * partition 0 of another.
   */
  static ConsumerTopicInstruments shared(
      String overflowTopic,
      String groupId,
      MetricsRegistry registry,
      MicrometerBridge micrometer,
      TailThresholds tailThresholds) {
    return new ConsumerTopicInstruments(
        overflowTopic, groupId, registry, micrometer, tailThresholds, false);
  }

  /**
   * The tail threshold of {@code P - L} on {@code LogAppendTime} records, made at the first one: an
   * {@code auto} one follows a histogram of its own ({@code window().histogram()}), which the
   * caller feeds and nothing else reads: {@code P - L} is not the end-to-end latency.
   */
  TailThreshold appendTailThreshold() {
    TailThreshold threshold = appendTailThreshold;
    if (threshold == null) {
      threshold =
          tailThresholds == null
              ? TailThreshold.NEVER
              : tailThresholds.forConsumer(topic, new LatencyHistogram());
      appendTailThreshold = threshold;
    }
    return threshold;
  }

  /**
   * {@link TailTraceIds#topicHash} of a record's topic: kept for this topic, computed for a topic
   * of {@link #shared} instruments, which name no one topic (only tail spans ask, a few a second).
   */
  long topicHash(String recordTopic) {
    return keepsHistories ? topicHash : TailTraceIds.topicHash(recordTopic);
  }

  /** The lag gauge of a partition; a lookup in an array after the partition's first poll. */
  Gauge lag(int partition) {
    if (partition < 0 || partition > MAX_PARTITION) {
      return null;
    }
    Gauge[] gauges = lagByPartition;
    if (partition < gauges.length && gauges[partition] != null) {
      return gauges[partition];
    }
    Gauge created =
        registry.gauge(MetricDef.CONSUMER_LAG_TIME, topic, groupId, Integer.toString(partition));
    lagByPartition = withSlot(gauges, partition, created);
    return created;
  }

  /**
   * What the previous fetch response of a partition said, or null for a partition number no topic
   * has or on {@link #shared} instruments; a lookup in an array after the partition's first poll.
   */
  PartitionFetchHistory history(int partition) {
    if (!keepsHistories || partition < 0 || partition > MAX_PARTITION) {
      return null;
    }
    PartitionFetchHistory[] histories = historyByPartition;
    if (partition < histories.length && histories[partition] != null) {
      return histories[partition];
    }
    PartitionFetchHistory created = new PartitionFetchHistory();
    historyByPartition = withSlot(histories, partition, created);
    return created;
  }

  /** A copy of {@code byPartition}, long enough for {@code partition}, holding {@code value}. */
  private static <T> T[] withSlot(T[] byPartition, int partition, T value) {
    T[] grown = Arrays.copyOf(byPartition, Math.max(byPartition.length, partition + 1));
    grown[partition] = value;
    return grown;
  }
}

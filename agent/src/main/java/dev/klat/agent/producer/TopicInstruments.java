package dev.klat.agent.producer;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.micrometer.MicrometerTimer;
import dev.klat.agent.tail.TailAdmission;
import dev.klat.agent.tail.TailThreshold;
import dev.klat.agent.tail.TailThresholds;
import dev.klat.model.MetricDef;
import dev.klat.model.TailTraceIds;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The instruments of one (topic, client id), resolved once so that acks do no lookups. */
final class TopicInstruments {

  final String topic;
  final LatencyHistogram produceLatency;
  final LatencyHistogram producerLatency;

  /**
   * The histograms' Micrometer timers: both null unless {@code klat.micrometer.enabled} and the
   * producer's Micrometer took them, so that the setting off costs one null check per batch.
   */
  final MicrometerTimer produceLatencyTimer;

  final MicrometerTimer producerLatencyTimer;

  /**
   * The topic's tail threshold for {@code A - S}: {@link TailThreshold#NEVER} when tail capture is
   * off, or for instruments made without a producer.
   */
  final TailThreshold tailThreshold;

  /** Records flagged above {@link #tailThreshold}; null while tail capture is off. */
  final Counter tailFlagged;

  /** The producer's fair cap on tail spans, shared by its topics; null while off. */
  final TailAdmission tailAdmission;

  /** {@link TailTraceIds#topicHash} of the topic, for tail spans' trace ids. */
  final long topicHash;

  /** The producer, for its settings on tail spans; null for instruments made without one. */
  final ProducerState producer;

  private final String clientId;
  private final MetricsRegistry registry;
  // Failures are rare and their reasons few: a map lookup there costs nothing that matters.
  private final ConcurrentMap<String, Counter> failuresByReason =
      new ConcurrentHashMap<String, Counter>();

  TopicInstruments(String topic, String clientId, MetricsRegistry registry) {
    this(topic, clientId, registry, null);
  }

  /** With {@code micrometer} null when the histograms are not mirrored into Micrometer. */
  TopicInstruments(
      String topic, String clientId, MetricsRegistry registry, MicrometerBridge micrometer) {
    this(topic, clientId, registry, micrometer, null, null, null);
  }

  /**
   * A producer's instruments with tail capture: {@code thresholds} and {@code admission} null (or
   * thresholds off) leave it off.
   */
  TopicInstruments(
      String topic,
      String clientId,
      MetricsRegistry registry,
      MicrometerBridge micrometer,
      ProducerState owner,
      TailThresholds thresholds,
      TailAdmission admission) {
    this.topic = topic;
    this.clientId = clientId;
    this.registry = registry;
    this.produceLatency = registry.histogram(MetricDef.PRODUCER_PRODUCE_LATENCY, topic, clientId);
    this.producerLatency = registry.histogram(MetricDef.PRODUCER_LATENCY, topic, clientId);
    MicrometerTimer produce =
        micrometer == null
            ? null
            : micrometer.timer(MetricDef.PRODUCER_PRODUCE_LATENCY, topic, clientId);
    MicrometerTimer producerTimer =
        produce == null ? null : micrometer.timer(MetricDef.PRODUCER_LATENCY, topic, clientId);
    // Both or neither, so that the ack path checks one of them.
    this.produceLatencyTimer = producerTimer == null ? null : produce;
    this.producerLatencyTimer = producerTimer;
    this.producer = owner;
    this.topicHash = TailTraceIds.topicHash(topic);
    boolean tail = owner != null && thresholds != null && thresholds.enabled() && admission != null;
    this.tailThreshold =
        tail ? thresholds.forProducer(topic, producerLatency) : TailThreshold.NEVER;
    this.tailFlagged =
        tail ? registry.counter(MetricDef.PRODUCER_TAIL_RECORDS_FLAGGED, topic, clientId) : null;
    this.tailAdmission = tail ? admission : null;
  }

  void countFailure(Exception exception, long records) {
    String reason = exception.getClass().getSimpleName();
    Counter counter = failuresByReason.get(reason);
    if (counter == null) {
      counter = registry.counter(MetricDef.PRODUCER_RECORDS_FAILED, topic, clientId, reason);
      Counter raced = failuresByReason.putIfAbsent(reason, counter);
      if (raced != null) {
        counter = raced;
      }
    }
    counter.add(records);
  }
}

package dev.klat.agent.producer;

import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.micrometer.MicrometerTimer;
import dev.klat.model.MetricDef;
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
    this.topic = topic;
    this.clientId = clientId;
    this.registry = registry;
    this.produceLatency = registry.histogram(MetricDef.PRODUCER_PRODUCE_LATENCY, topic, clientId);
    this.producerLatency = registry.histogram(MetricDef.PRODUCER_LATENCY, topic, clientId);
    MicrometerTimer produce =
        micrometer == null
            ? null
            : micrometer.timer(MetricDef.PRODUCER_PRODUCE_LATENCY, topic, clientId);
    MicrometerTimer producer =
        produce == null ? null : micrometer.timer(MetricDef.PRODUCER_LATENCY, topic, clientId);
    // Both or neither, so that the ack path checks one of them.
    this.produceLatencyTimer = producer == null ? null : produce;
    this.producerLatencyTimer = producer;
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

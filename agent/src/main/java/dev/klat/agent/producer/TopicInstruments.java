package dev.klat.agent.producer;

import dev.klat.agent.export.Counter;
import dev.klat.agent.export.LatencyHistogram;
import dev.klat.agent.export.MetricsRegistry;
import dev.klat.model.MetricDef;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The instruments of one (topic, client id), resolved once so that acks do no lookups. */
final class TopicInstruments {

  final String topic;
  final LatencyHistogram produceLatency;
  final LatencyHistogram producerLatency;
  private final String clientId;
  private final MetricsRegistry registry;
  // Failures are rare and their reasons few: a map lookup there costs nothing that matters.
  private final ConcurrentMap<String, Counter> failuresByReason =
      new ConcurrentHashMap<String, Counter>();

  TopicInstruments(String topic, String clientId, MetricsRegistry registry) {
    this.topic = topic;
    this.clientId = clientId;
    this.registry = registry;
    this.produceLatency = registry.histogram(MetricDef.PRODUCER_PRODUCE_LATENCY, topic, clientId);
    this.producerLatency = registry.histogram(MetricDef.PRODUCER_LATENCY, topic, clientId);
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

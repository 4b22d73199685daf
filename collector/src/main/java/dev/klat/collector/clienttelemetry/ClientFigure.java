package dev.klat.collector.clienttelemetry;

import java.util.List;

/**
 * A figure klat reads from a client's pushed metrics (KIP-714): the metric name stem a Java client
 * (its group and metric name, {@code -metrics} dropped, dots for dashes, under {@code
 * org.apache.kafka.}) and librdkafka both push, with {@code .avg} and {@code .max} after it. Where
 * a client pushes several points of one name (one per broker, per partition), the largest is kept:
 * the slowest broker's, the most lagging partition's.
 */
public enum ClientFigure {
  /** Time a record waited in the producer's accumulator before its batch was sent, in ms. */
  RECORD_QUEUE_TIME("recordQueueTimeMs", "org.apache.kafka.producer.record.queue.time"),
  /** Produce request latency, in ms. */
  REQUEST_LATENCY("requestLatencyMs", "org.apache.kafka.producer.request.latency"),
  /** Time the brokers throttled produce requests, in ms. */
  PRODUCE_THROTTLE_TIME("produceThrottleTimeMs", "org.apache.kafka.producer.produce.throttle.time"),
  /** Request latency of the slowest broker, producer or consumer, in ms. */
  NODE_REQUEST_LATENCY(
      "nodeRequestLatencyMs",
      "org.apache.kafka.producer.node.request.latency",
      "org.apache.kafka.consumer.node.request.latency"),
  /** Fetch request latency, in ms. */
  FETCH_LATENCY("fetchLatencyMs", "org.apache.kafka.consumer.fetch.manager.fetch.latency"),
  /** Offset commit latency, in ms. */
  COMMIT_LATENCY("commitLatencyMs", "org.apache.kafka.consumer.coordinator.commit.latency"),
  /** Rebalance latency, in ms. */
  REBALANCE_LATENCY(
      "rebalanceLatencyMs", "org.apache.kafka.consumer.coordinator.rebalance.latency"),
  /** Time between the application's poll calls, in ms (Java clients). */
  TIME_BETWEEN_POLL("timeBetweenPollMs", "org.apache.kafka.consumer.time.between.poll"),
  /** Share of time the consumer waited in poll for records, 0 to 1 (avg only). */
  POLL_IDLE_RATIO("pollIdleRatio", "org.apache.kafka.consumer.poll.idle.ratio"),
  /** Records behind the log end of the most lagging partition (max only). */
  RECORDS_LAG("recordsLag", "org.apache.kafka.consumer.fetch.manager.records.lag");

  /** The names of {@code /api/clients}' {@code metrics} object. */
  private final String json;

  private final List<String> stems;

  ClientFigure(String json, String... stems) {
    this.json = json;
    this.stems = List.of(stems);
  }

  /** The figure's name in {@code /api/clients}. */
  public String json() {
    return json;
  }

  /** The KIP-714 metric names, without {@code .avg} / {@code .max}. */
  public List<String> stems() {
    return stems;
  }

  /** The figure and stat a KIP-714 metric name is, or null when klat does not read it. */
  static Named of(String metricName) {
    boolean avg = metricName.endsWith(".avg");
    if (!avg && !metricName.endsWith(".max")) {
      return null;
    }
    String stem = metricName.substring(0, metricName.length() - 4);
    for (ClientFigure f : values()) {
      if (f.stems.contains(stem)) {
        return new Named(f, avg);
      }
    }
    return null;
  }

  /** A figure and which of its stats a point holds. */
  record Named(ClientFigure figure, boolean avg) {}
}

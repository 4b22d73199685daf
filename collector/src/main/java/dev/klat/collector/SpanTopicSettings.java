package dev.klat.collector;

/**
 * Where the ingest and join roles meet (docs/scale-out.md).
 *
 * @param bootstrapServers the Kafka cluster carrying the spans
 * @param spansTopic OTLP {@code ExportTraceServiceRequest}s, one trace each, keyed by trace id
 * @param metricsTopic OTLP {@code ExportMetricsServiceRequest}s, keyed by agent instance
 * @param logsTopic the broker probes' OTLP {@code ExportLogsServiceRequest}s, read whole by every
 *     join member
 * @param group the join members' consumer group
 * @param partitions partitions of each topic the collector creates
 * @param replicationFactor replicas of each topic it creates (at most the brokers there are)
 * @param client the client properties of every client of this cluster ({@code spans.kafka.config})
 */
public record SpanTopicSettings(
    String bootstrapServers,
    String spansTopic,
    String metricsTopic,
    String logsTopic,
    String group,
    int partitions,
    short replicationFactor,
    KafkaClientConfig client) {

  /** Plaintext clients. */
  public SpanTopicSettings(
      String bootstrapServers,
      String spansTopic,
      String metricsTopic,
      String logsTopic,
      String group,
      int partitions,
      short replicationFactor) {
    this(
        bootstrapServers,
        spansTopic,
        metricsTopic,
        logsTopic,
        group,
        partitions,
        replicationFactor,
        KafkaClientConfig.none("spans.kafka.config"));
  }

  /**
   * Reads the {@code spans.kafka.*} settings.
   *
   * @throws IllegalArgumentException naming the key of a missing or bad value
   */
  static SpanTopicSettings read(CollectorConfig config) {
    String bootstrap = config.string("spans.kafka.bootstrap-servers").trim();
    if (bootstrap.isEmpty()) {
      throw new IllegalArgumentException(
          "mode "
              + config.string("mode").trim()
              + " needs spans.kafka.bootstrap-servers: the Kafka cluster that carries the spans"
              + " between the ingest and join roles");
    }
    // At most Short.MAX_VALUE by its type (CollectorKey.SPANS_KAFKA_REPLICATION_FACTOR).
    int replicationFactor = config.positiveInt("spans.kafka.replication-factor");
    return new SpanTopicSettings(
        bootstrap,
        nonEmpty(config, "spans.kafka.topic"),
        nonEmpty(config, "spans.kafka.metrics-topic"),
        nonEmpty(config, "spans.kafka.logs-topic"),
        nonEmpty(config, "spans.kafka.group"),
        config.positiveInt("spans.kafka.partitions"),
        (short) replicationFactor,
        KafkaClientConfig.read("spans.kafka.config", config.string("spans.kafka.config")));
  }

  private static String nonEmpty(CollectorConfig config, String key) {
    String v = config.string(key).trim();
    if (v.isEmpty()) {
      throw new IllegalArgumentException(key + " must not be empty");
    }
    return v;
  }
}

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
 */
public record SpanTopicSettings(
    String bootstrapServers,
    String spansTopic,
    String metricsTopic,
    String logsTopic,
    String group,
    int partitions,
    short replicationFactor) {}

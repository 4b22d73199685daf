package dev.klat.collector;

import dev.klat.model.SettingDef;
import dev.klat.model.SettingType;

/**
 * Every setting of the collector with its type, default and old spellings, in the order of the
 * documentation ({@code docs/collector.md}, the {@code spans.kafka} ones in {@code
 * docs/scale-out.md}), whose tables a test keeps in step with this enum. Keys follow the naming
 * rule of {@code docs/configuration.md} ("Naming"); the old dotted spellings, and the {@code .ms}
 * keys that took milliseconds, are still read with a warning.
 */
enum CollectorKey {
  MODE("mode", SettingType.choice("all", "ingest", "join"), "all"),
  SPANS_KAFKA_BOOTSTRAP_SERVERS(
      "spans.kafka.bootstrap-servers", SettingType.text("host:port list"), ""),
  SPANS_KAFKA_TOPIC("spans.kafka.topic", SettingType.text("topic"), "klat-spans"),
  SPANS_KAFKA_METRICS_TOPIC(
      "spans.kafka.metrics-topic",
      SettingType.text("topic"),
      "klat-metrics",
      "spans.kafka.metrics.topic"),
  SPANS_KAFKA_LOGS_TOPIC(
      "spans.kafka.logs-topic", SettingType.text("topic"), "klat-logs", "spans.kafka.logs.topic"),
  SPANS_KAFKA_GROUP("spans.kafka.group", SettingType.text("group id"), "klat-collector"),
  SPANS_KAFKA_PARTITIONS("spans.kafka.partitions", positiveInt(), "12"),
  SPANS_KAFKA_REPLICATION_FACTOR(
      "spans.kafka.replication-factor",
      SettingType.integer(1, Short.MAX_VALUE),
      "3",
      "spans.kafka.replication.factor"),
  SPANS_KAFKA_SESSION_TIMEOUT(
      "spans.kafka.session-timeout", positiveDuration(), "45s", "spans.kafka.session.timeout"),
  OTLP_HTTP_HOST("otlp.http.host", SettingType.text("host"), "127.0.0.1"),
  OTLP_HTTP_PORT("otlp.http.port", SettingType.port(), "4318"),
  OTLP_MAX_BODY_BYTES(
      "otlp.max-body-bytes",
      positiveInt(),
      Integer.toString(16 * 1024 * 1024),
      "otlp.max.body.bytes"),
  OTLP_MAX_CONCURRENT_REQUESTS(
      "otlp.max-concurrent-requests", positiveInt(), "4", "otlp.max.concurrent.requests"),
  OTLP_MAX_RECEIVING_BYTES(
      "otlp.max-receiving-bytes",
      SettingType.integer(1, Long.MAX_VALUE),
      Long.toString(64L * 1024 * 1024)),
  OTLP_READ_TIMEOUT("otlp.read-timeout", SettingType.duration(1000, Long.MAX_VALUE), "10s"),
  OTLP_GRPC_ENABLED("otlp.grpc.enabled", SettingType.bool(), "true"),
  OTLP_GRPC_HOST("otlp.grpc.host", SettingType.text("host"), "127.0.0.1"),
  OTLP_GRPC_PORT("otlp.grpc.port", SettingType.port(), "4317"),
  ADMIN_HOST("admin.host", SettingType.text("host"), "127.0.0.1"),
  ADMIN_PORT("admin.port", SettingType.port(), "9464"),
  // The listeners' TLS and tokens (docs/security.md), as the OpenTelemetry Collector names them.
  TLS_CERT_FILE("tls.cert-file", SettingType.text("path"), ""),
  TLS_KEY_FILE("tls.key-file", SettingType.text("path"), ""),
  TLS_CLIENT_CA_FILE("tls.client-ca-file", SettingType.text("path"), ""),
  OTLP_TLS_CLIENT_AUTH("otlp.tls-client-auth", clientAuth().orEmpty(), ""),
  ADMIN_TLS_CLIENT_AUTH("admin.tls-client-auth", clientAuth(), "none"),
  OTLP_AUTH_TOKENS_FILE("otlp.auth-tokens-file", SettingType.text("path"), ""),
  ADMIN_AUTH_TOKENS_FILE("admin.auth-tokens-file", SettingType.text("path"), ""),
  JOIN_WINDOW("join.window", positiveDuration(), "60s", "join.window.ms"),
  JOIN_MAX_PENDING_RECORDS(
      "join.max-pending-records", positiveInt(), "500000", "join.max.pending.records"),
  CLOCK_WINDOW("clock.window", positiveDuration(), "5m", "clock.window.ms"),
  PROBE_MAX_PARTITIONS("probe.max-partitions", positiveInt(), "4096", "probe.max.partitions"),
  // A ceiling: probe.retention sets how long ranges are kept, within probe.max-bytes.
  PROBE_MAX_RANGES_PER_TERM(
      "probe.max-ranges-per-term", positiveInt(), "262144", "probe.max.ranges.per.term"),
  PROBE_RETENTION("probe.retention", positiveDuration(), "2m"),
  CLOCK_MAX_PAIRS("clock.max-pairs", positiveInt(), "10000", "clock.max.pairs"),
  METRICS_MAX_STREAMS("metrics.max-streams", positiveInt(), "20000", "metrics.max.streams"),
  METRICS_GAUGE_STALE(
      "metrics.gauge-stale",
      positiveDuration(),
      "5m",
      "metrics.gauge.stale",
      "metrics.gauge.stale.ms"),
  METRICS_MAX_TOPIC_GROUPS(
      "metrics.max-topic-groups", positiveInt(), "1000", "metrics.max.topic.groups"),
  // Bounds in bytes and labels against hostile input (docs/security.md).
  METRICS_MAX_BROKERS("metrics.max-brokers", positiveInt(), "64"),
  METRICS_MAX_BYTES("metrics.max-bytes", SettingType.integer(4096, Integer.MAX_VALUE), "33554432"),
  JOIN_MAX_PENDING_BYTES("join.max-pending-bytes", positiveInt(), "268435456"),
  // Tail spans waiting for a partner: their own budget, so they never evict a sampled record.
  JOIN_MAX_PENDING_TAIL_BYTES("join.max-pending-tail-bytes", positiveInt(), "67108864"),
  JOIN_MAX_GROUPS_PER_RECORD("join.max-groups-per-record", positiveInt(), "64"),
  PROBE_MAX_BYTES("probe.max-bytes", positiveInt(), "134217728"),
  CLOCK_MAX_STEP("clock.max-step", positiveDuration(), "1s"),
  API_RECENT_BREAKDOWNS("api.recent-breakdowns", positiveInt(), "100000", "api.recent.breakdowns"),
  DIAGNOSIS_WINDOW("diagnosis.window", positiveDuration(), "5m", "diagnosis.window.ms"),
  DIAGNOSIS_INTERVAL("diagnosis.interval", positiveDuration(), "15s", "diagnosis.interval.ms"),
  DIAGNOSIS_MAX_TOPIC_GROUPS(
      "diagnosis.max-topic-groups", positiveInt(), "20", "diagnosis.max.topic.groups"),
  // Each sample reads every recent breakdown once per pair: not more often than every second.
  HISTORY_INTERVAL(
      "history.interval",
      SettingType.duration(1_000, Long.MAX_VALUE),
      "10s",
      "history.interval.ms"),
  HISTORY_RETENTION("history.retention", positiveDuration(), "1h", "history.retention.ms"),
  HISTORY_MAX_TOPIC_GROUPS(
      "history.max-topic-groups", positiveInt(), "20", "history.max.topic.groups"),
  // The clients' own figures pushed through the brokers (KIP-714, docs/client-telemetry.md).
  CLIENTS_MAX_INSTANCES("clients.max-instances", positiveInt(), "1000"),
  CLIENTS_MAX_BYTES("clients.max-bytes", SettingType.integer(4096, Long.MAX_VALUE), "16777216"),
  CLIENTS_STALE_AFTER("clients.stale-after", positiveDuration(), "15m"),
  PIPELINE_NAMES("pipeline.names", SettingType.text("name=topic/group list"), ""),
  PIPELINE_MAX_PIPELINES("pipeline.max-pipelines", positiveInt(), "50"),
  TRACES_ENDPOINT("traces.endpoint", SettingType.url().orEmpty(), ""),
  TRACES_QUEUE_SIZE("traces.queue-size", positiveInt(), "10000", "traces.queue.size"),
  // The trace exporter's headers and TLS, as OTEL_EXPORTER_OTLP_TRACES_* name them.
  TRACES_HEADERS("traces.headers", SettingType.text("key=value list"), ""),
  TRACES_CERTIFICATE("traces.certificate", SettingType.text("path"), ""),
  TRACES_CLIENT_CERTIFICATE("traces.client.certificate", SettingType.text("path"), ""),
  TRACES_CLIENT_KEY("traces.client.key", SettingType.text("path"), ""),
  BROKERS_EXPORTER("brokers.exporter", SettingType.text("list"), ""),
  BROKERS_JMX("brokers.jmx", SettingType.text("list"), ""),
  BROKERS_BOOTSTRAP("brokers.bootstrap", SettingType.text("host:port list"), ""),
  BROKERS_EXPORTER_PORT(
      "brokers.exporter-port", SettingType.port().orEmpty(), "", "brokers.exporter.port"),
  BROKERS_JMX_PORT("brokers.jmx-port", SettingType.port().orEmpty(), "", "brokers.jmx.port"),
  BROKERS_DISCOVERY_INTERVAL(
      "brokers.discovery-interval",
      positiveDuration(),
      "30s",
      "brokers.discovery.interval",
      "brokers.discovery.interval.ms"),
  BROKERS_SCRAPE_INTERVAL(
      "brokers.scrape-interval",
      positiveDuration(),
      "5s",
      "brokers.scrape.interval",
      "brokers.scrape.interval.ms"),
  BROKERS_STALE("brokers.stale", positiveDuration(), "30s", "brokers.stale.ms"),
  BROKERS_HISTORY("brokers.history", positiveDuration(), "10m", "brokers.history.ms"),
  BROKERS_CONNECT_TIMEOUT(
      "brokers.connect-timeout",
      positiveDuration(),
      "2s",
      "brokers.connect.timeout",
      "brokers.connect.timeout.ms"),
  BROKERS_READ_TIMEOUT(
      "brokers.read-timeout",
      positiveDuration(),
      "5s",
      "brokers.read.timeout",
      "brokers.read.timeout.ms"),
  // How the collector reaches secured clusters, JMX agents and exporters (docs/security.md).
  BROKERS_KAFKA_CONFIG("brokers.kafka-config", SettingType.text("path"), ""),
  SPANS_KAFKA_CONFIG("spans.kafka.config", SettingType.text("path"), ""),
  BROKERS_JMX_USERNAME("brokers.jmx-username", SettingType.text("user"), ""),
  BROKERS_JMX_PASSWORD_FILE("brokers.jmx-password-file", SettingType.text("path"), ""),
  BROKERS_JMX_SSL("brokers.jmx-ssl", SettingType.bool(), "false"),
  BROKERS_EXPORTER_USERNAME("brokers.exporter-username", SettingType.text("user"), ""),
  BROKERS_EXPORTER_PASSWORD_FILE("brokers.exporter-password-file", SettingType.text("path"), ""),
  BROKERS_EXPORTER_TOKEN_FILE("brokers.exporter-token-file", SettingType.text("path"), ""),
  BROKERS_EXPORTER_CERTIFICATE("brokers.exporter-certificate", SettingType.text("path"), "");

  /** The prefix of a key as a system property, and (mapped) as an environment variable. */
  static final String PROPERTY_PREFIX = "klat.collector.";

  /**
   * The key (as a flag and in the file, for example {@code otlp.max-body-bytes}), its environment
   * variable ({@code KLAT_COLLECTOR_OTLP_MAX_BODY_BYTES}), type, default (empty for none) and old
   * spellings (the dotted names, and the {@code .ms} keys).
   */
  final SettingDef setting;

  CollectorKey(String key, SettingType type, String defaultValue, String... oldKeys) {
    this.setting = new SettingDef(PROPERTY_PREFIX, key, type, defaultValue, oldKeys);
  }

  /** The setting whose key or old spelling is {@code name}, or null. */
  static CollectorKey byName(String name) {
    for (CollectorKey k : values()) {
      if (k.setting.key().equals(name) || k.setting.hasOldKey(name)) {
        return k;
      }
    }
    return null;
  }

  /** The setting whose key is {@code key} (not an old spelling), or null. */
  static CollectorKey byKey(String key) {
    for (CollectorKey k : values()) {
      if (k.setting.key().equals(key)) {
        return k;
      }
    }
    return null;
  }

  private static SettingType positiveInt() {
    return SettingType.integer(1, Integer.MAX_VALUE);
  }

  private static SettingType clientAuth() {
    return SettingType.choice("none", "want", "need");
  }

  private static SettingType positiveDuration() {
    return SettingType.duration(1, Long.MAX_VALUE);
  }
}

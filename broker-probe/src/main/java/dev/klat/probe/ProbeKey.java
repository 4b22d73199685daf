package dev.klat.probe;

import dev.klat.model.SettingDef;
import dev.klat.model.SettingType;

/**
 * Every setting of the broker probe with its type, default and old spellings, named by the rule of
 * docs/configuration.md ("Naming"). The meanings are in docs/broker-probe.md, whose table a test
 * keeps in step with this enum: environment variable, type and default.
 */
enum ProbeKey {
  ENABLED("klat.enabled", SettingType.bool(), "true"),
  ENDPOINT("klat.endpoint", SettingType.url(), "http://127.0.0.1:4318"),
  SERVICE_NAME("klat.service.name", SettingType.text("string"), "kafka-broker"),
  EXPORT_INTERVAL("klat.probe.export-interval", SettingType.duration(10, 10_000), "200ms"),
  // 0 sends every batch as its own range.
  RESOLUTION("klat.probe.resolution", SettingType.duration(0, 1_000), "1ms"),
  // 32,768 slots keep each of the ring's arrays at 256 KiB, below half of G1's smallest region: a
  // 65,536-slot ring's 512 KiB long arrays each took a whole 1 MiB region on heaps under 2 GiB.
  QUEUE_SIZE("klat.probe.queue-size", SettingType.integer(1024, 1 << 24), "32768"),
  MAX_PARTITIONS("klat.probe.max-partitions", SettingType.integer(1, 10_000_000), "20000"),
  MAX_RANGES_PER_PARTITION(
      "klat.probe.max-ranges-per-partition", SettingType.integer(16, 1 << 20), "1024"),
  // The client telemetry forwarder's queue (ClientTelemetryForwarder): pushes waiting for its
  // thread, bounded in count and in bytes; a push beyond either is dropped and counted.
  CLIENT_TELEMETRY_QUEUE_SIZE(
      "klat.probe.telemetry.queue-size", SettingType.integer(16, 1 << 20), "1024"),
  CLIENT_TELEMETRY_QUEUE_BYTES(
      "klat.probe.telemetry.queue-bytes", SettingType.integer(1 << 20, 1 << 30), "16777216"),
  // Off by default, unlike the agents: packed ranges are small and compress little, and a
  // Deflater per request costs the broker more CPU than the bytes it saves.
  EXPORT_GZIP("klat.export.gzip", SettingType.bool(), "false"),
  EXPORT_TIMEOUT("klat.export.timeout", SettingType.duration(100, 600_000), "10s"),
  // The export's credentials, read as the client agent reads them (agent-core's auth package).
  EXPORT_HEADERS("klat.export.headers", SettingType.text("list of name=value"), null),
  EXPORT_CERTIFICATE("klat.export.certificate", SettingType.text("path"), null),
  EXPORT_CLIENT_CERTIFICATE("klat.export.client.certificate", SettingType.text("path"), null),
  EXPORT_CLIENT_KEY("klat.export.client.key", SettingType.text("path"), null),
  LOG_LEVEL("klat.log.level", SettingType.choice("off", "error", "warn", "info", "debug"), "info");

  /** The system property, its environment variable, type, default and old spellings. */
  final SettingDef setting;

  ProbeKey(String key, SettingType type, String defaultValue, String... oldKeys) {
    this.setting = new SettingDef(key, type, defaultValue, oldKeys);
  }
}

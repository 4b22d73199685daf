package dev.klat.agent.config;

import dev.klat.model.SettingDef;
import dev.klat.model.SettingType;

/**
 * Every configuration key with its type, default and old spellings; the single list the loader
 * checks names against. Keys follow the naming rule of {@code docs/configuration.md} ("Naming").
 * The meaning of each key is documented on its {@link AgentConfig} accessor and in {@code
 * docs/configuration.md}, whose table a test keeps in step with this enum: environment variable,
 * type, default and old spellings.
 */
enum ConfigKey {
  ENABLED("klat.enabled", SettingType.bool(), "true"),
  ENDPOINT("klat.endpoint", SettingType.url(), "http://127.0.0.1:4318"),
  /**
   * No fixed default: {@code OTEL_SERVICE_NAME}, else {@link AgentConfig#FALLBACK_SERVICE_NAME}.
   */
  SERVICE_NAME("klat.service.name", SettingType.text("string"), null),
  SAMPLING_PROBABILITY("klat.sampling.probability", SettingType.decimal(0, 1), "0.01"),
  SAMPLING_MAX_PER_SECOND(
      "klat.sampling.max-per-second", SettingType.decimal(0, Double.POSITIVE_INFINITY), "100"),
  TOPICS_INCLUDE("klat.topics.include", SettingType.text("regex"), ".*"),
  TOPICS_EXCLUDE("klat.topics.exclude", SettingType.text("regex"), "__.*|_confluent.*|_schemas"),
  HEADERS_ENABLED("klat.headers.enabled", SettingType.bool(), "true"),
  TAIL_ENABLED("klat.tail.enabled", SettingType.bool(), "true"),
  /**
   * Issue 44's contract named it {@code klat.tail.producer.threshold}, which the naming rule
   * refuses ({@code producer} would be a level of one setting); that spelling is still read.
   */
  TAIL_PRODUCER_THRESHOLD(
      "klat.tail.producer-threshold",
      SettingType.text("auto, duration or [topic=]value list"),
      "auto",
      "klat.tail.producer.threshold"),
  /** As {@link #TAIL_PRODUCER_THRESHOLD}: {@code klat.tail.consumer.threshold} is still read. */
  TAIL_CONSUMER_THRESHOLD(
      "klat.tail.consumer-threshold",
      SettingType.text("auto, duration or [topic=]value list"),
      "auto",
      "klat.tail.consumer.threshold"),
  TAIL_MAX_PER_SECOND(
      "klat.tail.max-per-second", SettingType.integer(0, AgentConfig.MAX_TAIL_PER_SECOND), "100"),
  METRICS_INTERVAL(
      "klat.metrics.interval",
      SettingType.duration(AgentConfig.MIN_METRICS_INTERVAL_MILLIS, Long.MAX_VALUE),
      "10s"),
  EXPORT_QUEUE_SIZE(
      "klat.export.queue-size",
      SettingType.integer(1, Integer.MAX_VALUE),
      "2048",
      "klat.export.queue.size"),
  EXPORT_TIMEOUT("klat.export.timeout", SettingType.duration(1, Long.MAX_VALUE), "10s"),
  EXPORT_GZIP("klat.export.gzip", SettingType.bool(), "true"),
  /** A secret: a bad value is reported without quoting it. */
  EXPORT_HEADERS("klat.export.headers", SettingType.text("list of name=value"), null),
  EXPORT_CERTIFICATE("klat.export.certificate", SettingType.text("path"), null),
  EXPORT_CLIENT_CERTIFICATE("klat.export.client.certificate", SettingType.text("path"), null),
  EXPORT_CLIENT_KEY("klat.export.client.key", SettingType.text("path"), null),
  MICROMETER_ENABLED("klat.micrometer.enabled", SettingType.bool(), "false"),
  LOG_LEVEL("klat.log.level", SettingType.choice("off", "error", "warn", "info", "debug"), "info"),
  /** For tests only: shifts the agent's wall clock, as if the host's clock were wrong. */
  TEST_CLOCK_OFFSET("klat.test.clock-offset", SettingType.text("signed duration"), "0"),
  /** Read from system properties and the environment only, never from the file itself. */
  CONFIG_FILE("klat.config.file", SettingType.text("path"), null);

  static final String PREFIX = "klat.";
  static final String ENV_PREFIX = "KLAT_";

  /** The key, its environment variable, type, default and old spellings. */
  final SettingDef setting;

  ConfigKey(String key, SettingType type, String defaultValue, String... oldKeys) {
    this.setting = new SettingDef(key, type, defaultValue, oldKeys);
  }

  static ConfigKey byKey(String key) {
    for (ConfigKey k : values()) {
      if (k.setting.key().equals(key)) {
        return k;
      }
    }
    return null;
  }

  /** The key that {@code name} is an old spelling of, or null. */
  static ConfigKey byOldKey(String name) {
    for (ConfigKey k : values()) {
      if (k.setting.hasOldKey(name)) {
        return k;
      }
    }
    return null;
  }

  /** The key whose environment variable, or one of its old spellings', is {@code envName}. */
  static ConfigKey byEnvName(String envName) {
    for (ConfigKey k : values()) {
      if (k.setting.hasEnvName(envName)) {
        return k;
      }
    }
    return null;
  }

  /**
   * The known name closest to {@code unknown} (a key, or an environment variable when {@code env}),
   * if it is within edit distance 2 or differs only in separators and case; else null.
   */
  static String suggest(String unknown, boolean env) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    String squashedUnknown = squash(unknown);
    for (ConfigKey k : values()) {
      String candidate = env ? k.setting.envName() : k.setting.key();
      int distance = editDistance(unknown, candidate);
      if (distance > 2 && squash(candidate).equals(squashedUnknown)) {
        distance = 2;
      }
      if (distance <= 2 && distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best;
  }

  private static String squash(String name) {
    StringBuilder sb = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c != '.' && c != '-' && c != '_') {
        sb.append(Character.toLowerCase(c));
      }
    }
    return sb.toString();
  }

  /** Levenshtein distance. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}

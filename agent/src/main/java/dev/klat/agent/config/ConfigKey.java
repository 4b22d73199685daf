package dev.klat.agent.config;

import java.util.Locale;

/**
 * Every configuration key with its default; the single list the loader checks names against. The
 * meaning of each key is documented on its {@link AgentConfig} accessor and in {@code
 * docs/configuration.md}, which a test keeps in step with this enum.
 */
enum ConfigKey {
  ENABLED("klat.enabled", "true"),
  ENDPOINT("klat.endpoint", "http://127.0.0.1:4318"),
  /**
   * No fixed default: {@code OTEL_SERVICE_NAME}, else {@link AgentConfig#FALLBACK_SERVICE_NAME}.
   */
  SERVICE_NAME("klat.service.name", null),
  SAMPLING_PROBABILITY("klat.sampling.probability", "0.01"),
  SAMPLING_MAX_PER_SECOND("klat.sampling.max-per-second", "100"),
  TOPICS_INCLUDE("klat.topics.include", ".*"),
  TOPICS_EXCLUDE("klat.topics.exclude", "__.*|_confluent.*|_schemas"),
  HEADERS_ENABLED("klat.headers.enabled", "true"),
  METRICS_INTERVAL("klat.metrics.interval", "10s"),
  EXPORT_QUEUE_SIZE("klat.export.queue.size", "2048"),
  EXPORT_TIMEOUT("klat.export.timeout", "10s"),
  EXPORT_GZIP("klat.export.gzip", "true"),
  MICROMETER_ENABLED("klat.micrometer.enabled", "false"),
  LOG_LEVEL("klat.log.level", "info"),
  /** For tests only: shifts the agent's wall clock, as if the host's clock were wrong. */
  TEST_CLOCK_OFFSET("klat.test.clock-offset", "0"),
  /** Read from system properties and the environment only, never from the file itself. */
  CONFIG_FILE("klat.config.file", null);

  static final String PREFIX = "klat.";
  static final String ENV_PREFIX = "KLAT_";

  /** The system property and file key, for example {@code klat.sampling.max-per-second}. */
  final String key;

  /** The environment variable, for example {@code KLAT_SAMPLING_MAX_PER_SECOND}. */
  final String envName;

  /** The default in the syntax a user would write, parsed like a user value; null if none. */
  final String defaultValue;

  ConfigKey(String key, String defaultValue) {
    this.key = key;
    this.envName = toEnvName(key);
    this.defaultValue = defaultValue;
  }

  /** Upper case, with '.' and '-' replaced by '_': the OpenTelemetry and Datadog agents' rule. */
  static String toEnvName(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  static ConfigKey byKey(String key) {
    for (ConfigKey k : values()) {
      if (k.key.equals(key)) {
        return k;
      }
    }
    return null;
  }

  static ConfigKey byEnvName(String envName) {
    for (ConfigKey k : values()) {
      if (k.envName.equals(envName)) {
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
      String candidate = env ? k.envName : k.key;
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

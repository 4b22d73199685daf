package dev.klat.collector;

import dev.klat.collector.broker.BrokerEndpoints;
import dev.klat.collector.broker.BrokerSettings;
import dev.klat.model.Durations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The collector's settings. Each key {@code k} (for example {@code join.window}) can be given, from
 * highest precedence to lowest, as a flag {@code --k=value}, a system property {@code
 * klat.collector.k}, an environment variable {@code KLAT_COLLECTOR_K} (dots and dashes become
 * underscores, upper case), or a line {@code k=value} in the properties file named by {@code
 * --config=path}. Every key, with its default, is listed in {@code docs/collector.md}. An unknown
 * key is a warning; a bad value fails start-up with a message naming the key.
 */
public final class CollectorConfig {
  /** Every key with its default, in the order of the documentation. */
  static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

  static {
    DEFAULTS.put("mode", "all");
    DEFAULTS.put("spans.kafka.bootstrap-servers", "");
    DEFAULTS.put("spans.kafka.topic", "klat-spans");
    DEFAULTS.put("spans.kafka.metrics.topic", "klat-metrics");
    DEFAULTS.put("spans.kafka.logs.topic", "klat-logs");
    DEFAULTS.put("spans.kafka.group", "klat-collector");
    DEFAULTS.put("spans.kafka.partitions", "12");
    DEFAULTS.put("spans.kafka.replication.factor", "3");
    DEFAULTS.put("spans.kafka.session.timeout", "45s");
    DEFAULTS.put("otlp.http.host", "127.0.0.1");
    DEFAULTS.put("otlp.http.port", "4318");
    DEFAULTS.put("otlp.max.body.bytes", Integer.toString(16 * 1024 * 1024));
    DEFAULTS.put("otlp.max.concurrent.requests", "4");
    DEFAULTS.put("otlp.grpc.enabled", "true");
    DEFAULTS.put("otlp.grpc.host", "127.0.0.1");
    DEFAULTS.put("otlp.grpc.port", "4317");
    DEFAULTS.put("admin.host", "127.0.0.1");
    DEFAULTS.put("admin.port", "9464");
    DEFAULTS.put("join.window", "60s");
    DEFAULTS.put("join.max.pending.records", "500000");
    DEFAULTS.put("clock.window", "5m");
    DEFAULTS.put("probe.max.partitions", "4096");
    DEFAULTS.put("probe.max.ranges.per.term", "4096");
    DEFAULTS.put("clock.max.pairs", "10000");
    DEFAULTS.put("metrics.max.streams", "20000");
    DEFAULTS.put("metrics.gauge.stale", "5m");
    DEFAULTS.put("metrics.max.topic.groups", "1000");
    DEFAULTS.put("api.recent.breakdowns", "100000");
    DEFAULTS.put("diagnosis.window", "5m");
    DEFAULTS.put("diagnosis.interval", "15s");
    DEFAULTS.put("diagnosis.max.topic.groups", "20");
    DEFAULTS.put("history.interval", "10s");
    DEFAULTS.put("history.retention", "1h");
    DEFAULTS.put("history.max.topic.groups", "20");
    DEFAULTS.put("traces.endpoint", "");
    DEFAULTS.put("traces.queue.size", "10000");
    DEFAULTS.put("brokers.exporter", "");
    DEFAULTS.put("brokers.jmx", "");
    DEFAULTS.put("brokers.bootstrap", "");
    DEFAULTS.put("brokers.exporter.port", "");
    DEFAULTS.put("brokers.jmx.port", "");
    DEFAULTS.put("brokers.discovery.interval", "30s");
    DEFAULTS.put("brokers.scrape.interval", "5s");
    DEFAULTS.put("brokers.stale", "30s");
    DEFAULTS.put("brokers.history", "10m");
    DEFAULTS.put("brokers.connect.timeout", "2s");
    DEFAULTS.put("brokers.read.timeout", "5s");
  }

  /**
   * Durations, written as the agent writes them ({@link Durations}); each was once a key ending in
   * {@code .ms} that took milliseconds, still read, with a warning.
   */
  private static final List<String> DURATION_KEYS =
      List.of(
          "join.window",
          "clock.window",
          "metrics.gauge.stale",
          "brokers.discovery.interval",
          "brokers.scrape.interval",
          "brokers.stale",
          "brokers.history",
          "brokers.connect.timeout",
          "brokers.read.timeout",
          "diagnosis.window",
          "diagnosis.interval",
          "history.interval",
          "history.retention");

  static final String PROPERTY_PREFIX = "klat.collector.";
  static final String ENV_PREFIX = "KLAT_COLLECTOR_";

  private final Map<String, String> values;
  private final List<String> warnings;

  private CollectorConfig(Map<String, String> values, List<String> warnings) {
    this.values = values;
    this.warnings = warnings;
  }

  /** The defaults, with the given keys overridden; for tests and embedding. */
  public static CollectorConfig of(Map<String, String> overrides) {
    Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
    List<String> warnings = new ArrayList<>();
    overrides.forEach((k, v) -> put(values, warnings, k, v, "override"));
    CollectorConfig config = new CollectorConfig(values, warnings);
    config.validate();
    return config;
  }

  /**
   * Reads flags, system properties, environment and the optional file.
   *
   * @throws IllegalArgumentException for a bad flag or value, or an unreadable file
   */
  public static CollectorConfig parse(String[] args, Properties system, Map<String, String> env) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException(
            "unexpected argument " + arg + " (flags are --key=value)");
      }
      String body = arg.substring(2);
      int eq = body.indexOf('=');
      if (eq > 0) {
        flags.put(body.substring(0, eq), body.substring(eq + 1));
      } else if (i + 1 < args.length) {
        flags.put(body, args[++i]);
      } else {
        throw new IllegalArgumentException("flag --" + body + " needs a value");
      }
    }
    Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
    List<String> warnings = new ArrayList<>();
    String file = flags.remove("config");
    if (file == null) {
      file = system.getProperty(PROPERTY_PREFIX + "config", env.get(ENV_PREFIX + "CONFIG"));
    }
    if (file != null && !file.isEmpty()) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(Path.of(file))) {
        p.load(in);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read config file " + file + ": " + e, e);
      }
      for (String k : p.stringPropertyNames()) {
        String key = k.startsWith(PROPERTY_PREFIX) ? k.substring(PROPERTY_PREFIX.length()) : k;
        put(values, warnings, key, p.getProperty(k).trim(), file);
      }
    }
    for (String key : DEFAULTS.keySet()) {
      for (String name : DURATION_KEYS.contains(key) ? List.of(key + ".ms", key) : List.of(key)) {
        String v =
            env.get(ENV_PREFIX + name.replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT));
        if (v != null) {
          put(values, warnings, name, v.trim(), "environment");
        }
      }
    }
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(PROPERTY_PREFIX) && !name.equals(PROPERTY_PREFIX + "config")) {
        put(
            values,
            warnings,
            name.substring(PROPERTY_PREFIX.length()),
            system.getProperty(name),
            "system property");
      }
    }
    flags.forEach((k, v) -> put(values, warnings, k, v, "flag"));
    CollectorConfig config = new CollectorConfig(values, warnings);
    config.validate();
    return config;
  }

  private static void put(
      Map<String, String> values, List<String> warnings, String key, String value, String from) {
    if (key.endsWith(".ms") && DURATION_KEYS.contains(key.substring(0, key.length() - 3))) {
      String renamed = key.substring(0, key.length() - 3);
      warnings.add(
          key
              + " ("
              + from
              + ") is deprecated: use "
              + renamed
              + " with a unit, for example "
              + renamed
              + "="
              + DEFAULTS.get(renamed));
      key = renamed;
    }
    if (!DEFAULTS.containsKey(key)) {
      warnings.add("unknown setting " + key + " (" + from + ") ignored");
      return;
    }
    values.put(key, value);
  }

  private void validate() {
    port("otlp.http.port");
    port("admin.port");
    port("otlp.grpc.port");
    bool("otlp.grpc.enabled");
    positiveInt("otlp.max.body.bytes");
    positiveInt("otlp.max.concurrent.requests");
    DURATION_KEYS.forEach(this::durationMillis);
    positiveInt("join.max.pending.records");
    positiveInt("clock.max.pairs");
    positiveInt("probe.max.partitions");
    positiveInt("probe.max.ranges.per.term");
    positiveInt("metrics.max.streams");
    positiveInt("metrics.max.topic.groups");
    positiveInt("api.recent.breakdowns");
    positiveInt("diagnosis.max.topic.groups");
    historyPointsPerPair();
    positiveInt("history.max.topic.groups");
    positiveInt("traces.queue.size");
    String endpoint = string("traces.endpoint");
    if (!endpoint.isEmpty()
        && !endpoint.startsWith("http://")
        && !endpoint.startsWith("https://")) {
      throw new IllegalArgumentException("traces.endpoint must be an http(s) URL: " + endpoint);
    }
    brokerSettings();
    mode();
    spanTopics();
    durationMillis("spans.kafka.session.timeout");
  }

  /** The role this process plays: {@code all}, {@code ingest} or {@code join}. */
  Mode mode() {
    String v = string("mode").trim().toLowerCase(Locale.ROOT);
    for (Mode m : Mode.values()) {
      if (m.name().toLowerCase(Locale.ROOT).equals(v)) {
        return m;
      }
    }
    throw new IllegalArgumentException("mode must be all, ingest or join: " + string("mode"));
  }

  /**
   * Where the ingest and join roles meet, or null in mode {@code all}.
   *
   * @throws IllegalArgumentException when a role that needs Kafka has no bootstrap servers
   */
  SpanTopicSettings spanTopics() {
    return mode() == Mode.ALL ? null : SpanTopicSettings.read(this);
  }

  /**
   * The broker scraping settings.
   *
   * @throws IllegalArgumentException naming the key of a bad value
   */
  BrokerSettings brokerSettings() {
    String bootstrap = string("brokers.bootstrap").trim();
    int exporterPort = optionalPort("brokers.exporter.port");
    int jmxPort = optionalPort("brokers.jmx.port");
    if (!bootstrap.isEmpty() && exporterPort == 0 && jmxPort == 0) {
      throw new IllegalArgumentException(
          "brokers.bootstrap needs brokers.exporter.port or brokers.jmx.port (or both): where to"
              + " read each discovered broker's metrics");
    }
    if (bootstrap.isEmpty() && (exporterPort != 0 || jmxPort != 0)) {
      throw new IllegalArgumentException(
          "brokers.exporter.port and brokers.jmx.port apply to discovered brokers only: set"
              + " brokers.bootstrap, or list the brokers in brokers.exporter or brokers.jmx");
    }
    long scrapeMs = durationMillis("brokers.scrape.interval");
    long staleMs = durationMillis("brokers.stale");
    long historyMs = durationMillis("brokers.history");
    if (staleMs < scrapeMs) {
      throw new IllegalArgumentException(
          "brokers.stale ("
              + staleMs
              + " ms) must be at least brokers.scrape.interval ("
              + scrapeMs
              + " ms), or every lookup between two scrapes would find nothing");
    }
    if (historyMs < staleMs) {
      throw new IllegalArgumentException(
          "brokers.history ("
              + historyMs
              + " ms) must be at least brokers.stale ("
              + staleMs
              + " ms)");
    }
    return new BrokerSettings(
        BrokerEndpoints.exporters("brokers.exporter", string("brokers.exporter")),
        BrokerEndpoints.jmx("brokers.jmx", string("brokers.jmx")),
        bootstrap,
        exporterPort,
        jmxPort,
        scrapeMs,
        staleMs,
        historyMs,
        durationMillis("brokers.discovery.interval"),
        (int) Math.min(durationMillis("brokers.connect.timeout"), Integer.MAX_VALUE),
        (int) Math.min(durationMillis("brokers.read.timeout"), Integer.MAX_VALUE));
  }

  /** The most points a history keeps per pair: bounds its memory (about 90 bytes a point). */
  static final int MAX_HISTORY_POINTS = 10_000;

  /**
   * How many points the history keeps of each pair, {@code history.retention} over {@code
   * history.interval}.
   *
   * @throws IllegalArgumentException naming the keys of a bad combination
   */
  int historyPointsPerPair() {
    long intervalMs = durationMillis("history.interval");
    long retentionMs = durationMillis("history.retention");
    // Each sample reads every recent breakdown once per pair: not more often than every second.
    if (intervalMs < 1000) {
      throw new IllegalArgumentException(
          "history.interval must be at least 1s: " + string("history.interval"));
    }
    long points = retentionMs / intervalMs;
    if (points < 1 || points > MAX_HISTORY_POINTS) {
      throw new IllegalArgumentException(
          "history.retention over history.interval must be 1 to "
              + MAX_HISTORY_POINTS
              + " points per topic and group: "
              + string("history.retention")
              + " / "
              + string("history.interval"));
    }
    return (int) points;
  }

  private int optionalPort(String key) {
    if (string(key).trim().isEmpty()) {
      return 0;
    }
    int port = port(key);
    if (port == 0) {
      throw new IllegalArgumentException(key + " must be a port (1 to 65535) or empty");
    }
    return port;
  }

  /** Warnings collected while reading (unknown keys). */
  public List<String> warnings() {
    return warnings;
  }

  /** Every key with its effective value. */
  public Map<String, String> values() {
    return Map.copyOf(values);
  }

  String string(String key) {
    return values.get(key);
  }

  boolean bool(String key) {
    String v = values.get(key).trim();
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    if (v.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(key + " must be true or false: " + v);
  }

  int positiveInt(String key) {
    long v = positiveLong(key);
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(key + " must be at most " + Integer.MAX_VALUE);
    }
    return (int) v;
  }

  int port(String key) {
    long v = longValue(key);
    if (v < 0 || v > 65535) {
      throw new IllegalArgumentException(key + " must be a port (0 to 65535): " + v);
    }
    return (int) v;
  }

  long positiveLong(String key) {
    long v = longValue(key);
    if (v <= 0) {
      throw new IllegalArgumentException(key + " must be positive: " + v);
    }
    return v;
  }

  /** A duration setting, in milliseconds, more than zero. */
  long durationMillis(String key) {
    String v = values.get(key);
    long millis;
    try {
      millis = Durations.parseMillis(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + " must be " + Durations.EXPECTED + ": " + v);
    }
    if (millis <= 0) {
      throw new IllegalArgumentException(key + " must be more than zero: " + v);
    }
    return millis;
  }

  private long longValue(String key) {
    String v = values.get(key);
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer: " + v);
    }
  }
}

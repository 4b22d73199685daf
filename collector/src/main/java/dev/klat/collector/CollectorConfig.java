package dev.klat.collector;

import dev.klat.collector.broker.BrokerEndpoints;
import dev.klat.collector.broker.BrokerSettings;
import dev.klat.collector.broker.ExporterAuth;
import dev.klat.collector.broker.JmxAuth;
import dev.klat.collector.broker.SecretFile;
import dev.klat.collector.export.TraceExporter;
import dev.klat.collector.pipeline.PipelineNames;
import dev.klat.model.SettingNames;
import dev.klat.model.SettingType;
import dev.klat.model.SettingValueException;
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
 * The collector's settings. Each key {@code k} of {@link CollectorKey} (for example {@code
 * join.window}) can be given, from highest precedence to lowest, as a flag {@code --k=value}, a
 * system property {@code klat.collector.k}, an environment variable {@code KLAT_COLLECTOR_K} (dots
 * and dashes become underscores, upper case), or a line {@code k=value} in the properties file
 * named by {@code --config=path}. Every key, with its type and default, is listed in {@code
 * docs/collector.md}. An unknown key, or an old spelling of a renamed one, is a warning; a bad
 * value fails start-up with a message naming the key and what it must be.
 */
public final class CollectorConfig {

  static final String PROPERTY_PREFIX = CollectorKey.PROPERTY_PREFIX;
  static final String ENV_PREFIX = "KLAT_COLLECTOR_";

  private final Map<String, String> values;
  private final List<String> warnings;

  private CollectorConfig(Map<String, String> values, List<String> warnings) {
    this.values = values;
    this.warnings = warnings;
  }

  /** The defaults, with the given keys (or old spellings) overridden; for tests and embedding. */
  public static CollectorConfig of(Map<String, String> overrides) {
    Map<String, String> values = defaults();
    List<String> warnings = new ArrayList<>();
    apply(values, warnings, overrides, "override");
    CollectorConfig config = new CollectorConfig(values, warnings);
    config.validate();
    return config;
  }

  /**
   * Reads flags, system properties, environment and the optional file.
   *
   * @throws IllegalArgumentException for a bad flag or value (a {@link SettingValueException} when
   *     one value does not parse), or an unreadable file
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
    Map<String, String> values = defaults();
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
      Map<String, String> fromFile = new LinkedHashMap<>();
      for (String k : p.stringPropertyNames()) {
        String key = k.startsWith(PROPERTY_PREFIX) ? k.substring(PROPERTY_PREFIX.length()) : k;
        fromFile.put(key, p.getProperty(k).trim());
      }
      apply(values, warnings, fromFile, file);
    }
    applyEnvironment(values, warnings, env);
    Map<String, String> fromSystem = new LinkedHashMap<>();
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(PROPERTY_PREFIX) && !name.equals(PROPERTY_PREFIX + "config")) {
        fromSystem.put(name.substring(PROPERTY_PREFIX.length()), system.getProperty(name));
      }
    }
    apply(values, warnings, fromSystem, "system property");
    apply(values, warnings, flags, "flag");
    CollectorConfig config = new CollectorConfig(values, warnings);
    config.validate();
    return config;
  }

  private static Map<String, String> defaults() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (CollectorKey key : CollectorKey.values()) {
      defaults.put(key.setting.key(), key.setting.defaultValue());
    }
    return defaults;
  }

  /**
   * Puts what {@code source} sets (keys, or old spellings, to values) over {@code values}: a key
   * over its old spellings, each old spelling and each unknown name a warning.
   */
  private static void apply(
      Map<String, String> values, List<String> warnings, Map<String, String> source, String from) {
    for (String name : source.keySet()) {
      if (CollectorKey.byName(name) == null) {
        warnings.add("unknown setting " + name + " (" + from + ") ignored");
      }
    }
    for (CollectorKey key : CollectorKey.values()) {
      String name = SettingNames.spellingIn(source, key.setting.key(), key.setting.oldKeys());
      if (name != null) {
        values.put(key.setting.key(), source.get(name));
        SettingNames.addOldSpellingWarnings(
            source, from, key.setting.key(), key.setting.oldKeys(), warnings);
      }
    }
  }

  /** As {@link #apply}, for the environment: only the variables of keys and old spellings. */
  private static void applyEnvironment(
      Map<String, String> values, List<String> warnings, Map<String, String> env) {
    for (CollectorKey key : CollectorKey.values()) {
      String name = SettingNames.spellingIn(env, key.setting.envName(), key.setting.oldEnvNames());
      if (name != null) {
        values.put(key.setting.key(), env.get(name).trim());
        SettingNames.addOldSpellingWarnings(
            env, "environment", key.setting.envName(), key.setting.oldEnvNames(), warnings);
      }
    }
  }

  private void validate() {
    for (CollectorKey key : CollectorKey.values()) {
      String value = values.get(key.setting.key());
      try {
        key.setting.type().check(value);
      } catch (SettingValueException e) {
        throw e.forSetting(key.setting.key(), value);
      }
    }
    historyPointsPerPair();
    brokerSettings();
    mode();
    spanTopics();
    ListenerSecurities.check(this);
    traceSettings();
    warnUnusedClientSettings();
  }

  // A security setting whose connection is off is most likely a mistake in another setting.
  private void warnUnusedClientSettings() {
    unusedUnless(
        !string("brokers.bootstrap").isBlank(), "brokers.bootstrap", "brokers.kafka-config");
    unusedUnless(mode() != Mode.ALL, "mode ingest or join", "spans.kafka.config");
    unusedUnless(
        !string("brokers.jmx").isBlank() || !string("brokers.jmx-port").isBlank(),
        "brokers.jmx or brokers.jmx-port",
        "brokers.jmx-username",
        "brokers.jmx-password-file");
    if (bool("brokers.jmx-ssl")) {
      unusedUnless(
          !string("brokers.jmx").isBlank() || !string("brokers.jmx-port").isBlank(),
          "brokers.jmx or brokers.jmx-port",
          "brokers.jmx-ssl");
    }
    unusedUnless(
        !string("brokers.exporter").isBlank() || !string("brokers.exporter-port").isBlank(),
        "brokers.exporter or brokers.exporter-port",
        "brokers.exporter-username",
        "brokers.exporter-password-file",
        "brokers.exporter-token-file",
        "brokers.exporter-certificate");
  }

  private void unusedUnless(boolean used, String needs, String... keys) {
    for (String key : keys) {
      if (!used && !string(key).isBlank() && !warnings.contains(unused(key, needs))) {
        warnings.add(unused(key, needs));
      }
    }
  }

  private static String unused(String key, String needs) {
    return key + " is set but applies only with " + needs + ": ignored";
  }

  /**
   * The trace exporter's settings, or null when {@code traces.endpoint} is empty.
   *
   * @throws IllegalArgumentException naming the key of a bad value
   */
  TraceExporter.Settings traceSettings() {
    String endpoint = string("traces.endpoint").trim();
    String clientCertificate = string("traces.client.certificate").trim();
    String clientKey = string("traces.client.key").trim();
    if (clientCertificate.isEmpty() != clientKey.isEmpty()) {
      throw new IllegalArgumentException(
          "traces.client.certificate and traces.client.key go together: set both or neither");
    }
    Map<String, String> headers =
        TraceExporter.parseHeaders("traces.headers", string("traces.headers"));
    if (endpoint.isEmpty()) {
      return null;
    }
    return new TraceExporter.Settings(
        endpoint,
        positiveInt("traces.queue-size"),
        headers,
        optionalPath("traces.certificate"),
        optionalPath("traces.client.certificate"),
        optionalPath("traces.client.key"));
  }

  private Path optionalPath(String key) {
    String value = string(key).trim();
    return value.isEmpty() ? null : Path.of(value);
  }

  /** The role this process plays: {@code all}, {@code ingest} or {@code join}. */
  Mode mode() {
    String v = CollectorKey.MODE.setting.type().choiceValue(string("mode"));
    return Mode.valueOf(v.toUpperCase(Locale.ROOT));
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
    int exporterPort = optionalPort("brokers.exporter-port");
    int jmxPort = optionalPort("brokers.jmx-port");
    if (!bootstrap.isEmpty() && exporterPort == 0 && jmxPort == 0) {
      throw new IllegalArgumentException(
          "brokers.bootstrap needs brokers.exporter-port or brokers.jmx-port (or both): where to"
              + " read each discovered broker's metrics");
    }
    if (bootstrap.isEmpty() && (exporterPort != 0 || jmxPort != 0)) {
      throw new IllegalArgumentException(
          "brokers.exporter-port and brokers.jmx-port apply to discovered brokers only: set"
              + " brokers.bootstrap, or list the brokers in brokers.exporter or brokers.jmx");
    }
    long scrapeMs = durationMillis("brokers.scrape-interval");
    long staleMs = durationMillis("brokers.stale");
    long historyMs = durationMillis("brokers.history");
    if (staleMs < scrapeMs) {
      throw new IllegalArgumentException(
          "brokers.stale ("
              + staleMs
              + " ms) must be at least brokers.scrape-interval ("
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
        durationMillis("brokers.discovery-interval"),
        (int) Math.min(durationMillis("brokers.connect-timeout"), Integer.MAX_VALUE),
        (int) Math.min(durationMillis("brokers.read-timeout"), Integer.MAX_VALUE),
        KafkaClientConfig.read("brokers.kafka-config", string("brokers.kafka-config")),
        JmxAuth.of(
            string("brokers.jmx-username"),
            SecretFile.read("brokers.jmx-password-file", string("brokers.jmx-password-file")),
            bool("brokers.jmx-ssl")),
        ExporterAuth.of(
            string("brokers.exporter-username"),
            SecretFile.read(
                "brokers.exporter-password-file", string("brokers.exporter-password-file")),
            SecretFile.read("brokers.exporter-token-file", string("brokers.exporter-token-file")),
            string("brokers.exporter-certificate")));
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
    // history.interval is at least 1s by its type (CollectorKey.HISTORY_INTERVAL).
    long intervalMs = durationMillis("history.interval");
    long retentionMs = durationMillis("history.retention");
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

  /**
   * The names {@code pipeline.names} gives pipelines.
   *
   * @throws IllegalArgumentException naming the entry that is not {@code name=firstTopic/lastGroup}
   */
  PipelineNames pipelineNames() {
    return PipelineNames.parse(string("pipeline.names"));
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

  /** Warnings collected while reading: unknown keys, old spellings. */
  public List<String> warnings() {
    return warnings;
  }

  /** Every key with its effective value. */
  public Map<String, String> values() {
    return Map.copyOf(values);
  }

  /** The value of {@code key}, as given (or its default). */
  String string(String key) {
    return values.get(setting(key).setting.key());
  }

  /** A boolean setting. */
  boolean bool(String key) {
    return typed(key).booleanValue(string(key));
  }

  /** An integer setting whose range fits an int (all of them, so far). */
  int positiveInt(String key) {
    return typed(key).intValue(string(key));
  }

  /** A whole number that may exceed an int (a byte count). */
  long positiveLong(String key) {
    return typed(key).longValue(string(key));
  }

  /** A port setting; 0 lets the system pick one. */
  int port(String key) {
    return typed(key).intValue(string(key));
  }

  /** A duration setting, in milliseconds, within its type's range. */
  long durationMillis(String key) {
    return typed(key).millisValue(string(key));
  }

  private SettingType typed(String key) {
    return setting(key).setting.type();
  }

  private static CollectorKey setting(String key) {
    CollectorKey setting = CollectorKey.byKey(key);
    if (setting == null) {
      // A caller that names no setting, or an old spelling: a bug, not a user's error.
      throw new IllegalStateException("no collector setting " + key);
    }
    return setting;
  }
}

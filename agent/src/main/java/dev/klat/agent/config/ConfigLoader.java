package dev.klat.agent.config;

import dev.klat.agent.config.ConfigValues.BadValueException;
import dev.klat.model.OtlpPaths;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * One load of the agent's configuration: resolves every {@link ConfigKey} from its sources in
 * precedence order (see {@link AgentConfig}), parses it, and collects the WARN and ERROR lines to
 * log. Defaults go through the same parsers as user values.
 */
final class ConfigLoader {
  static final String CONSEQUENCE = "; klat will not instrument anything";
  private static final int MAX_LOGGED_VALUE_CHARS = 200;

  static final class Diagnostic {
    final AgentLog.Level level;
    final String message;

    Diagnostic(AgentLog.Level level, String message) {
      this.level = level;
      this.message = message;
    }
  }

  /** A value and where it came from, for messages. */
  private static final class Raw {
    final String value;
    final String source;

    Raw(String value, String source) {
      this.value = value;
      this.source = source;
    }
  }

  private interface Parser<T> {
    T parse(String value) throws BadValueException;
  }

  final Map<String, String> sys;
  final Map<String, String> env;
  Properties file;
  String fileSource;
  final List<Diagnostic> diagnostics = new ArrayList<>();
  final List<String> errors = new ArrayList<>();

  boolean enabled;
  URI endpoint;
  String serviceName;
  double samplingProbability;
  double samplingMaxPerSecond;
  Pattern topicsInclude;
  Pattern topicsExclude;
  boolean headersEnabled;
  long metricsIntervalMillis;
  int exportQueueSize;
  long exportTimeoutMillis;
  boolean exportGzip;
  boolean micrometerEnabled;
  AgentLog.Level logLevel;
  long testClockOffsetMillis;
  String configFile;

  ConfigLoader(Map<String, String> sys, Map<String, String> env) {
    this.sys = sys;
    this.env = env;
  }

  void load() throws BadValueException {
    warnUnknownSystemProperties();
    warnUnknownEnvironment();
    readFile();

    enabled = value(ConfigKey.ENABLED, ConfigValues::parseBoolean);
    endpoint = value(ConfigKey.ENDPOINT, ConfigValues::parseEndpoint);
    warnSignalPath();
    serviceName = serviceName();
    samplingProbability = value(ConfigKey.SAMPLING_PROBABILITY, ConfigValues::parseProbability);
    samplingMaxPerSecond = value(ConfigKey.SAMPLING_MAX_PER_SECOND, ConfigValues::parseRate);
    topicsInclude = value(ConfigKey.TOPICS_INCLUDE, ConfigValues::parseRegex);
    topicsExclude = value(ConfigKey.TOPICS_EXCLUDE, ConfigValues::parseRegex);
    headersEnabled = value(ConfigKey.HEADERS_ENABLED, ConfigValues::parseBoolean);
    metricsIntervalMillis =
        value(
            ConfigKey.METRICS_INTERVAL,
            v -> ConfigValues.parseDurationMillis(v, AgentConfig.MIN_METRICS_INTERVAL_MILLIS));
    exportQueueSize = value(ConfigKey.EXPORT_QUEUE_SIZE, ConfigValues::parsePositiveInt);
    exportTimeoutMillis =
        value(ConfigKey.EXPORT_TIMEOUT, v -> ConfigValues.parseDurationMillis(v, 1L));
    exportGzip = value(ConfigKey.EXPORT_GZIP, ConfigValues::parseBoolean);
    micrometerEnabled = value(ConfigKey.MICROMETER_ENABLED, ConfigValues::parseBoolean);
    logLevel = value(ConfigKey.LOG_LEVEL, ConfigValues::parseLogLevel);
    testClockOffsetMillis =
        value(ConfigKey.TEST_CLOCK_OFFSET, ConfigValues::parseSignedDurationMillis);
  }

  private void warnUnknownSystemProperties() {
    for (String name : sortedNonNull(sys.keySet())) {
      if (name.startsWith(ConfigKey.PREFIX) && ConfigKey.byKey(name) == null) {
        warn(
            "unknown configuration key "
                + name
                + " (system property), ignored"
                + didYouMean(ConfigKey.suggest(name, false)));
      }
    }
  }

  private void warnUnknownEnvironment() {
    for (String name : sortedNonNull(env.keySet())) {
      if (name.startsWith(ConfigKey.ENV_PREFIX) && ConfigKey.byEnvName(name) == null) {
        warn(
            "unknown environment variable "
                + name
                + " (no klat key maps to it), ignored"
                + didYouMean(ConfigKey.suggest(name, true)));
      }
    }
  }

  private void readFile() {
    Raw raw = fromSystemOrEnvironment(ConfigKey.CONFIG_FILE);
    if (raw == null) {
      return;
    }
    configFile = raw.value;
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(Paths.get(raw.value), StandardCharsets.UTF_8)) {
      props.load(reader);
    } catch (Exception e) {
      error(
          "cannot read config file "
              + printable(raw.value)
              + " (from "
              + raw.source
              + "): "
              + e
              + CONSEQUENCE);
      return;
    }
    file = props;
    fileSource = "config file " + raw.value;
    for (String name : new TreeSet<>(props.stringPropertyNames())) {
      if (ConfigKey.CONFIG_FILE.key.equals(name)) {
        warn(
            ConfigKey.CONFIG_FILE.key
                + " in "
                + fileSource
                + " is ignored: only a system property or environment variable can name the"
                + " file");
      } else if (ConfigKey.byKey(name) == null) {
        warn(
            "unknown configuration key "
                + name
                + " ("
                + fileSource
                + "), ignored"
                + didYouMean(ConfigKey.suggest(name, false)));
      }
    }
  }

  private String serviceName() throws BadValueException {
    String name = value(ConfigKey.SERVICE_NAME, v -> v);
    if (name != null) {
      return name;
    }
    String otel = nonEmpty(env.get(AgentConfig.OTEL_SERVICE_NAME_ENV));
    return otel != null ? otel : AgentConfig.FALLBACK_SERVICE_NAME;
  }

  private void warnSignalPath() {
    String path = endpoint.getPath();
    if (path == null) {
      return;
    }
    String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    if (trimmed.endsWith(OtlpPaths.TRACES) || trimmed.endsWith(OtlpPaths.METRICS)) {
      warn(
          ConfigKey.ENDPOINT.key
              + "="
              + AgentConfig.redact(endpoint)
              + " ends with a signal path, but it is the base URL: klat appends "
              + OtlpPaths.TRACES
              + " and "
              + OtlpPaths.METRICS
              + " itself");
    }
  }

  /** The typed value of {@code key}: the highest-precedence value, else the default. */
  private <T> T value(ConfigKey key, Parser<T> parser) throws BadValueException {
    // The default goes through the same parser as user values: one syntax, checked at startup.
    T fallback = key.defaultValue == null ? null : parser.parse(key.defaultValue);
    Raw raw = resolve(key);
    if (raw == null) {
      return fallback;
    }
    try {
      return parser.parse(raw.value);
    } catch (BadValueException e) {
      error(
          "invalid value \""
              + printable(raw.value)
              + "\" for "
              + key.key
              + " (from "
              + raw.source
              + "): "
              + e.getMessage()
              + CONSEQUENCE);
      return fallback;
    }
  }

  private Raw resolve(ConfigKey key) {
    Raw raw = fromSystemOrEnvironment(key);
    if (raw != null || file == null) {
      return raw;
    }
    String fromFile = nonEmpty(file.getProperty(key.key));
    return fromFile == null ? null : new Raw(fromFile, fileSource);
  }

  private Raw fromSystemOrEnvironment(ConfigKey key) {
    String fromSys = nonEmpty(sys.get(key.key));
    if (fromSys != null) {
      return new Raw(fromSys, "system property " + key.key);
    }
    String fromEnv = nonEmpty(env.get(key.envName));
    if (fromEnv != null) {
      return new Raw(fromEnv, "environment variable " + key.envName);
    }
    return null;
  }

  private void warn(String message) {
    diagnostics.add(new Diagnostic(AgentLog.Level.WARN, message));
  }

  private void error(String message) {
    diagnostics.add(new Diagnostic(AgentLog.Level.ERROR, message));
    errors.add(message);
  }

  private static Set<String> sortedNonNull(Set<String> names) {
    Set<String> sorted = new TreeSet<>();
    for (String name : names) {
      if (name != null) {
        sorted.add(name);
      }
    }
    return sorted;
  }

  private static String didYouMean(String suggestion) {
    return suggestion == null ? "" : "; did you mean " + suggestion + "?";
  }

  private static String nonEmpty(String value) {
    if (value == null) {
      return null;
    }
    String trimmed = value.trim();
    return trimmed.isEmpty() ? null : trimmed;
  }

  static String printable(String value) {
    String v = AgentLog.oneLine(value);
    return v.length() <= MAX_LOGGED_VALUE_CHARS
        ? v
        : v.substring(0, MAX_LOGGED_VALUE_CHARS) + "...(" + v.length() + " chars)";
  }
}

package dev.klat.agent.config;

import dev.klat.agent.tail.ThresholdSpec;
import dev.klat.agentcore.auth.ExportHeaders;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.OtlpPaths;
import dev.klat.model.SettingNames;
import dev.klat.model.SettingValueException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

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

  /** Regular expressions, checked to compile unless they are the defaults. */
  String topicsInclude;

  String topicsExclude;
  boolean headersEnabled;
  boolean tailEnabled;
  ThresholdSpec tailProducerThreshold = ThresholdSpec.ALL_AUTO;
  ThresholdSpec tailConsumerThreshold = ThresholdSpec.ALL_AUTO;
  int tailMaxPerSecond;
  long metricsIntervalMillis;
  int exportQueueSize;
  long exportTimeoutMillis;
  boolean exportGzip;
  Map<String, String> exportHeaders = Collections.emptyMap();
  ExportTls exportTls;
  boolean micrometerEnabled;
  AgentLog.Level logLevel;
  long testClockOffsetMillis;
  String configFile;

  ConfigLoader(Map<String, String> sys, Map<String, String> env) {
    this.sys = sys;
    this.env = env;
  }

  void load() {
    warnUnknownSystemProperties();
    warnOldSpellings(sys, "system property", false);
    warnUnknownEnvironment();
    warnOldSpellings(env, "environment variable", true);
    readFile();

    enabled = (Boolean) value(ConfigKey.ENABLED);
    endpoint = (URI) value(ConfigKey.ENDPOINT);
    warnSignalPath();
    serviceName = serviceName();
    samplingProbability = (Double) value(ConfigKey.SAMPLING_PROBABILITY);
    samplingMaxPerSecond = (Double) value(ConfigKey.SAMPLING_MAX_PER_SECOND);
    topicsInclude = (String) value(ConfigKey.TOPICS_INCLUDE);
    topicsExclude = (String) value(ConfigKey.TOPICS_EXCLUDE);
    headersEnabled = (Boolean) value(ConfigKey.HEADERS_ENABLED);
    tailEnabled = (Boolean) value(ConfigKey.TAIL_ENABLED);
    tailProducerThreshold = (ThresholdSpec) value(ConfigKey.TAIL_PRODUCER_THRESHOLD);
    tailConsumerThreshold = (ThresholdSpec) value(ConfigKey.TAIL_CONSUMER_THRESHOLD);
    tailMaxPerSecond = (Integer) value(ConfigKey.TAIL_MAX_PER_SECOND);
    metricsIntervalMillis = (Long) value(ConfigKey.METRICS_INTERVAL);
    exportQueueSize = (Integer) value(ConfigKey.EXPORT_QUEUE_SIZE);
    exportTimeoutMillis = (Long) value(ConfigKey.EXPORT_TIMEOUT);
    exportGzip = (Boolean) value(ConfigKey.EXPORT_GZIP);
    readExportCredentials();
    micrometerEnabled = (Boolean) value(ConfigKey.MICROMETER_ENABLED);
    logLevel = (AgentLog.Level) value(ConfigKey.LOG_LEVEL);
    testClockOffsetMillis = (Long) value(ConfigKey.TEST_CLOCK_OFFSET);
  }

  /**
   * {@code klat.export.headers} and the TLS files, read and checked now, so that a mistake stops
   * the agent at start-up rather than every export. A header list is a secret: an error says what
   * is wrong with it, never what it holds.
   */
  @SuppressWarnings("unchecked")
  private void readExportCredentials() {
    Map<String, String> headers = (Map<String, String>) value(ConfigKey.EXPORT_HEADERS);
    exportHeaders = headers == null ? Collections.<String, String>emptyMap() : headers;
    Raw certificate = resolve(ConfigKey.EXPORT_CERTIFICATE);
    Raw clientCertificate = resolve(ConfigKey.EXPORT_CLIENT_CERTIFICATE);
    Raw clientKey = resolve(ConfigKey.EXPORT_CLIENT_KEY);
    try {
      exportTls =
          ExportTls.load(
              certificate == null ? null : certificate.value,
              clientCertificate == null ? null : clientCertificate.value,
              clientKey == null ? null : clientKey.value);
    } catch (ExportTls.Invalid e) {
      ConfigKey key = ConfigKey.byKey(e.setting());
      Raw raw = resolve(key);
      error(
          (raw == null
                  ? key.setting.key() + " is not set"
                  : "invalid value \""
                      + printable(raw.value)
                      + "\" for "
                      + key.setting.key()
                      + " (from "
                      + raw.source
                      + ")")
              + ": "
              + e.problem().getMessage()
              + CONSEQUENCE);
    }
    boolean https = "https".equalsIgnoreCase(endpoint.getScheme());
    if (!https && exportTls != null) {
      warn(
          "the TLS files of klat.export.* are not used: "
              + ConfigKey.ENDPOINT.setting.key()
              + "="
              + AgentConfig.redact(endpoint)
              + " is not https");
    }
    boolean credentials =
        endpoint.getRawUserInfo() != null || ExportHeaders.has(exportHeaders, "Authorization");
    if (!https && credentials) {
      warn(
          "credentials go in clear text: "
              + ConfigKey.ENDPOINT.setting.key()
              + "="
              + AgentConfig.redact(endpoint)
              + " is not https");
    }
    if (endpoint.getRawUserInfo() != null && ExportHeaders.has(exportHeaders, "Authorization")) {
      warn(
          "the user info of "
              + ConfigKey.ENDPOINT.setting.key()
              + " is not sent: "
              + ConfigKey.EXPORT_HEADERS.setting.key()
              + " sets Authorization, which wins");
    }
  }

  /**
   * The typed value of {@code key}, boxed: its type's parser ({@link ConfigKey#setting}) or one of
   * {@link ConfigValues}, chosen here rather than passed as a lambda, because each lambda would
   * cost {@code premain} a generated class.
   *
   * @throws SettingValueException saying what was expected
   */
  static Object parse(ConfigKey key, String value) {
    switch (key) {
      case ENABLED:
      case HEADERS_ENABLED:
      case TAIL_ENABLED:
      case EXPORT_GZIP:
      case MICROMETER_ENABLED:
        return key.setting.type().booleanValue(value);
      case ENDPOINT:
        return key.setting.type().urlValue(value);
      case SAMPLING_PROBABILITY:
      case SAMPLING_MAX_PER_SECOND:
        return key.setting.type().decimalValue(value);
      case TOPICS_INCLUDE:
      case TOPICS_EXCLUDE:
        // The defaults are constants that ConfigLoaderTest compiles; compiling them at every start
        // would load and run the regex engine before main, for nothing.
        return value.equals(key.setting.defaultValue()) ? value : ConfigValues.parseRegex(value);
      case METRICS_INTERVAL:
      case EXPORT_TIMEOUT:
        return key.setting.type().millisValue(value);
      case EXPORT_QUEUE_SIZE:
      case TAIL_MAX_PER_SECOND:
        return key.setting.type().intValue(value);
      case TAIL_PRODUCER_THRESHOLD:
      case TAIL_CONSUMER_THRESHOLD:
        return ThresholdSpec.parse(value);
      case LOG_LEVEL:
        return ConfigValues.parseLogLevel(value);
      case TEST_CLOCK_OFFSET:
        return ConfigValues.parseSignedDurationMillis(value);
      case EXPORT_HEADERS:
        return ExportHeaders.parse(value);
      case SERVICE_NAME:
      case CONFIG_FILE:
      default:
        return value;
    }
  }

  private void warnUnknownSystemProperties() {
    for (String name : sortedStartingWith(sys.keySet(), ConfigKey.PREFIX)) {
      if (ConfigKey.byKey(name) == null && ConfigKey.byOldKey(name) == null) {
        warn(
            "unknown configuration key "
                + name
                + " (system property), ignored"
                + didYouMean(ConfigKey.suggest(name, false)));
      }
    }
  }

  private void warnUnknownEnvironment() {
    for (String name : sortedStartingWith(env.keySet(), ConfigKey.ENV_PREFIX)) {
      if (ConfigKey.byEnvName(name) == null) {
        warn(
            "unknown environment variable "
                + name
                + " (no klat key maps to it), ignored"
                + didYouMean(ConfigKey.suggest(name, true)));
      }
    }
  }

  /**
   * One warning for each old spelling that {@code source} sets, naming the new key (and saying it
   * wins where the source sets both).
   */
  private void warnOldSpellings(Map<?, ?> source, String where, boolean environment) {
    List<String> lines = new ArrayList<>(0);
    for (ConfigKey key : ConfigKey.values()) {
      String[] oldNames = environment ? key.setting.oldEnvNames() : key.setting.oldKeys();
      if (oldNames.length > 0) {
        SettingNames.addOldSpellingWarnings(
            source,
            where,
            environment ? key.setting.envName() : key.setting.key(),
            oldNames,
            lines);
      }
    }
    for (String line : lines) {
      warn(line);
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
      if (ConfigKey.CONFIG_FILE.setting.key().equals(name)) {
        warn(
            ConfigKey.CONFIG_FILE.setting.key()
                + " in "
                + fileSource
                + " is ignored: only a system property or environment variable can name the"
                + " file");
      } else if (ConfigKey.byKey(name) == null && ConfigKey.byOldKey(name) == null) {
        warn(
            "unknown configuration key "
                + name
                + " ("
                + fileSource
                + "), ignored"
                + didYouMean(ConfigKey.suggest(name, false)));
      }
    }
    warnOldSpellings(props, fileSource, false);
  }

  private String serviceName() {
    String name = (String) value(ConfigKey.SERVICE_NAME);
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
          ConfigKey.ENDPOINT.setting.key()
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
  private Object value(ConfigKey key) {
    Raw raw = resolve(key);
    if (raw != null) {
      try {
        return parse(key, raw.value);
      } catch (SettingValueException e) {
        error(
            "invalid value \""
                + printable(shown(key, raw.value))
                + "\" for "
                + key.setting.key()
                + " (from "
                + raw.source
                + "): "
                + e.getMessage()
                + CONSEQUENCE);
      }
    }
    // The default goes through the same parser as user values: one syntax.
    return key.setting.defaultValue() == null ? null : parse(key, key.setting.defaultValue());
  }

  /** What a message may show of {@code key}'s value: credentials hidden. */
  private static String shown(ConfigKey key, String value) {
    if (key == ConfigKey.EXPORT_HEADERS) {
      return Secrets.describeHidden(value);
    }
    return key == ConfigKey.ENDPOINT ? Secrets.redactUserInfo(value) : value;
  }

  private Raw resolve(ConfigKey key) {
    Raw raw = fromSystemOrEnvironment(key);
    if (raw != null || file == null) {
      return raw;
    }
    String name = SettingNames.spellingIn(file, key.setting.key(), key.setting.oldKeys());
    String fromFile = name == null ? null : nonEmpty(file.getProperty(name));
    return fromFile == null ? null : new Raw(fromFile, fileSource);
  }

  /**
   * The value of {@code key} from the system properties, else the environment; under its key, or
   * else an old spelling ({@link ConfigKey#setting}), which {@link #warnOldSpellings} reported.
   */
  private Raw fromSystemOrEnvironment(ConfigKey key) {
    String name = SettingNames.spellingIn(sys, key.setting.key(), key.setting.oldKeys());
    String fromSys = name == null ? null : nonEmpty(sys.get(name));
    if (fromSys != null) {
      return new Raw(fromSys, "system property " + name);
    }
    String envName = SettingNames.spellingIn(env, key.setting.envName(), key.setting.oldEnvNames());
    String fromEnv = envName == null ? null : nonEmpty(env.get(envName));
    if (fromEnv != null) {
      return new Raw(fromEnv, "environment variable " + envName);
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

  /** The names with {@code prefix}, sorted; only those are sorted, not the whole environment. */
  private static Set<String> sortedStartingWith(Set<String> names, String prefix) {
    Set<String> sorted = null;
    for (String name : names) {
      if (name != null && name.startsWith(prefix)) {
        if (sorted == null) {
          sorted = new TreeSet<>();
        }
        sorted.add(name);
      }
    }
    return sorted == null ? Collections.<String>emptySet() : sorted;
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

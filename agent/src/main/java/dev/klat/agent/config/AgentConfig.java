package dev.klat.agent.config;

import dev.klat.agent.tail.ThresholdSpec;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.OtlpPaths;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The agent's configuration: one typed, immutable value per key, read once at startup.
 *
 * <p><b>Sources</b>, highest precedence first (the OpenTelemetry Java agent's order):
 *
 * <ol>
 *   <li>system properties {@code klat.x.y} ({@code -Dklat.x.y=...} before {@code -jar});
 *   <li>environment variables {@code KLAT_X_Y}: the key in upper case with '.' and '-' replaced by
 *       '_', so {@code klat.sampling.max-per-second} is {@code KLAT_SAMPLING_MAX_PER_SECOND};
 *   <li>the properties file named by {@code klat.config.file} / {@code KLAT_CONFIG_FILE}, read as
 *       UTF-8 {@link Properties}.
 * </ol>
 *
 * Values are trimmed, and an empty value counts as not set, so a lower source or the default
 * applies (a template that renders {@code KLAT_ENDPOINT=} does not break the agent).
 *
 * <p><b>Problems.</b> An unknown {@code klat.*} key (or {@code KLAT_*} variable, or any unknown key
 * in the file) is one WARN line naming it and, when a known key is within edit distance 2,
 * suggesting it; it is otherwise ignored. An old spelling of a renamed key ({@code
 * klat.export.queue.size}) is still read, with one WARN line naming the new key; where a source
 * sets both, the new key wins. A value that does not parse, or a config file that cannot be read,
 * is one ERROR line naming the key, the value, where it came from and what is expected, and makes
 * the configuration {@link Status#INVALID}: the agent then instruments nothing, and the application
 * starts as if there were no agent. Every key is still checked, so that a user sees all mistakes at
 * once. Loading never throws.
 *
 * <p>The table of keys, the same as the javadoc of the accessors here, is in {@code
 * docs/configuration.md}.
 */
public final class AgentConfig {

  /** What the agent does with this configuration. */
  public enum Status {
    /** Valid and {@code klat.enabled=true}: instrument. */
    ACTIVE,
    /** Valid and {@code klat.enabled=false}: transform no class, log nothing more. */
    DISABLED,
    /**
     * At least one bad value or an unreadable config file (each already logged as an ERROR):
     * transform no class. Takes precedence over {@link #DISABLED}.
     */
    INVALID
  }

  /** {@value}: the service name when neither klat nor {@code OTEL_SERVICE_NAME} names one. */
  public static final String FALLBACK_SERVICE_NAME = "kafka-app";

  /** {@value}: the standard OpenTelemetry environment variable that names the service. */
  public static final String OTEL_SERVICE_NAME_ENV = "OTEL_SERVICE_NAME";

  /** {@value} ms: the shortest accepted {@code klat.metrics.interval}. */
  public static final long MIN_METRICS_INTERVAL_MILLIS = 100L;

  /** {@value}: the largest accepted {@code klat.tail.max-per-second}. */
  public static final int MAX_TAIL_PER_SECOND = 100_000;

  private final boolean enabled;
  private final URI endpoint;
  private final URI tracesEndpoint;
  private final URI metricsEndpoint;
  private final String serviceName;
  private final double samplingProbability;
  private final double samplingMaxPerSecond;
  private final TopicFilter topicFilter;
  private final boolean headersEnabled;
  private final boolean tailEnabled;
  private final ThresholdSpec tailProducerThreshold;
  private final ThresholdSpec tailConsumerThreshold;
  private final int tailMaxPerSecond;
  private final long metricsIntervalMillis;
  private final int exportQueueSize;
  private final long exportTimeoutMillis;
  private final boolean exportGzip;
  private final Map<String, String> exportHeaders;
  private final ExportTls exportTls;
  private final boolean micrometerEnabled;
  private final AgentLog.Level logLevel;
  private final long testClockOffsetMillis;
  private final String configFile;
  private final List<String> errors;

  private AgentConfig(ConfigLoader l, List<String> errors) {
    this.enabled = l.enabled;
    this.endpoint = l.endpoint;
    String base = l.endpoint.toString();
    while (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    this.tracesEndpoint = URI.create(base + OtlpPaths.TRACES);
    this.metricsEndpoint = URI.create(base + OtlpPaths.METRICS);
    this.serviceName = l.serviceName;
    this.samplingProbability = l.samplingProbability;
    this.samplingMaxPerSecond = l.samplingMaxPerSecond;
    this.topicFilter = TopicFilter.ofRegex(l.topicsInclude, l.topicsExclude);
    this.headersEnabled = l.headersEnabled;
    this.tailEnabled = l.tailEnabled;
    this.tailProducerThreshold = l.tailProducerThreshold;
    this.tailConsumerThreshold = l.tailConsumerThreshold;
    this.tailMaxPerSecond = l.tailMaxPerSecond;
    this.metricsIntervalMillis = l.metricsIntervalMillis;
    this.exportQueueSize = l.exportQueueSize;
    this.exportTimeoutMillis = l.exportTimeoutMillis;
    this.exportGzip = l.exportGzip;
    this.exportHeaders = l.exportHeaders;
    this.exportTls = l.exportTls;
    this.micrometerEnabled = l.micrometerEnabled;
    this.logLevel = l.logLevel;
    this.testClockOffsetMillis = l.testClockOffsetMillis;
    this.configFile = l.configFile;
    this.errors = Collections.unmodifiableList(new ArrayList<>(errors));
  }

  /**
   * Loads the configuration from this JVM's system properties and environment; what {@code premain}
   * calls. See {@link #load(Map, Map, AgentLog)}.
   */
  public static AgentConfig loadFromSystem(AgentLog log) {
    Map<String, String> systemProperties = new HashMap<>();
    Map<String, String> environment = Collections.emptyMap();
    try {
      Properties props = System.getProperties();
      for (String name : props.stringPropertyNames()) {
        if (name.startsWith(ConfigKey.PREFIX)) {
          systemProperties.put(name, props.getProperty(name));
        }
      }
      environment = System.getenv();
    } catch (Throwable t) {
      // A SecurityManager may forbid either read; what was read so far still counts.
    }
    return load(systemProperties, environment, log);
  }

  /**
   * Reads, checks and types every key. Never throws and never returns null.
   *
   * <p>Side effects, in this order: sets {@code log}'s level to {@link #logLevel()} (so that {@code
   * klat.log.level} also governs the lines loading prints), then logs one WARN per unknown key and
   * one ERROR per bad value or unreadable file. It does not log the summary line: the caller does,
   * with {@link #describe()}.
   *
   * @param systemProperties the JVM's system properties (only {@code klat.*} keys are read); null
   *     means none
   * @param environment the process environment ({@code KLAT_*} and {@code OTEL_SERVICE_NAME} are
   *     read); null means none
   * @param log where problems are reported; null means {@link AgentLog#global()}
   */
  public static AgentConfig load(
      Map<String, String> systemProperties, Map<String, String> environment, AgentLog log) {
    AgentLog out = log != null ? log : AgentLog.global();
    try {
      ConfigLoader loader =
          new ConfigLoader(
              systemProperties != null ? systemProperties : Collections.<String, String>emptyMap(),
              environment != null ? environment : Collections.<String, String>emptyMap());
      loader.load();
      AgentConfig config = new AgentConfig(loader, loader.errors);
      out.setLevel(config.logLevel);
      for (ConfigLoader.Diagnostic d : loader.diagnostics) {
        out.log(d.level, d.message);
      }
      return config;
    } catch (Throwable t) {
      // A bug in this class must not stop the application; it only stops the agent.
      String message = "failed to load the configuration: " + t + ConfigLoader.CONSEQUENCE;
      out.error(message);
      return fallback(message);
    }
  }

  /**
   * The configuration with every key at its default, read from no source and logging nothing: what
   * an application gets from a {@code -javaagent} without settings.
   */
  public static AgentConfig defaults() {
    try {
      ConfigLoader loader =
          new ConfigLoader(
              Collections.<String, String>emptyMap(), Collections.<String, String>emptyMap());
      loader.load();
      return new AgentConfig(loader, loader.errors);
    } catch (Throwable t) {
      return fallback("the defaults do not load: " + t);
    }
  }

  // Loading failed, so nothing is instrumented; the values only need to be safe to describe.
  private static AgentConfig fallback(String error) {
    ConfigLoader l =
        new ConfigLoader(
            Collections.<String, String>emptyMap(), Collections.<String, String>emptyMap());
    l.endpoint = URI.create(ConfigKey.ENDPOINT.setting.defaultValue());
    l.serviceName = FALLBACK_SERVICE_NAME;
    l.topicsInclude = ConfigKey.TOPICS_INCLUDE.setting.defaultValue();
    l.topicsExclude = ConfigKey.TOPICS_EXCLUDE.setting.defaultValue();
    l.logLevel = AgentLog.Level.INFO;
    return new AgentConfig(l, Collections.singletonList(error));
  }

  /**
   * {@link Status#ACTIVE}, {@link Status#DISABLED} or {@link Status#INVALID}. Only ACTIVE may
   * install instrumentation.
   */
  public Status status() {
    if (!errors.isEmpty()) {
      return Status.INVALID;
    }
    return enabled ? Status.ACTIVE : Status.DISABLED;
  }

  /** Whether the agent may instrument: {@code status() == Status.ACTIVE}. */
  public boolean active() {
    return status() == Status.ACTIVE;
  }

  /** The ERROR lines loading logged, without prefix; empty unless {@link Status#INVALID}. */
  public List<String> errors() {
    return errors;
  }

  /**
   * {@code klat.enabled} (boolean, default {@code true}): {@code false} turns the agent off, so
   * that no class is transformed at all. A valid configuration with {@code false} is {@link
   * Status#DISABLED}, not an error.
   */
  public boolean enabled() {
    return enabled;
  }

  /**
   * {@code klat.endpoint} (URL, default {@code http://127.0.0.1:4318}): the OTLP/HTTP base URL of
   * the klat collector; traces are posted to {@link #tracesEndpoint()} and metrics to {@link
   * #metricsEndpoint()}. Must be http or https with a host, and have no query or fragment; a path
   * is kept as a prefix.
   */
  public URI endpoint() {
    return endpoint;
  }

  /** {@link #endpoint()} followed by {@value OtlpPaths#TRACES}. */
  public URI tracesEndpoint() {
    return tracesEndpoint;
  }

  /** {@link #endpoint()} followed by {@value OtlpPaths#METRICS}. */
  public URI metricsEndpoint() {
    return metricsEndpoint;
  }

  /**
   * {@code klat.service.name} (string): the {@code service.name} resource attribute of everything
   * this agent exports. Default: the {@code OTEL_SERVICE_NAME} environment variable if it is set
   * and not empty, else {@value #FALLBACK_SERVICE_NAME}.
   */
  public String serviceName() {
    return serviceName;
  }

  /**
   * {@code klat.sampling.probability} (number in [0, 1], default {@code 0.01}): the probability
   * that a produced record without an upstream sampled trace is sampled (stamped and traced).
   * Records whose upstream trace is sampled follow that decision.
   */
  public double samplingProbability() {
    return samplingProbability;
  }

  /**
   * {@code klat.sampling.max-per-second} (number &gt;= 0, default {@code 100}): cap on sampled
   * records per second per producer, enforced by a token bucket; {@code 0} means no record is
   * sampled (metrics are still kept for every record).
   */
  public double samplingMaxPerSecond() {
    return samplingMaxPerSecond;
  }

  /**
   * {@code klat.topics.include} (regex, default {@code .*}) and {@code klat.topics.exclude} (regex,
   * default {@code __.*|_confluent.*|_schemas}, Kafka's and Confluent's internal topics): a topic
   * is instrumented when its whole name matches include and does not match exclude. The filter
   * caches its decisions; share this one instance.
   */
  public TopicFilter topicFilter() {
    return topicFilter;
  }

  /** {@code klat.topics.include}; see {@link #topicFilter()}. */
  public Pattern topicsInclude() {
    return topicFilter.include();
  }

  /** {@code klat.topics.exclude}; see {@link #topicFilter()}. */
  public Pattern topicsExclude() {
    return topicFilter.exclude();
  }

  /**
   * {@code klat.headers.enabled} (boolean, default {@code true}): {@code false} means the agent
   * never adds or changes a record header. Sampled records still produce spans, which the collector
   * joins by topic, partition and offset instead.
   */
  public boolean headersEnabled() {
    return headersEnabled;
  }

  /**
   * {@code klat.tail.enabled} (boolean, default {@code true}): tail capture, a span for each record
   * that turned out slow on this side (docs/latency-model.md, section 8). {@code false} flags
   * nothing and costs nothing beyond one comparison per batch.
   */
  public boolean tailEnabled() {
    return tailEnabled;
  }

  /**
   * {@code klat.tail.producer-threshold} ({@code auto}, a duration, or a comma list of {@code
   * [topic=]value}; default {@code auto}): a produced record whose {@code A - S} is above its
   * topic's threshold is flagged. {@code auto} is the producer's own p99 of {@code A - S} for the
   * topic over about the last minute, once that holds enough records.
   */
  public ThresholdSpec tailProducerThreshold() {
    return tailProducerThreshold;
  }

  /**
   * {@code klat.tail.consumer-threshold} (as {@link #tailProducerThreshold()}; default {@code
   * auto}): a consumed record whose {@code P - timestamp} is above its topic's (and group's)
   * threshold is flagged.
   */
  public ThresholdSpec tailConsumerThreshold() {
    return tailConsumerThreshold;
  }

  /**
   * {@code klat.tail.max-per-second} (integer from 0 to {@value #MAX_TAIL_PER_SECOND}, default
   * {@code 100}): the most tail spans one client exports a second, a fair share of the flagged
   * records when there are more; {@code 0} exports none (flagged records are still counted).
   */
  public int tailMaxPerSecond() {
    return tailMaxPerSecond;
  }

  /**
   * {@code klat.metrics.interval} (duration, default {@code 10s}): how often metrics are exported.
   * At least {@value #MIN_METRICS_INTERVAL_MILLIS} ms.
   */
  public long metricsIntervalMillis() {
    return metricsIntervalMillis;
  }

  /**
   * {@code klat.export.queue-size} (integer &gt; 0, default {@code 2048}; once {@code
   * klat.export.queue.size}, still read with a warning): how many sampled spans may wait for
   * export; beyond it new spans are dropped and counted.
   */
  public int exportQueueSize() {
    return exportQueueSize;
  }

  /**
   * {@code klat.export.timeout} (duration, default {@code 10s}): the timeout of one export request.
   * At least 1 ms.
   */
  public long exportTimeoutMillis() {
    return exportTimeoutMillis;
  }

  /** {@code klat.export.gzip} (boolean, default {@code true}): gzip export request bodies. */
  public boolean exportGzip() {
    return exportGzip;
  }

  /**
   * {@code klat.export.headers} (list of {@code name=value}, no default): HTTP headers sent with
   * every export request, in the format of OpenTelemetry's {@code OTEL_EXPORTER_OTLP_HEADERS}
   * (values percent-decoded), which klat does not read. Not {@code klat.headers.enabled}, which is
   * about Kafka record headers. A secret: never logged.
   *
   * @return the headers, in order; empty if none
   */
  public Map<String, String> exportHeaders() {
    return exportHeaders;
  }

  /**
   * {@code klat.export.certificate}, {@code klat.export.client.certificate} and {@code
   * klat.export.client.key} (paths, no default): the exporter's own TLS, read at start-up.
   *
   * @return the files' certificates and key, or null when none is set (the JDK's default trust)
   */
  public ExportTls exportTls() {
    return exportTls;
  }

  /**
   * {@code klat.micrometer.enabled} (boolean, default {@code false}): also record the every-record
   * latency histograms into Micrometer timers registered in the application's own {@code
   * Metrics.globalRegistry}, when the application has Micrometer; klat's own export is unchanged.
   */
  public boolean micrometerEnabled() {
    return micrometerEnabled;
  }

  /**
   * {@code klat.log.level} (one of {@code off}, {@code error}, {@code warn}, {@code info}, {@code
   * debug}; default {@code info}): the level of the agent's stderr log. {@code off} silences
   * everything, configuration errors included.
   */
  public AgentLog.Level logLevel() {
    return logLevel;
  }

  /**
   * {@code klat.test.clock-offset} (signed duration, default {@code 0}): <b>for tests only</b>.
   * Shifts every wall-clock instant the agent reports, and its clock exchange with the collector,
   * by this much, as if the host's clock were wrong by it; so that a test can check the collector
   * finds and corrects a skewed host. Negative values are allowed.
   */
  public long testClockOffsetMillis() {
    return testClockOffsetMillis;
  }

  /**
   * {@code klat.config.file} (path, no default): the properties file that was read, as given
   * (relative paths are resolved against the working directory), or null if none was named. Only a
   * system property or environment variable can name it.
   */
  public String configFile() {
    return configFile;
  }

  /**
   * One line for the startup log, for example {@code status=ACTIVE enabled=true
   * endpoint=http://127.0.0.1:4318 service=kafka-app sampling.probability=0.01
   * sampling.max-per-second=100 headers.enabled=true topics.include=.* topics.exclude=__.*}. User
   * info in the endpoint is masked.
   */
  public String describe() {
    return "status="
        + status()
        + " enabled="
        + enabled
        + " endpoint="
        + redact(endpoint)
        + " service="
        + serviceName
        + " sampling.probability="
        + formatNumber(samplingProbability)
        + " sampling.max-per-second="
        + formatNumber(samplingMaxPerSecond)
        + " headers.enabled="
        + headersEnabled
        + (tailEnabled
            ? " tail.producer-threshold="
                + tailProducerThreshold
                + " tail.consumer-threshold="
                + tailConsumerThreshold
                + " tail.max-per-second="
                + tailMaxPerSecond
            : " tail.enabled=false")
        + (exportHeaders.isEmpty() ? "" : " export.headers=" + exportHeaders.size() + " (hidden)")
        + (exportTls == null
            ? ""
            : " export.tls="
                + (exportTls.hasTrustedCertificates() ? "ca" : "jdk-trust")
                + (exportTls.hasClientCertificate() ? "+client-certificate" : ""))
        + " micrometer.enabled="
        + micrometerEnabled
        + " topics.include="
        + topicFilter.includeRegex()
        + " topics.exclude="
        + topicFilter.excludeRegex()
        + (testClockOffsetMillis == 0
            ? ""
            : " test.clock-offset=" + testClockOffsetMillis + "ms (tests only)");
  }

  @Override
  public String toString() {
    return describe();
  }

  static String redact(URI uri) {
    String s = uri.toString();
    String userInfo = uri.getRawUserInfo();
    return userInfo == null ? s : s.replace(userInfo + "@", "***@");
  }

  static String formatNumber(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    return Double.toString(d);
  }
}

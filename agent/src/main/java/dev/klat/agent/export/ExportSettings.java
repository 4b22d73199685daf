package dev.klat.agent.export;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.auth.Secrets;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How {@link Telemetry} exports: where, how often and how much it buffers. Immutable; build one
 * with {@link #builder()}, whose setters reject invalid values at once so that a bad configuration
 * fails at start-up, not while running.
 */
public final class ExportSettings {

  private final String endpoint;
  private final String serviceName;
  private final long instanceId;
  private final String hostName;
  private final long metricsIntervalMillis;
  private final long spanFlushIntervalMillis;
  private final int spanQueueCapacity;
  private final int tailQueueCapacity;
  private final int maxSpansPerRequest;
  private final int maxMetricSeries;
  private final boolean gzip;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final Map<String, String> resourceAttributes;
  private final Map<String, String> headers;
  private final ExportTls tls;

  private ExportSettings(Builder b) {
    this.endpoint = b.endpoint;
    this.serviceName = b.serviceName;
    this.instanceId = b.instanceId != 0 ? b.instanceId : TraceIds.randomNonZeroLong();
    this.hostName = b.hostName;
    this.metricsIntervalMillis = b.metricsIntervalMillis;
    this.spanFlushIntervalMillis = b.spanFlushIntervalMillis;
    this.spanQueueCapacity = b.spanQueueCapacity;
    this.tailQueueCapacity = tailQueueCapacity(b.spanQueueCapacity, b.tailMaxPerSecond);
    this.maxSpansPerRequest = b.maxSpansPerRequest;
    this.maxMetricSeries = b.maxMetricSeries;
    this.gzip = b.gzip;
    this.connectTimeoutMillis = b.connectTimeoutMillis;
    this.readTimeoutMillis = b.readTimeoutMillis;
    this.resourceAttributes =
        Collections.unmodifiableMap(new LinkedHashMap<>(b.resourceAttributes));
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.tls = b.tls;
  }

  /** Returns a new builder with the agent's defaults ({@link AgentConfig#defaults()}). */
  public static Builder builder() {
    return builder(AgentConfig.defaults());
  }

  /**
   * Returns a builder holding what {@code config} says about export: endpoint, service name,
   * metrics interval, queue size, request timeout, gzip, headers and TLS. The rest keeps its
   * default.
   *
   * @param config a loaded configuration
   * @return a new builder
   */
  public static Builder builder(AgentConfig config) {
    return new Builder()
        .endpoint(config.endpoint().toString())
        .serviceName(config.serviceName())
        .metricsIntervalMillis(config.metricsIntervalMillis())
        .spanQueueCapacity(config.exportQueueSize())
        .tailMaxPerSecond(config.tailMaxPerSecond())
        .readTimeoutMillis((int) Math.min(Integer.MAX_VALUE, config.exportTimeoutMillis()))
        .gzip(config.exportGzip())
        .headers(config.exportHeaders())
        .tls(config.exportTls());
  }

  /**
   * Returns the base URL; requests go to {@code <endpoint>/v1/traces} and {@code /v1/metrics}.
   *
   * @return an http or https URL without a trailing slash
   */
  public String endpoint() {
    return endpoint;
  }

  /**
   * Returns the {@code service.name} resource attribute.
   *
   * @return the service name, never null
   */
  public String serviceName() {
    return serviceName;
  }

  /**
   * Returns the agent instance id, exported as the {@code klat.instance.id} resource attribute.
   *
   * @return a non-zero id; random if none was set
   */
  public long instanceId() {
    return instanceId;
  }

  /**
   * Returns the {@code host.name} resource attribute, if configured.
   *
   * @return the host name, or null to look it up on the exporter thread
   */
  public String hostName() {
    return hostName;
  }

  /**
   * Returns how often metrics are exported.
   *
   * @return the interval in milliseconds
   */
  public long metricsIntervalMillis() {
    return metricsIntervalMillis;
  }

  /**
   * Returns how long spans may wait in the queue before a batch smaller than {@link
   * #maxSpansPerRequest()} is sent.
   *
   * @return the interval in milliseconds
   */
  public long spanFlushIntervalMillis() {
    return spanFlushIntervalMillis;
  }

  /**
   * Returns the most spans waiting for export; more are dropped and counted.
   *
   * @return the capacity
   */
  public int spanQueueCapacity() {
    return spanQueueCapacity;
  }

  /**
   * Returns the most tail spans waiting for export, beside {@link #spanQueueCapacity()}: a quarter
   * of it, or two seconds of {@code klat.tail.max-per-second} when that is more. The slow records
   * of a stall are acknowledged or polled within a few milliseconds of each other, so the queue
   * must hold the whole burst the cap admits until the exporter's next request (measured: with a
   * cap of 5,000 a second and a queue of 512, 4,241 of 20,070 tail spans of {@code TailCaptureIT}
   * were dropped for a full queue). At most {@link #MAX_TAIL_QUEUE_CAPACITY}.
   *
   * @return the capacity
   */
  public int tailQueueCapacity() {
    return tailQueueCapacity;
  }

  /** The most tail spans that wait, whatever the cap: about 64 MiB of spans at 1 KiB each. */
  public static final int MAX_TAIL_QUEUE_CAPACITY = 65_536;

  static int tailQueueCapacity(int spanQueueCapacity, int tailMaxPerSecond) {
    long twoSeconds = 2L * Math.max(0, tailMaxPerSecond);
    return (int)
        Math.min(MAX_TAIL_QUEUE_CAPACITY, Math.max(Math.max(1, spanQueueCapacity / 4), twoSeconds));
  }

  /**
   * Returns the most spans in one request.
   *
   * @return the batch size
   */
  public int maxSpansPerRequest() {
    return maxSpansPerRequest;
  }

  /**
   * Returns the most metric series the registry creates.
   *
   * @return the series bound
   */
  public int maxMetricSeries() {
    return maxMetricSeries;
  }

  /**
   * Returns whether request bodies are gzip-compressed.
   *
   * @return true to send {@code Content-Encoding: gzip}
   */
  public boolean gzip() {
    return gzip;
  }

  /**
   * Returns the TCP connect timeout of each request.
   *
   * @return the timeout in milliseconds
   */
  public int connectTimeoutMillis() {
    return connectTimeoutMillis;
  }

  /**
   * Returns the read timeout of each request.
   *
   * @return the timeout in milliseconds
   */
  public int readTimeoutMillis() {
    return readTimeoutMillis;
  }

  /**
   * Returns extra resource attributes.
   *
   * @return an unmodifiable map, in insertion order
   */
  public Map<String, String> resourceAttributes() {
    return resourceAttributes;
  }

  /**
   * Returns extra HTTP headers sent with every request, for example for authentication.
   *
   * @return an unmodifiable map, in insertion order
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * Returns the exporter's own TLS for an https endpoint.
   *
   * @return the CA certificates and client key it uses, or null for the JDK's defaults
   */
  public ExportTls tls() {
    return tls;
  }

  /** Builds {@link ExportSettings}. Not thread-safe. */
  public static final class Builder {
    private String endpoint;
    private String serviceName;
    private long instanceId;
    private String hostName;
    private long metricsIntervalMillis;
    private long spanFlushIntervalMillis = 1_000;
    private int spanQueueCapacity;
    private int tailMaxPerSecond;
    private int maxSpansPerRequest = 512;
    private int maxMetricSeries = MetricsRegistry.DEFAULT_MAX_SERIES;
    private boolean gzip;
    private int connectTimeoutMillis = 5_000;
    private int readTimeoutMillis;
    private final Map<String, String> resourceAttributes = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private ExportTls tls;

    private Builder() {}

    /**
     * Sets the OTLP/HTTP base URL. Default {@link AgentConfig#endpoint()}.
     *
     * @param endpoint an http or https URL; a trailing slash is removed
     * @return this builder
     * @throws IllegalArgumentException if it is null or not an http(s) URL
     */
    public Builder endpoint(String endpoint) {
      if (endpoint == null) {
        throw new IllegalArgumentException("endpoint is null");
      }
      String trimmed = endpoint.trim();
      while (trimmed.endsWith("/")) {
        trimmed = trimmed.substring(0, trimmed.length() - 1);
      }
      URL url;
      try {
        url = new URL(trimmed);
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException(
            "endpoint is not a URL: " + Secrets.redactUserInfo(endpoint));
      }
      if (!"http".equals(url.getProtocol()) && !"https".equals(url.getProtocol())) {
        throw new IllegalArgumentException(
            "endpoint must be http or https: " + Secrets.redactUserInfo(endpoint));
      }
      if (url.getHost().isEmpty() || url.getQuery() != null || url.getRef() != null) {
        throw new IllegalArgumentException(
            "endpoint must have a host and no query or fragment: "
                + Secrets.redactUserInfo(endpoint));
      }
      this.endpoint = trimmed;
      return this;
    }

    /**
     * Sets the {@code service.name} resource attribute. Default {@link AgentConfig#serviceName()}.
     *
     * @param serviceName not null or empty
     * @return this builder
     * @throws IllegalArgumentException if it is null or empty
     */
    public Builder serviceName(String serviceName) {
      this.serviceName = requireText("serviceName", serviceName);
      return this;
    }

    /**
     * Sets the agent instance id. Default: a random non-zero id.
     *
     * @param instanceId the id; 0 means "pick a random one"
     * @return this builder
     */
    public Builder instanceId(long instanceId) {
      this.instanceId = instanceId;
      return this;
    }

    /**
     * Sets the {@code host.name} resource attribute. Default: looked up on the exporter thread
     * (never on the caller's, since a reverse DNS lookup can take seconds).
     *
     * @param hostName not null or empty
     * @return this builder
     * @throws IllegalArgumentException if it is null or empty
     */
    public Builder hostName(String hostName) {
      this.hostName = requireText("hostName", hostName);
      return this;
    }

    /**
     * Sets how often metrics are exported. Default {@link AgentConfig#metricsIntervalMillis()}.
     *
     * @param metricsIntervalMillis at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder metricsIntervalMillis(long metricsIntervalMillis) {
      this.metricsIntervalMillis = requirePositive("metricsIntervalMillis", metricsIntervalMillis);
      return this;
    }

    /**
     * Sets how long spans may wait before a partial batch is sent. Default 1,000 ms.
     *
     * @param spanFlushIntervalMillis at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder spanFlushIntervalMillis(long spanFlushIntervalMillis) {
      this.spanFlushIntervalMillis =
          requirePositive("spanFlushIntervalMillis", spanFlushIntervalMillis);
      return this;
    }

    /**
     * Sets the most spans waiting for export. Default {@link AgentConfig#exportQueueSize()}.
     *
     * @param spanQueueCapacity at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder spanQueueCapacity(int spanQueueCapacity) {
      this.spanQueueCapacity = (int) requirePositive("spanQueueCapacity", spanQueueCapacity);
      return this;
    }

    /**
     * Sets {@code klat.tail.max-per-second}, which sizes the tail spans' queue ({@link
     * ExportSettings#tailQueueCapacity()}). Default 0: the queue is a quarter of the spans' queue.
     *
     * @param tailMaxPerSecond at least 0
     * @return this builder
     */
    public Builder tailMaxPerSecond(int tailMaxPerSecond) {
      this.tailMaxPerSecond = Math.max(0, tailMaxPerSecond);
      return this;
    }

    /**
     * Sets the most spans per request. Default 512.
     *
     * @param maxSpansPerRequest at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder maxSpansPerRequest(int maxSpansPerRequest) {
      this.maxSpansPerRequest = (int) requirePositive("maxSpansPerRequest", maxSpansPerRequest);
      return this;
    }

    /**
     * Sets the most metric series. Default {@value MetricsRegistry#DEFAULT_MAX_SERIES}.
     *
     * @param maxMetricSeries at least 0
     * @return this builder
     * @throws IllegalArgumentException if it is negative
     */
    public Builder maxMetricSeries(int maxMetricSeries) {
      if (maxMetricSeries < 0) {
        throw new IllegalArgumentException("maxMetricSeries must be >= 0, got " + maxMetricSeries);
      }
      this.maxMetricSeries = maxMetricSeries;
      return this;
    }

    /**
     * Sets whether request bodies are gzip-compressed. Default {@link AgentConfig#exportGzip()}.
     *
     * @param gzip true to compress
     * @return this builder
     */
    public Builder gzip(boolean gzip) {
      this.gzip = gzip;
      return this;
    }

    /**
     * Sets the connect timeout of each request. Default 5,000 ms.
     *
     * @param connectTimeoutMillis at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder connectTimeoutMillis(int connectTimeoutMillis) {
      this.connectTimeoutMillis =
          (int) requirePositive("connectTimeoutMillis", connectTimeoutMillis);
      return this;
    }

    /**
     * Sets the read timeout of each request. Default {@link AgentConfig#exportTimeoutMillis()}.
     *
     * @param readTimeoutMillis at least 1
     * @return this builder
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder readTimeoutMillis(int readTimeoutMillis) {
      this.readTimeoutMillis = (int) requirePositive("readTimeoutMillis", readTimeoutMillis);
      return this;
    }

    /**
     * Adds a resource attribute. {@code service.name} and {@code klat.instance.id} cannot be set
     * this way: they come from {@link #serviceName} and {@link #instanceId}. Default: none.
     *
     * @param key not null or empty
     * @param value not null
     * @return this builder
     * @throws IllegalArgumentException if the key is null, empty or reserved, or the value null
     */
    public Builder resourceAttribute(String key, String value) {
      requireText("resource attribute key", key);
      if (value == null) {
        throw new IllegalArgumentException("resource attribute " + key + " has a null value");
      }
      if (ResourceAttributes.RESERVED_KEYS.contains(key)) {
        throw new IllegalArgumentException("resource attribute " + key + " is set by klat");
      }
      resourceAttributes.put(key, value);
      return this;
    }

    /**
     * Adds an HTTP header sent with every request. Default: none.
     *
     * @param name a header name, not null or empty
     * @param value a header value without line breaks
     * @return this builder
     * @throws IllegalArgumentException if either is invalid
     */
    public Builder header(String name, String value) {
      requireText("header name", name);
      if (value == null || hasLineBreak(name) || hasLineBreak(value)) {
        throw new IllegalArgumentException("invalid value for header " + name);
      }
      headers.put(name, value);
      return this;
    }

    /**
     * Adds every header of {@code headers}, as {@link #header} does. Default: none.
     *
     * @param headers names and values, for example {@link AgentConfig#exportHeaders()}
     * @return this builder
     * @throws IllegalArgumentException if one is invalid (the message does not quote its value)
     */
    public Builder headers(Map<String, String> headers) {
      for (Map.Entry<String, String> header : headers.entrySet()) {
        header(header.getKey(), header.getValue());
      }
      return this;
    }

    /**
     * Sets the exporter's own TLS, used when the endpoint is https. Default: null, the JDK's
     * default trust and no client certificate.
     *
     * @param tls from {@link AgentConfig#exportTls()}, or null
     * @return this builder
     */
    public Builder tls(ExportTls tls) {
      this.tls = tls;
      return this;
    }

    /** Builds the settings. */
    public ExportSettings build() {
      return new ExportSettings(this);
    }

    private static boolean hasLineBreak(String s) {
      return s.indexOf('\r') >= 0 || s.indexOf('\n') >= 0;
    }

    private static String requireText(String what, String value) {
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException(what + " must not be null or empty");
      }
      return value;
    }

    private static long requirePositive(String what, long value) {
      if (value < 1) {
        throw new IllegalArgumentException(what + " must be >= 1, got " + value);
      }
      return value;
    }
  }
}

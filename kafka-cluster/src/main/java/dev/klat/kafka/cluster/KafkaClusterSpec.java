package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** What cluster to start: how many brokers, where, and with which broker configuration. */
public final class KafkaClusterSpec {

  /** Where clusters keep their files unless told otherwise: {@code target/kafka-cluster}. */
  public static final Path DEFAULT_WORK_ROOT = Paths.get("target", "kafka-cluster");

  private final String name;
  private final int brokerCount;
  private final Map<String, String> brokerProperties;
  private final Path workRoot;
  private final int brokerHeapMb;
  private final Duration startTimeout;
  private final AddressInterceptor addressInterceptor;
  private final List<String> brokerJvmOptions;

  private KafkaClusterSpec(Builder builder) {
    this.name = builder.name;
    this.brokerCount = builder.brokerCount;
    this.brokerProperties = Collections.unmodifiableMap(new LinkedHashMap<>(builder.properties));
    this.workRoot = builder.workRoot;
    this.brokerHeapMb = builder.brokerHeapMb;
    this.startTimeout = builder.startTimeout;
    this.addressInterceptor = builder.addressInterceptor;
    this.brokerJvmOptions = Collections.unmodifiableList(new ArrayList<>(builder.brokerJvmOptions));
  }

  /** A spec for {@code brokerCount} brokers (1 or 3 in our tests; any positive count works). */
  public static Builder brokers(int brokerCount) {
    return new Builder(brokerCount);
  }

  /** A name for the cluster's work directory, usually the test class. */
  public String name() {
    return name;
  }

  public int brokerCount() {
    return brokerCount;
  }

  /** Broker configuration added to, and overriding, the fixture's defaults. */
  public Map<String, String> brokerProperties() {
    return brokerProperties;
  }

  public Path workRoot() {
    return workRoot;
  }

  public int brokerHeapMb() {
    return brokerHeapMb;
  }

  public Duration startTimeout() {
    return startTimeout;
  }

  public AddressInterceptor addressInterceptor() {
    return addressInterceptor;
  }

  /** JVM options added to every broker's command line, before the main class. */
  public List<String> brokerJvmOptions() {
    return brokerJvmOptions;
  }

  /** Builds a {@link KafkaClusterSpec}; every setter states its default. */
  public static final class Builder {
    private final int brokerCount;
    private String name = "cluster";
    private final Map<String, String> properties = new LinkedHashMap<>();
    private Path workRoot = DEFAULT_WORK_ROOT;
    private int brokerHeapMb = 384;
    private Duration startTimeout = Duration.ofSeconds(120);
    private AddressInterceptor addressInterceptor = AddressInterceptor.NONE;
    private final List<String> brokerJvmOptions = new ArrayList<>();

    private Builder(int brokerCount) {
      if (brokerCount < 1) {
        throw new IllegalArgumentException("brokerCount must be at least 1, was " + brokerCount);
      }
      this.brokerCount = brokerCount;
    }

    /** Names the work directory ({@code <workRoot>/<name>-<timestamp>}); default "cluster". */
    public Builder name(String name) {
      if (name == null || name.isEmpty() || !name.matches("[A-Za-z0-9._-]+")) {
        throw new IllegalArgumentException("name must be [A-Za-z0-9._-]+, was " + name);
      }
      this.name = name;
      return this;
    }

    /** Sets a broker configuration property on every broker, e.g. {@code log.retention.ms}. */
    public Builder brokerProperty(String key, String value) {
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Parent of the cluster's work directory; default {@link #DEFAULT_WORK_ROOT}. */
    public Builder workRoot(Path workRoot) {
      this.workRoot = Objects.requireNonNull(workRoot, "workRoot");
      return this;
    }

    /** Maximum heap of each broker JVM, in MiB; default 384. */
    public Builder brokerHeapMb(int brokerHeapMb) {
      if (brokerHeapMb < 128) {
        throw new IllegalArgumentException(
            "brokerHeapMb must be at least 128, was " + brokerHeapMb);
      }
      this.brokerHeapMb = brokerHeapMb;
      return this;
    }

    /** How long to wait for the cluster to be ready; default 120 s. */
    public Builder startTimeout(Duration startTimeout) {
      if (startTimeout.isNegative() || startTimeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive, was " + startTimeout);
      }
      this.startTimeout = startTimeout;
      return this;
    }

    /** Chooses advertised addresses; default {@link AddressInterceptor#NONE}. */
    public Builder addressInterceptor(AddressInterceptor addressInterceptor) {
      this.addressInterceptor = Objects.requireNonNull(addressInterceptor, "addressInterceptor");
      return this;
    }

    /**
     * Adds a JVM option to every broker's command line, e.g. a {@code -javaagent}; none by default.
     */
    public Builder brokerJvmOption(String option) {
      brokerJvmOptions.add(Objects.requireNonNull(option, "option"));
      return this;
    }

    /**
     * Attaches klat's broker probe to every broker, as an operator does through {@code KAFKA_OPTS}:
     * {@code -javaagent:<probeJar>} sending to the collector at {@code endpoint}.
     */
    public Builder brokerProbe(Path probeJar, String endpoint) {
      return brokerJvmOption("-javaagent:" + probeJar.toAbsolutePath())
          .brokerJvmOption("-Dklat.endpoint=" + endpoint);
    }

    public KafkaClusterSpec build() {
      return new KafkaClusterSpec(this);
    }

    /** Builds the spec and starts the cluster; see {@link KafkaCluster#start(KafkaClusterSpec)}. */
    public KafkaCluster start() {
      return KafkaCluster.start(build());
    }
  }
}

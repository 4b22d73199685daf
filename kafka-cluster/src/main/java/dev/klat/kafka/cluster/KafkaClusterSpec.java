package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
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
  private final ClusterTls tls;
  private final Map<Listener, ListenerSecurity> listenerSecurity;
  private final Map<String, String> scramUsers;
  private final Map<String, Path> tlsUsers;
  private final String jmxUser;
  private final String jmxPassword;

  private KafkaClusterSpec(Builder builder) {
    this.jmxUser = builder.jmxUser;
    this.jmxPassword = builder.jmxPassword;
    this.tls = builder.tls;
    this.listenerSecurity = Collections.unmodifiableMap(new EnumMap<>(builder.listenerSecurity));
    this.scramUsers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.scramUsers));
    this.tlsUsers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.tlsUsers));
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

  /** The TLS material of secured listeners, or null for a plaintext cluster. */
  public ClusterTls tls() {
    return tls;
  }

  /** How {@code listener} is secured; {@link ListenerSecurity#PLAINTEXT} unless set. */
  public ListenerSecurity security(Listener listener) {
    return listenerSecurity.getOrDefault(listener, ListenerSecurity.PLAINTEXT);
  }

  /** True when a client listener is secured: ACLs are then on. */
  public boolean secured() {
    return !listenerSecurity.isEmpty();
  }

  /** The SCRAM-SHA-512 users created at format time, name to password. */
  public Map<String, String> scramUsers() {
    return scramUsers;
  }

  /** The client certificates of named principals (mTLS), name to PKCS#12 key store. */
  public Map<String, Path> tlsUsers() {
    return tlsUsers;
  }

  /** The read-only JMX user of every broker, or null when JMX is open and plaintext. */
  public String jmxUser() {
    return jmxUser;
  }

  /** Its password, or null. */
  public String jmxPassword() {
    return jmxPassword;
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
    private ClusterTls tls;
    private final Map<Listener, ListenerSecurity> listenerSecurity = new EnumMap<>(Listener.class);
    private final Map<String, String> scramUsers = new LinkedHashMap<>();
    private final Map<String, Path> tlsUsers = new LinkedHashMap<>();
    private String jmxUser;
    private String jmxPassword;

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

    /** The brokers' TLS material, needed by a secured listener; none by default. */
    public Builder tls(ClusterTls tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    /**
     * Secures a client listener ({@link Listener#CLIENT} or {@link Listener#SECOND_CLIENT});
     * plaintext by default. A secured cluster turns ACLs on ({@code StandardAuthorizer}): only the
     * fixture's admin (see {@link KafkaCluster#clientProperties()}) and the plaintext inter-broker
     * and controller listeners ({@code User:ANONYMOUS}, loopback only) are super users, everyone
     * else needs ACLs ({@link KafkaCluster#createAcls}).
     */
    public Builder listener(Listener listener, ListenerSecurity security) {
      if (listener != Listener.CLIENT && listener != Listener.SECOND_CLIENT) {
        throw new IllegalArgumentException(
            "only the client listeners can be secured (replication and controller stay"
                + " plaintext on loopback), not "
                + listener);
      }
      if (security == ListenerSecurity.PLAINTEXT) {
        listenerSecurity.remove(listener);
      } else {
        listenerSecurity.put(listener, Objects.requireNonNull(security, "security"));
      }
      return this;
    }

    /** A SCRAM-SHA-512 user created when the storage is formatted. */
    public Builder scramUser(String name, String password) {
      if (!name.matches("[A-Za-z0-9._-]+") || password.isEmpty() || password.contains("\"")) {
        throw new IllegalArgumentException("a SCRAM user is [A-Za-z0-9._-]+ with a password");
      }
      scramUsers.put(name, password);
      return this;
    }

    /**
     * A principal that connects to an {@link ListenerSecurity#MTLS} listener with the certificate
     * in {@code keyStore} (PKCS#12, the {@link ClusterTls} password), whose common name is {@code
     * name}.
     */
    public Builder tlsUser(String name, Path keyStore) {
      tlsUsers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(keyStore, "ks"));
      return this;
    }

    /**
     * Secures every broker's remote JMX as production does: TLS for the RMI registry and the
     * connector with the brokers' key store of {@link #tls}, and a password for one read-only user.
     * Open and plaintext by default. A client then needs the CA in its JVM's default trust store.
     */
    public Builder jmxUser(String name, String password) {
      if (!name.matches("[A-Za-z0-9._-]+") || password.isEmpty() || password.contains(" ")) {
        throw new IllegalArgumentException("a JMX user is [A-Za-z0-9._-]+ with a password");
      }
      this.jmxUser = name;
      this.jmxPassword = password;
      return this;
    }

    public KafkaClusterSpec build() {
      if (jmxUser != null && tls == null) {
        throw new IllegalArgumentException("a JMX user needs tls(ClusterTls)");
      }
      if (!listenerSecurity.isEmpty() && tls == null) {
        throw new IllegalArgumentException("a secured listener needs tls(ClusterTls)");
      }
      return new KafkaClusterSpec(this);
    }

    /** Builds the spec and starts the cluster; see {@link KafkaCluster#start(KafkaClusterSpec)}. */
    public KafkaCluster start() {
      return KafkaCluster.start(build());
    }
  }
}

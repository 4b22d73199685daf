package dev.klat.kafka.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** A topic to create: partitions, replication, and the configs the latency model cares about. */
public final class TopicSpec {

  /** Which clock stamps record timestamps ({@code message.timestamp.type}). */
  public enum TimestampType {
    /** The producer's clock at {@code send()} (Kafka's default). */
    CREATE_TIME("CreateTime"),
    /** The leader broker's clock at append: makes the leader append instant L observable. */
    LOG_APPEND_TIME("LogAppendTime");

    private final String configValue;

    TimestampType(String configValue) {
      this.configValue = configValue;
    }

    /** The value of the {@code message.timestamp.type} topic config. */
    public String configValue() {
      return configValue;
    }
  }

  private final String name;
  private final int partitions;
  private final short replicationFactor;
  private final Map<String, String> configs;
  private final int preferredLeader;

  private TopicSpec(Builder builder) {
    this.name = builder.name;
    this.partitions = builder.partitions;
    this.replicationFactor = builder.replicationFactor;
    this.preferredLeader = builder.preferredLeader;
    this.configs = Collections.unmodifiableMap(new LinkedHashMap<>(builder.configs));
  }

  /** A topic named {@code name}: 1 partition, replication factor 1, broker default configs. */
  public static Builder named(String name) {
    return new Builder(name);
  }

  public String name() {
    return name;
  }

  public int partitions() {
    return partitions;
  }

  public short replicationFactor() {
    return replicationFactor;
  }

  /** The node id that leads every partition, or 0 when the controller chooses. */
  public int preferredLeader() {
    return preferredLeader;
  }

  /** Topic configs, such as {@code min.insync.replicas} and {@code message.timestamp.type}. */
  public Map<String, String> configs() {
    return configs;
  }

  @Override
  public String toString() {
    return name + "[partitions=" + partitions + ", rf=" + replicationFactor + ", " + configs + "]";
  }

  /** Builds a {@link TopicSpec}. */
  public static final class Builder {
    private final String name;
    private int partitions = 1;
    private short replicationFactor = 1;
    private int preferredLeader;
    private final Map<String, String> configs = new LinkedHashMap<>();

    private Builder(String name) {
      if (name == null || !name.matches("[A-Za-z0-9._-]{1,249}")) {
        throw new IllegalArgumentException("not a legal topic name: " + name);
      }
      this.name = name;
    }

    /** Number of partitions; default 1. */
    public Builder partitions(int partitions) {
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
      }
      this.partitions = partitions;
      return this;
    }

    /** Replication factor; default 1. */
    public Builder replicationFactor(int replicationFactor) {
      if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
        throw new IllegalArgumentException("replicationFactor out of range: " + replicationFactor);
      }
      this.replicationFactor = (short) replicationFactor;
      return this;
    }

    /** {@code min.insync.replicas}; default: the broker's (1). */
    public Builder minInsyncReplicas(int minInsyncReplicas) {
      if (minInsyncReplicas < 1) {
        throw new IllegalArgumentException(
            "minInsyncReplicas must be at least 1, was " + minInsyncReplicas);
      }
      return config("min.insync.replicas", Integer.toString(minInsyncReplicas));
    }

    /** {@code message.timestamp.type}; default: the broker's (CreateTime). */
    public Builder timestampType(TimestampType timestampType) {
      return config("message.timestamp.type", timestampType.configValue());
    }

    /**
     * Makes broker {@code nodeId} the leader of every partition (the first replica of each), the
     * other replicas following in node id order; default: the controller chooses.
     */
    public Builder preferredLeader(int nodeId) {
      if (nodeId < 1) {
        throw new IllegalArgumentException("node ids start at 1, was " + nodeId);
      }
      this.preferredLeader = nodeId;
      return this;
    }

    /** Any other topic config. */
    public Builder config(String key, String value) {
      configs.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public TopicSpec build() {
      return new TopicSpec(this);
    }
  }
}

package dev.klat.probe;

import dev.klat.agentcore.otlp.ProtoWriter;
import dev.klat.model.BrokerProbeWire;
import dev.klat.model.SpanAttributes;

/**
 * Writes the probe's ranges as one OTLP {@code ExportLogsServiceRequest} (protobuf): one resource
 * (the broker), one scope, one log record per partition and leader term. Field numbers are those of
 * {@code opentelemetry/proto/logs/v1/logs.proto}; tests read the result with the real schema. The
 * exporter thread only; the writer is reused from one export to the next.
 */
final class LogsEncoder {

  // ExportLogsServiceRequest, ResourceLogs, ScopeLogs, LogRecord, Resource, KeyValue, AnyValue.
  private static final int REQUEST_RESOURCE_LOGS = 1;
  private static final int RESOURCE_LOGS_RESOURCE = 1;
  private static final int RESOURCE_LOGS_SCOPE_LOGS = 2;
  private static final int RESOURCE_ATTRIBUTES = 1;
  private static final int SCOPE_LOGS_SCOPE = 1;
  private static final int SCOPE_LOGS_LOG_RECORDS = 2;
  private static final int SCOPE_NAME = 1;
  private static final int SCOPE_VERSION = 2;
  private static final int LOG_TIME = 1;
  private static final int LOG_ATTRIBUTES = 6;
  private static final int LOG_OBSERVED_TIME = 11;
  private static final int LOG_EVENT_NAME = 12;
  private static final int KEY_VALUE_KEY = 1;
  private static final int KEY_VALUE_VALUE = 2;
  private static final int ANY_STRING = 1;
  private static final int ANY_INT = 3;
  private static final int ANY_BYTES = 7;

  /** The event name of every record the probe sends, {@value}. */
  static final String EVENT_NAME = "klat.probe.ranges";

  private final ProtoWriter writer = new ProtoWriter(64 * 1024);
  private final String serviceName;
  private final long instanceId;
  private final String version;
  private int resourceLogsMark;
  private int scopeLogsMark;
  private int records;

  LogsEncoder(String serviceName, long instanceId, String version) {
    this.serviceName = serviceName;
    this.instanceId = instanceId;
    this.version = version;
  }

  /**
   * Starts a request.
   *
   * @param brokerId the broker's node id
   * @param coveredUntilMicros every event before this wall-clock instant is in this request or an
   *     earlier one
   * @param droppedEvents events dropped since start
   * @param clockOffsetNanos {@code clock(collector) - clock(broker)}, or {@link Long#MIN_VALUE}
   * @param clockUncertaintyNanos its uncertainty
   */
  void begin(
      int brokerId,
      long coveredUntilMicros,
      long droppedEvents,
      long clockOffsetNanos,
      long clockUncertaintyNanos) {
    writer.reset();
    records = 0;
    resourceLogsMark = writer.beginMessage(REQUEST_RESOURCE_LOGS);
    int resource = writer.beginMessage(RESOURCE_LOGS_RESOURCE);
    stringAttribute(RESOURCE_ATTRIBUTES, "service.name", serviceName);
    intAttribute(RESOURCE_ATTRIBUTES, SpanAttributes.INSTANCE_ID.name(), instanceId);
    intAttribute(RESOURCE_ATTRIBUTES, BrokerProbeWire.BROKER_ID, brokerId);
    intAttribute(RESOURCE_ATTRIBUTES, BrokerProbeWire.COVERED_UNTIL_MICROS, coveredUntilMicros);
    intAttribute(RESOURCE_ATTRIBUTES, BrokerProbeWire.DROPPED_EVENTS, droppedEvents);
    intAttribute(RESOURCE_ATTRIBUTES, BrokerProbeWire.READS_STABLE_OFFSET, 1);
    if (clockOffsetNanos != Long.MIN_VALUE) {
      intAttribute(
          RESOURCE_ATTRIBUTES,
          SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name(),
          clockOffsetNanos);
      intAttribute(
          RESOURCE_ATTRIBUTES,
          SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name(),
          clockUncertaintyNanos);
    }
    writer.endMessage(resource);
    scopeLogsMark = writer.beginMessage(RESOURCE_LOGS_SCOPE_LOGS);
    int scope = writer.beginMessage(SCOPE_LOGS_SCOPE);
    writer.stringField(SCOPE_NAME, BrokerProbeWire.SCOPE_NAME);
    writer.stringField(SCOPE_VERSION, version);
    writer.endMessage(scope);
  }

  /** Adds one partition's ranges of one leader term, and empties the lists. */
  void add(
      String topic,
      int partition,
      int leaderEpoch,
      RangeList appends,
      RangeList commits,
      long nowNanos) {
    add(topic, partition, leaderEpoch, appends, commits, null, -1, nowNanos);
  }

  /**
   * Adds one partition's ranges of one leader term, with the ranges its last stable offset passed
   * ({@code stables}, null for a partition without transactions) and the offset they are complete
   * from ({@code stableFrom}, -1 when not known), and empties the lists.
   */
  void add(
      String topic,
      int partition,
      int leaderEpoch,
      RangeList appends,
      RangeList commits,
      RangeList stables,
      long stableFrom,
      long nowNanos) {
    int record = writer.beginMessage(SCOPE_LOGS_LOG_RECORDS);
    writer.fixed64Field(LOG_TIME, nowNanos);
    writer.fixed64Field(LOG_OBSERVED_TIME, nowNanos);
    stringAttribute(LOG_ATTRIBUTES, BrokerProbeWire.TOPIC, topic);
    intAttribute(LOG_ATTRIBUTES, BrokerProbeWire.PARTITION, partition);
    intAttribute(LOG_ATTRIBUTES, BrokerProbeWire.LEADER_EPOCH, leaderEpoch);
    if (!appends.isEmpty()) {
      byte[] requests = appends.packedRequests();
      bytesAttribute(LOG_ATTRIBUTES, BrokerProbeWire.APPENDS, appends.drainPacked());
      if (requests != null) {
        bytesAttribute(LOG_ATTRIBUTES, BrokerProbeWire.APPEND_REQUESTS, requests);
      }
    }
    if (!commits.isEmpty()) {
      byte[] followers = commits.packedFollowers();
      bytesAttribute(LOG_ATTRIBUTES, BrokerProbeWire.COMMITS, commits.drainPacked());
      if (followers != null) {
        bytesAttribute(LOG_ATTRIBUTES, BrokerProbeWire.COMMIT_FOLLOWERS, followers);
      }
    }
    if (stables != null && !stables.isEmpty()) {
      bytesAttribute(LOG_ATTRIBUTES, BrokerProbeWire.STABLES, stables.drainPacked());
    }
    if (stables != null && stableFrom >= 0) {
      intAttribute(LOG_ATTRIBUTES, BrokerProbeWire.STABLE_FROM, stableFrom);
    }
    writer.stringField(LOG_EVENT_NAME, EVENT_NAME);
    writer.endMessage(record);
    records++;
  }

  int records() {
    return records;
  }

  int size() {
    return writer.size();
  }

  /** Ends the request and returns its bytes. */
  byte[] finish() {
    writer.endMessage(scopeLogsMark);
    writer.endMessage(resourceLogsMark);
    return writer.toByteArray();
  }

  private void stringAttribute(int field, String key, String value) {
    int kv = writer.beginMessage(field);
    writer.stringField(KEY_VALUE_KEY, key);
    int any = writer.beginMessage(KEY_VALUE_VALUE);
    writer.stringField(ANY_STRING, value);
    writer.endMessage(any);
    writer.endMessage(kv);
  }

  private void intAttribute(int field, String key, long value) {
    int kv = writer.beginMessage(field);
    writer.stringField(KEY_VALUE_KEY, key);
    int any = writer.beginMessage(KEY_VALUE_VALUE);
    writer.varintField(ANY_INT, value);
    writer.endMessage(any);
    writer.endMessage(kv);
  }

  private void bytesAttribute(int field, String key, byte[] value) {
    int kv = writer.beginMessage(field);
    writer.stringField(KEY_VALUE_KEY, key);
    int any = writer.beginMessage(KEY_VALUE_VALUE);
    writer.bytesField(ANY_BYTES, value);
    writer.endMessage(any);
    writer.endMessage(kv);
  }
}

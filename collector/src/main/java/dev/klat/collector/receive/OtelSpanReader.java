package dev.klat.collector.receive;

import dev.klat.collector.correlate.join.OtelRecordSpan;
import dev.klat.collector.correlate.join.ProducerRefs;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.OtelMessagingAttributes;
import dev.klat.model.SpanAttributes;
import java.util.Map;

/**
 * Reads a span that is not klat's as the span of an OpenTelemetry Kafka instrumentation (section 10
 * of the latency model; {@code docs/clients.md}, "What each instrumentation sends", has the shapes
 * this follows and where each was read): a producer or consumer record span becomes an {@link
 * OtelRecordSpan}, anything else an {@link Outcome} that is only counted.
 *
 * <ul>
 *   <li>Not Kafka: {@code messaging.system} is not {@code kafka}, or the span carries klat's
 *       instance id (a span of klat's agent).
 *   <li>The role: span kind {@code PRODUCER} or {@code CONSUMER}; a {@code CLIENT} span by its
 *       operation (the current conventions make a poll a {@code CLIENT} span, and the Java agent's
 *       send one when it propagates no context). Other kinds and operations: {@link Outcome#OTHER}.
 *   <li>Every name and number under any of the names the conventions gave it ({@link
 *       OtelMessagingAttributes}), current names first. A value of the wrong kind (an offset that
 *       is no integer, a negative partition, a topic Kafka does not allow, a name or scope longer
 *       than {@link WireNames#MAX_NAME_CHARS}) refuses the span with the reason, as a bad klat span
 *       is refused.
 *   <li>A consumer-side span without topic, partition or offset names no record: a batch (a receive
 *       or poll, a batch count, several links) or, for one record, unplaceable.
 *   <li>{@code P}: the start of a process span; the end of a receive span of one record, which ends
 *       when the poll hands the record over (franz-go's kotel, otelsarama, Confluent.Kafka's poll).
 *   <li>{@code A}: the span's end only for the instrumentations that end it at the acknowledgement
 *       ({@link #ackRule}); any other scope's end is not read.
 *   <li>The host (section 10): the resource's {@code service.instance.id}, else {@code host.name}
 *       and {@code process.pid}, else {@code service.name}; a consumer without a group attribute is
 *       in group {@code service:<service.name>}.
 * </ul>
 *
 * Stateless; the host of a resource is kept on the reused {@link OtlpSpan} while its spans are
 * read.
 */
final class OtelSpanReader {
  /** The reason a span with a value of the wrong kind is refused under. */
  static final String REASON_VALUE = "bad-value";

  /** OpenTelemetry Java agent, kafka-clients instrumentation (1.x and 2.x). */
  static final String SCOPE_JAVA_AGENT = "io.opentelemetry.kafka-clients-0.11";

  /** OpenTelemetry Java library instrumentation, {@code KafkaTelemetry} (wrapper, interceptors). */
  static final String SCOPE_JAVA_LIBRARY = "io.opentelemetry.kafka-clients-2.6";

  /** {@code @opentelemetry/instrumentation-kafkajs}. */
  static final String SCOPE_KAFKAJS = "@opentelemetry/instrumentation-kafkajs";

  /** franz-go's kotel plugin. */
  static final String SCOPE_KOTEL = "github.com/twmb/franz-go/plugin/kotel";

  /** otelsarama, opentelemetry-go-contrib (up to v0.43.0). */
  static final String SCOPE_OTELSARAMA =
      "go.opentelemetry.io/contrib/instrumentation/github.com/Shopify/sarama/otelsarama";

  /** otelsarama for IBM/sarama (github.com/dnwe/otelsarama): otelsarama's shapes, another name. */
  static final String SCOPE_OTELSARAMA_IBM =
      "go.opentelemetry.io/contrib/instrumentation/github.com/IBM/sarama/otelsarama";

  /** opentelemetry-python-contrib, confluent-kafka. */
  static final String SCOPE_PYTHON_CONFLUENT = "opentelemetry.instrumentation.confluent_kafka";

  /** opentelemetry-python-contrib, kafka-python. */
  static final String SCOPE_PYTHON_KAFKA = "opentelemetry.instrumentation.kafka";

  /** opentelemetry-dotnet-contrib, Confluent.Kafka. */
  static final String SCOPE_DOTNET = "OpenTelemetry.Instrumentation.ConfluentKafka";

  // Instants beyond 2^62 ns (year 2116) are garbage, as in SpanMapper.
  private static final long MAX_EPOCH_NANOS = 1L << 62;
  private static final String GROUP_PREFIX = "service:";

  /** What a span not klat's was read as: the label of {@code klat.collector.otel.spans}. */
  enum Outcome {
    /** A producer record span. */
    PRODUCER("producer"),
    /** A consumer record span. */
    CONSUMER("consumer"),
    /** A consumer-side span of many records (a poll, a receive, a batch process span). */
    BATCH("batch"),
    /** A record span that does not say which record: no topic, or a consumer without partition. */
    UNPLACEABLE("unplaceable"),
    /** A send or receive that failed (error status or {@code error.type}). */
    FAILED("failed"),
    /** A Kafka span of another kind or operation. */
    OTHER("other"),
    /** A Kafka span refused for a value of the wrong kind (also counted as rejected). */
    REFUSED("refused"),
    /** Not a Kafka span (also counted as not klat's). */
    NOT_KAFKA("not-kafka");

    final String label;

    Outcome(String label) {
      this.label = label;
    }
  }

  /** When an instrumentation's producer span ends at the acknowledgement. */
  enum AckRule {
    /** Never, or not known to: the span's end is not read. */
    NEVER,
    /** Always (a failed send is not a record span anyway). */
    ALWAYS,
    /**
     * When the span carries the offset: the Java instrumentations end it in the send callback that
     * gives the offset, but the library's producer interceptor ends it in {@code onSend}, without.
     */
    WITH_OFFSET
  }

  private enum Operation {
    NONE,
    SEND,
    RECEIVE,
    PROCESS,
    OTHER
  }

  private OtelSpanReader() {}

  /**
   * The instrumentations whose producer span ends when the acknowledgement arrives: the Java agent
   * and library ({@code ProducerCallback}), kafkajs (the send promise), kotel ({@code
   * OnProduceRecordUnbuffered}), otelsarama (sync send returned, or the async success). Not:
   * Python's (the span covers the call of {@code produce} / {@code send}) and Confluent.Kafka's
   * .NET (its {@code Produce} ends in the call, its {@code ProduceAsync} at the delivery, and both
   * have the same scope).
   */
  static AckRule ackRule(String scope) {
    return switch (scope) {
      case SCOPE_JAVA_AGENT, SCOPE_JAVA_LIBRARY -> AckRule.WITH_OFFSET;
      case SCOPE_KAFKAJS, SCOPE_KOTEL, SCOPE_OTELSARAMA, SCOPE_OTELSARAMA_IBM -> AckRule.ALWAYS;
      default -> AckRule.NEVER;
    };
  }

  /** Reads {@code span}, which carries no klat attribute. */
  static SpanMapper.Result read(OtlpSpan span) {
    KlatAttributes a = span.attributes;
    // A span of klat's agent (its instance id on the span) that SpanMapper did not take is not an
    // instrumentation's either: reading it as one would report its record twice.
    if (!SpanAttributes.MESSAGING_SYSTEM_KAFKA.equals(a.string(KlatAttributes.MESSAGING_SYSTEM))
        || a.has(KlatAttributes.INSTANCE_ID)) {
      return SpanMapper.Result.IGNORED;
    }
    try {
      return recordSpan(span);
    } catch (SpanMapper.Refused e) {
      return SpanMapper.Result.refusedOtel(e.getMessage(), e.reason);
    } catch (IllegalArgumentException e) {
      // OtelRecordSpan's own checks: a value the checks above let through is still refused.
      return SpanMapper.Result.refusedOtel(e.getMessage(), REASON_VALUE);
    }
  }

  private static SpanMapper.Result recordSpan(OtlpSpan span) {
    KlatAttributes a = span.attributes;
    String scope = scope(span);
    Operation operation = operation(a);
    OtelRecordSpan.Role role = role(span.kind, operation);
    if (role == null) {
      return SpanMapper.Result.otel(Outcome.OTHER);
    }
    if (span.statusCode == OtlpSpan.STATUS_ERROR || a.has(KlatAttributes.OTEL_ERROR_TYPE)) {
      return SpanMapper.Result.otel(Outcome.FAILED);
    }
    String topic = topic(a);
    long partition = partition(a);
    long offset = offset(a, scope, topic, partition);
    if (role == OtelRecordSpan.Role.CONSUMER && (topic == null || partition < 0 || offset < 0)) {
      return SpanMapper.Result.otel(isBatch(span, operation) ? Outcome.BATCH : Outcome.UNPLACEABLE);
    }
    if (topic == null) {
      return SpanMapper.Result.otel(Outcome.UNPLACEABLE);
    }
    if (span.spanId == 0) {
      throw new SpanMapper.Refused(REASON_VALUE, "span without a span id");
    }
    RecordKey key =
        partition >= 0 && offset >= 0 ? new RecordKey(topic, (int) partition, offset) : null;
    long start = time(span.startNanos, "start time");
    Host host = host(span);
    String clientId = name(a, "client id", CLIENT_ID_SLOTS);
    OtelRecordSpan read;
    if (role == OtelRecordSpan.Role.PRODUCER) {
      read =
          new OtelRecordSpan(
              role,
              key,
              topic,
              null,
              clientId,
              span.traceIdHigh,
              span.traceIdLow,
              span.spanId,
              span.parentSpanId,
              start,
              ack(span, scope, start, offset >= 0),
              ProducerRefs.EMPTY,
              host.id,
              host.name,
              scope);
    } else {
      String group = name(a, "consumer group", GROUP_SLOTS);
      if (group.isEmpty()) {
        group = host.fallbackGroup();
      }
      // A receive span of one record ends when the poll hands it over; a process span starts then.
      long handedOver = operation == Operation.RECEIVE ? time(span.endNanos, "end time") : start;
      read =
          new OtelRecordSpan(
              role,
              key,
              topic,
              group,
              clientId,
              span.traceIdHigh,
              span.traceIdLow,
              span.spanId,
              span.parentSpanId,
              handedOver,
              Long.MIN_VALUE,
              producers(span),
              host.id,
              host.name,
              scope);
    }
    return SpanMapper.Result.otel(
        read, role == OtelRecordSpan.Role.PRODUCER ? Outcome.PRODUCER : Outcome.CONSUMER);
  }

  private static String scope(OtlpSpan span) {
    if (span.scopeName == null) {
      throw new SpanMapper.Refused(
          WireNames.REASON_NAME,
          "instrumentation scope name of "
              + span.scopeNameBytes
              + " bytes (at most "
              + OtlpSpan.MAX_SCOPE_BYTES
              + ")");
    }
    return span.scopeName;
  }

  private static Operation operation(KlatAttributes a) {
    String type = a.string(KlatAttributes.OTEL_OPERATION_TYPE);
    if (type == null) {
      type = a.string(KlatAttributes.OTEL_OPERATION);
    }
    if (type == null) {
      type = a.string(KlatAttributes.OTEL_OPERATION_NAME);
    }
    if (type == null) {
      return Operation.NONE;
    }
    return switch (type) {
      case "send", "publish", "create" -> Operation.SEND;
      case "receive", "poll" -> Operation.RECEIVE;
      case "process" -> Operation.PROCESS;
      default -> Operation.OTHER;
    };
  }

  // The kind decides; a CLIENT span by its operation (a poll, or the Java agent's send of a record
  // whose context it does not propagate, under the current conventions).
  private static OtelRecordSpan.Role role(int kind, Operation operation) {
    return switch (kind) {
      case OtlpSpan.KIND_PRODUCER -> OtelRecordSpan.Role.PRODUCER;
      case OtlpSpan.KIND_CONSUMER -> OtelRecordSpan.Role.CONSUMER;
      case OtlpSpan.KIND_CLIENT ->
          operation == Operation.SEND
              ? OtelRecordSpan.Role.PRODUCER
              : operation == Operation.RECEIVE ? OtelRecordSpan.Role.CONSUMER : null;
      default -> null;
    };
  }

  // A consumer-side span that names no record covers many when it says so: a receive or poll, a
  // batch count other than one, or more than one producer link.
  private static boolean isBatch(OtlpSpan span, Operation operation) {
    KlatAttributes a = span.attributes;
    boolean counted =
        a.isLong(KlatAttributes.OTEL_BATCH_COUNT)
            && a.longValue(KlatAttributes.OTEL_BATCH_COUNT) != 1;
    return operation == Operation.RECEIVE || counted || span.linkCount + span.linksNotRead > 1;
  }

  // The topic under its current or older names; null when absent.
  private static String topic(KlatAttributes a) {
    String topic = firstString(a, KlatAttributes.TOPIC, KlatAttributes.OTEL_DESTINATION);
    if (topic == null) {
      topic = a.string(KlatAttributes.OTEL_SOURCE_NAME);
    }
    if (topic == null || topic.isEmpty()) {
      return null;
    }
    String problem = WireNames.topicProblem(topic);
    if (problem != null) {
      throw new SpanMapper.Refused(WireNames.REASON_TOPIC, problem);
    }
    return topic;
  }

  private static String firstString(KlatAttributes a, int first, int second) {
    String value = a.string(first);
    return value != null ? value : a.string(second);
  }

  private static final int[] PARTITION_SLOTS = {
    KlatAttributes.PARTITION,
    KlatAttributes.OTEL_DESTINATION_PARTITION,
    KlatAttributes.OTEL_SOURCE_PARTITION,
    KlatAttributes.OTEL_KAFKA_PARTITION
  };

  private static final int[] OFFSET_SLOTS = {
    KlatAttributes.OFFSET,
    KlatAttributes.OTEL_MESSAGE_OFFSET,
    KlatAttributes.OTEL_OFFSET_EXPERIMENTAL
  };

  // The partition (an int or a string of digits, by the conventions' version), -1 when absent.
  private static long partition(KlatAttributes a) {
    for (int slot : PARTITION_SLOTS) {
      if (a.has(slot)) {
        long partition = a.isLong(slot) ? a.longValue(slot) : -1;
        if (partition < 0 || partition > Integer.MAX_VALUE) {
          throw new SpanMapper.Refused(
              REASON_VALUE, KlatAttributes.name(slot) + " is not a partition number");
        }
        return partition;
      }
    }
    return -1;
  }

  // The offset, -1 when absent; where no attribute holds it, the message id of the instrumentations
  // that write it there.
  private static long offset(KlatAttributes a, String scope, String topic, long partition) {
    for (int slot : OFFSET_SLOTS) {
      if (a.has(slot)) {
        return offsetValue(a, slot);
      }
    }
    int idSlot =
        a.has(KlatAttributes.OTEL_MESSAGE_ID)
            ? KlatAttributes.OTEL_MESSAGE_ID
            : KlatAttributes.OTEL_MESSAGE_ID_OLD;
    String id = a.string(idSlot);
    if (id == null) {
      return -1;
    }
    return switch (scope) {
      // otelsarama: the offset in decimal.
      case SCOPE_OTELSARAMA, SCOPE_OTELSARAMA_IBM -> offsetValue(a, idSlot);
      // confluent-kafka-python: "<topic>.<partition>.<offset>".
      case SCOPE_PYTHON_CONFLUENT -> pythonMessageIdOffset(id, topic, partition, idSlot);
      default -> -1;
    };
  }

  private static long offsetValue(KlatAttributes a, int slot) {
    long offset = a.isLong(slot) ? a.longValue(slot) : -1;
    if (offset < 0) {
      throw new SpanMapper.Refused(REASON_VALUE, KlatAttributes.name(slot) + " is not an offset");
    }
    return offset;
  }

  private static long pythonMessageIdOffset(String id, String topic, long partition, int slot) {
    int lastDot = id.lastIndexOf('.');
    int partitionDot = lastDot > 0 ? id.lastIndexOf('.', lastDot - 1) : -1;
    long offset = partitionDot > 0 ? digits(id, lastDot + 1, id.length()) : -1;
    long idPartition = partitionDot > 0 ? digits(id, partitionDot + 1, lastDot) : -1;
    if (offset < 0
        || idPartition < 0
        || idPartition != partition
        || topic == null
        || !id.regionMatches(0, topic, 0, partitionDot)
        || topic.length() != partitionDot) {
      throw new SpanMapper.Refused(
          REASON_VALUE,
          KlatAttributes.name(slot) + " is not <topic>.<partition>.<offset> of the span's record");
    }
    return offset;
  }

  // A non-negative decimal of at most 18 digits in s[from, to), else -1.
  private static long digits(String s, int from, int to) {
    if (to <= from || to - from > 18) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static long time(long nanos, String what) {
    if (nanos <= 0 || nanos >= MAX_EPOCH_NANOS) {
      throw new SpanMapper.Refused(REASON_VALUE, what + " out of range: " + nanos);
    }
    return nanos;
  }

  private static long ack(OtlpSpan span, String scope, long start, boolean hasOffset) {
    AckRule rule = ackRule(scope);
    boolean atAck = rule == AckRule.ALWAYS || (rule == AckRule.WITH_OFFSET && hasOffset);
    long end = span.endNanos;
    return atAck && end >= start && end < MAX_EPOCH_NANOS ? end : Long.MIN_VALUE;
  }

  // The span's parent, then its links: the producer is one of them, whichever the instrumentation
  // chose.
  private static ProducerRefs producers(OtlpSpan span) {
    int count = Math.min(ProducerRefs.MAX, (span.parentSpanId != 0 ? 1 : 0) + span.linkCount);
    if (count == 0) {
      return ProducerRefs.EMPTY;
    }
    long[] high = new long[count];
    long[] low = new long[count];
    long[] ids = new long[count];
    int n = 0;
    if (span.parentSpanId != 0) {
      high[0] = span.traceIdHigh;
      low[0] = span.traceIdLow;
      ids[0] = span.parentSpanId;
      n = 1;
    }
    for (int i = 0; i < span.linkCount && n < count; i++, n++) {
      high[n] = span.linkTraceIdHigh[i];
      low[n] = span.linkTraceIdLow[i];
      ids[n] = span.linkSpanId[i];
    }
    return ProducerRefs.of(high, low, ids, n);
  }

  private static final int[] CLIENT_ID_SLOTS = {
    KlatAttributes.CLIENT_ID, KlatAttributes.OTEL_CLIENT_ID_OLD, KlatAttributes.OTEL_KAFKA_CLIENT_ID
  };

  private static final int[] GROUP_SLOTS = {
    KlatAttributes.GROUP, KlatAttributes.OTEL_CONSUMER_GROUP, KlatAttributes.OTEL_CONSUMER_GROUP_OLD
  };

  // The first non-empty value under the names in slots (current first), checked; "" when absent.
  private static String name(KlatAttributes a, String what, int[] slots) {
    for (int slot : slots) {
      String value = a.asString(slot);
      if (!value.isEmpty()) {
        String problem = WireNames.nameProblem(what, value);
        if (problem != null) {
          throw new SpanMapper.Refused(WireNames.REASON_NAME, problem);
        }
        return value;
      }
    }
    return "";
  }

  /**
   * The client host of a resource (section 10 of the latency model).
   *
   * @param id the hashed identity, never 0
   * @param name what a page shows: {@code host.name}, else the instance id, else the service
   * @param serviceGroup {@code service:<service.name>}, or null when longer than {@link
   *     WireNames#MAX_NAME_CHARS} (its length then in {@code serviceGroupLength})
   */
  record Host(long id, String name, String serviceGroup, int serviceGroupLength) {
    /** The group of a consumer span without a group attribute. */
    String fallbackGroup() {
      if (serviceGroup == null) {
        throw new SpanMapper.Refused(
            WireNames.REASON_NAME,
            "group "
                + GROUP_PREFIX
                + "<service.name> of "
                + serviceGroupLength
                + " characters (at most "
                + WireNames.MAX_NAME_CHARS
                + ")");
      }
      return serviceGroup;
    }
  }

  // One Host per resource: the spans of a resource share its map, and the reused span keeps the
  // last one made.
  private static Host host(OtlpSpan span) {
    if (span.hostOf != span.resource || span.host == null) {
      span.host = hostOf(span.resource);
      span.hostOf = span.resource;
    }
    return span.host;
  }

  static Host hostOf(Map<String, Object> resource) {
    Object instance = resource.get(OtelMessagingAttributes.RESOURCE_SERVICE_INSTANCE_ID);
    Object hostName = resource.get(OtelMessagingAttributes.RESOURCE_HOST_NAME);
    Object pid = resource.get(OtelMessagingAttributes.RESOURCE_PROCESS_PID);
    Object serviceName = resource.get(OtelMessagingAttributes.RESOURCE_SERVICE_NAME);
    String service =
        serviceName == null || String.valueOf(serviceName).isEmpty()
            ? OtelMessagingAttributes.UNKNOWN_SERVICE
            : String.valueOf(serviceName);
    String identity;
    if (instance != null && !String.valueOf(instance).isEmpty()) {
      identity = "instance\u0000" + instance;
    } else if (hostName != null && pid != null) {
      identity = "host\u0000" + hostName + "\u0000" + pid;
    } else {
      identity = "service\u0000" + service;
    }
    String shown =
        hostName != null
            ? String.valueOf(hostName)
            : instance != null ? String.valueOf(instance) : service;
    if (shown.length() > WireNames.MAX_NAME_CHARS) {
      shown = shown.substring(0, WireNames.MAX_NAME_CHARS);
    }
    String group = GROUP_PREFIX + service;
    return new Host(
        hash(identity),
        shown,
        group.length() > WireNames.MAX_NAME_CHARS ? null : group,
        group.length());
  }

  // FNV-1a over the UTF-16 units, then a finaliser that spreads the bits; never 0.
  static long hash(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h ^= s.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h == 0 ? 1 : h;
  }
}

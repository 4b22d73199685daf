package dev.klat.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The attribute keys that OpenTelemetry's Kafka instrumentations write on their spans, beyond those
 * klat's own spans carry ({@link SpanAttributes}), which the collector reads from a client that
 * runs no klat agent (section 10 of the latency model; {@code docs/clients.md}, "What each
 * instrumentation sends", says which instrumentation writes which).
 *
 * <p>The messaging semantic conventions renamed most of them over their versions, and the
 * instrumentations in use today span those versions, so a value may arrive under any of the names
 * below; each constant says which conventions it comes from. The names the current conventions
 * share with klat's spans are not repeated here: {@link SpanAttributes#MESSAGING_SYSTEM}, {@link
 * SpanAttributes#MESSAGING_DESTINATION_NAME}, {@link
 * SpanAttributes#MESSAGING_DESTINATION_PARTITION_ID}, {@link
 * SpanAttributes#MESSAGING_KAFKA_OFFSET}, {@link SpanAttributes#MESSAGING_CONSUMER_GROUP_NAME} and
 * {@link SpanAttributes#MESSAGING_CLIENT_ID}.
 */
public final class OtelMessagingAttributes {

  /** {@code messaging.destination}: the topic, semantic conventions up to 1.16. */
  public static final AttributeDef MESSAGING_DESTINATION =
      string("messaging.destination", "The topic, in the semantic conventions up to 1.16.");

  /**
   * {@code messaging.source.name}: the topic a consumer reads, semantic conventions 1.17 to 1.19.
   */
  public static final AttributeDef MESSAGING_SOURCE_NAME =
      string(
          "messaging.source.name",
          "The topic a consumer reads, in the semantic conventions 1.17 to 1.19.");

  /** {@code messaging.kafka.partition}: the partition (an integer), up to 1.16. */
  public static final AttributeDef MESSAGING_KAFKA_PARTITION =
      longValue(
          "messaging.kafka.partition",
          "The partition, an integer, in the semantic conventions up to 1.16.");

  /**
   * {@code messaging.kafka.destination.partition}: the partition (an integer), 1.17 to 1.24 (from
   * 1.20 on consumer spans too).
   */
  public static final AttributeDef MESSAGING_KAFKA_DESTINATION_PARTITION =
      longValue(
          "messaging.kafka.destination.partition",
          "The partition, an integer, in the semantic conventions 1.17 to 1.24.");

  /**
   * {@code messaging.kafka.source.partition}: a consumer's partition (an integer), 1.17 to 1.19.
   */
  public static final AttributeDef MESSAGING_KAFKA_SOURCE_PARTITION =
      longValue(
          "messaging.kafka.source.partition",
          "The partition a consumer reads, an integer, in the semantic conventions 1.17 to 1.19.");

  /** {@code messaging.kafka.message.offset}: the record's offset, 1.17 to 1.24. */
  public static final AttributeDef MESSAGING_KAFKA_MESSAGE_OFFSET =
      longValue(
          "messaging.kafka.message.offset",
          "The record's offset, in the semantic conventions 1.17 to 1.24.");

  /**
   * {@code kafka.offset}: the record's offset, an experimental attribute of the OpenTelemetry Java
   * agent up to 1.20 (only with its experimental span attributes on).
   */
  public static final AttributeDef KAFKA_OFFSET_EXPERIMENTAL =
      longValue(
          "kafka.offset",
          "The record's offset, an experimental attribute of the OpenTelemetry Java agent 1.x.");

  /**
   * {@code messaging.message.id}: a message id, 1.17 on. Kafka has none; otelsarama writes the
   * offset in it, confluent-kafka-python's instrumentation {@code topic.partition.offset}.
   */
  public static final AttributeDef MESSAGING_MESSAGE_ID =
      string(
          "messaging.message.id",
          "A message id, in the semantic conventions from 1.17; some Kafka instrumentations write"
              + " the offset in it.");

  /** {@code messaging.message_id}: a message id, up to 1.16 (otelsarama: the offset). */
  public static final AttributeDef MESSAGING_MESSAGE_ID_OLD =
      string(
          "messaging.message_id",
          "A message id, in the semantic conventions up to 1.16; otelsarama writes the offset in"
              + " it.");

  /** {@code messaging.kafka.consumer.group}: the consumer group, 1.17 to 1.26. */
  public static final AttributeDef MESSAGING_KAFKA_CONSUMER_GROUP =
      string(
          "messaging.kafka.consumer.group",
          "The consumer group, in the semantic conventions 1.17 to 1.26.");

  /**
   * {@code messaging.kafka.consumer_group}: the consumer group, up to 1.16 (none of the
   * instrumentations read for {@code docs/clients.md} writes it).
   */
  public static final AttributeDef MESSAGING_KAFKA_CONSUMER_GROUP_OLD =
      string(
          "messaging.kafka.consumer_group",
          "The consumer group, in the semantic conventions up to 1.16.");

  /** {@code messaging.client_id}: the client id, 1.20 to 1.26. */
  public static final AttributeDef MESSAGING_CLIENT_ID_OLD =
      string("messaging.client_id", "The client id, in the semantic conventions 1.20 to 1.26.");

  /** {@code messaging.kafka.client_id}: the client id, up to 1.19. */
  public static final AttributeDef MESSAGING_KAFKA_CLIENT_ID =
      string("messaging.kafka.client_id", "The client id, in the semantic conventions up to 1.19.");

  /**
   * {@code messaging.operation}: {@code publish}, {@code receive} or {@code process}, up to 1.26
   * (the OpenTelemetry Java agent 2.x still writes it by default).
   */
  public static final AttributeDef MESSAGING_OPERATION =
      string(
          "messaging.operation",
          "The operation (publish, receive, process), in the semantic conventions up to 1.26.");

  /**
   * {@code messaging.operation.type}: {@code send}, {@code receive} or {@code process}, 1.27 on.
   */
  public static final AttributeDef MESSAGING_OPERATION_TYPE =
      string(
          "messaging.operation.type",
          "The operation type (send, receive, process), in the semantic conventions from 1.27.");

  /**
   * {@code messaging.operation.name}: the instrumentation's own word ({@code send}, {@code poll},
   * {@code process}), 1.27 on.
   */
  public static final AttributeDef MESSAGING_OPERATION_NAME =
      string(
          "messaging.operation.name",
          "The operation's name (send, poll, process), in the semantic conventions from 1.27.");

  /** {@code messaging.batch.message_count}: how many records a batch span covers, 1.17 on. */
  public static final AttributeDef MESSAGING_BATCH_MESSAGE_COUNT =
      longValue(
          "messaging.batch.message_count",
          "How many records a batch span covers, in the semantic conventions from 1.17.");

  /** {@code error.type}: why the operation failed, 1.21 on; absent when it did not. */
  public static final AttributeDef ERROR_TYPE =
      string("error.type", "Why the operation failed, in the semantic conventions from 1.21.");

  /** {@value}: the resource attribute naming the service. */
  public static final String RESOURCE_SERVICE_NAME = "service.name";

  /** {@value}: the resource attribute naming the service instance. */
  public static final String RESOURCE_SERVICE_INSTANCE_ID = "service.instance.id";

  /** {@value}: the resource attribute naming the host. */
  public static final String RESOURCE_HOST_NAME = "host.name";

  /** {@value}: the resource attribute holding the process id. */
  public static final String RESOURCE_PROCESS_PID = "process.pid";

  /** {@value}: the service name OpenTelemetry's SDKs report when none is configured. */
  public static final String UNKNOWN_SERVICE = "unknown_service";

  private static final List<AttributeDef> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              MESSAGING_DESTINATION,
              MESSAGING_SOURCE_NAME,
              MESSAGING_KAFKA_PARTITION,
              MESSAGING_KAFKA_DESTINATION_PARTITION,
              MESSAGING_KAFKA_SOURCE_PARTITION,
              MESSAGING_KAFKA_MESSAGE_OFFSET,
              KAFKA_OFFSET_EXPERIMENTAL,
              MESSAGING_MESSAGE_ID,
              MESSAGING_MESSAGE_ID_OLD,
              MESSAGING_KAFKA_CONSUMER_GROUP,
              MESSAGING_KAFKA_CONSUMER_GROUP_OLD,
              MESSAGING_CLIENT_ID_OLD,
              MESSAGING_KAFKA_CLIENT_ID,
              MESSAGING_OPERATION,
              MESSAGING_OPERATION_TYPE,
              MESSAGING_OPERATION_NAME,
              MESSAGING_BATCH_MESSAGE_COUNT,
              ERROR_TYPE));

  private OtelMessagingAttributes() {}

  /**
   * Returns every attribute defined here, in declaration order.
   *
   * @return an unmodifiable list; names are unique and none is in {@link SpanAttributes#all()}
   */
  public static List<AttributeDef> all() {
    return ALL;
  }

  private static AttributeDef string(String name, String description) {
    return new AttributeDef(name, AttributeDef.Type.STRING, "", description);
  }

  private static AttributeDef longValue(String name, String description) {
    return new AttributeDef(name, AttributeDef.Type.LONG, "", description);
  }
}

package dev.klat.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The attributes of the spans the agents emit and the collector reads: the single list of keys,
 * with types and units.
 *
 * <h2>Instants</h2>
 *
 * <p>Each instant travels as a {@code *.time_unix_nano} attribute: wall-clock nanoseconds since the
 * Unix epoch on the host that observed it, the convention of OTLP's {@code time_unix_nano} fields.
 * The agent reads the wall clock once per span, as an anchor, and derives every instant of that
 * span from the anchor plus the {@code System.nanoTime()} delta to the instant. Differences between
 * instants of one span are therefore exact monotonic durations, immune to wall-clock steps, while
 * the absolute values are only as good as the host's clock; the collector aligns hosts (section 5
 * of the latency model).
 *
 * <h2>Other attributes</h2>
 *
 * <p>The {@code messaging.*} keys are those of the OpenTelemetry messaging semantic conventions;
 * the {@code klat.*} keys are klat's own.
 */
public final class SpanAttributes {

  private static final String NS = "ns";

  /** {@code klat.send.time_unix_nano}: {@code S}, {@code send()} entered. */
  public static final AttributeDef SEND_TIME =
      time("klat.send.time_unix_nano", "S: the application called KafkaProducer.send().");

  /**
   * {@code klat.drain.time_unix_nano}: {@code D}, the drain of the attempt that succeeded (the last
   * attempt).
   */
  public static final AttributeDef DRAIN_TIME =
      time(
          "klat.drain.time_unix_nano",
          "D: the record's batch was drained into a produce request, for the last attempt.");

  /**
   * {@code klat.drain.first.time_unix_nano}: the drain of the first attempt; differs from {@link
   * #DRAIN_TIME} only when the producer retried.
   */
  public static final AttributeDef DRAIN_FIRST_TIME =
      time(
          "klat.drain.first.time_unix_nano",
          "The record's batch was first drained into a produce request, before any retry.");

  /** {@code klat.ack.time_unix_nano}: {@code A}, the produce response was received. */
  public static final AttributeDef ACK_TIME =
      time("klat.ack.time_unix_nano", "A: the produce response for the batch was received.");

  /**
   * {@code klat.append.time_unix_nano}: {@code L}, the batch was appended to the leader's log; on
   * the broker's clock.
   */
  public static final AttributeDef APPEND_TIME =
      time("klat.append.time_unix_nano", "L: the batch was appended to the leader's log.");

  /**
   * {@code klat.commit.time_unix_nano}: {@code H}, the high watermark passed the record's offset;
   * on the broker's clock.
   */
  public static final AttributeDef COMMIT_TIME =
      time(
          "klat.commit.time_unix_nano",
          "H: the leader's high watermark moved past the record's offset.");

  /** {@code klat.fetch_request.time_unix_nano}: {@code F}, the fetch request was sent. */
  public static final AttributeDef FETCH_REQUEST_TIME =
      time(
          "klat.fetch_request.time_unix_nano",
          "F: the fetch request that returned the record was sent.");

  /** {@code klat.fetch_response.time_unix_nano}: {@code R}, the fetch response was received. */
  public static final AttributeDef FETCH_RESPONSE_TIME =
      time(
          "klat.fetch_response.time_unix_nano",
          "R: the fetch response carrying the record was received.");

  /** {@code klat.poll.time_unix_nano}: {@code P}, {@code poll()} returned the record. */
  public static final AttributeDef POLL_TIME =
      time("klat.poll.time_unix_nano", "P: poll() returned the record to the application.");

  /** {@code messaging.system}: always {@value #MESSAGING_SYSTEM_KAFKA}. */
  public static final AttributeDef MESSAGING_SYSTEM =
      string("messaging.system", "The messaging system, always \"kafka\".");

  /** {@value}: the value of {@link #MESSAGING_SYSTEM}. */
  public static final String MESSAGING_SYSTEM_KAFKA = "kafka";

  /** {@code messaging.destination.name}: the topic. */
  public static final AttributeDef MESSAGING_DESTINATION_NAME =
      string("messaging.destination.name", "The topic of the record.");

  /**
   * {@code messaging.destination.partition.id}: the partition number, as a string as the
   * OpenTelemetry semantic conventions define it.
   */
  public static final AttributeDef MESSAGING_DESTINATION_PARTITION_ID =
      string("messaging.destination.partition.id", "The partition of the record, as a string.");

  /** {@code messaging.kafka.offset}: the record's offset in its partition. */
  public static final AttributeDef MESSAGING_KAFKA_OFFSET =
      longValue("messaging.kafka.offset", "", "The offset of the record in its partition.");

  /** {@code messaging.consumer.group.name}: the consumer group; on consumer spans only. */
  public static final AttributeDef MESSAGING_CONSUMER_GROUP_NAME =
      string("messaging.consumer.group.name", "The consumer group that read the record.");

  /** {@code messaging.client.id}: the Kafka {@code client.id} of the producer or consumer. */
  public static final AttributeDef MESSAGING_CLIENT_ID =
      string("messaging.client.id", "The client.id of the producer or consumer.");

  /**
   * {@code klat.producer.attempts}: how many times the record's batch was sent, 1 without retry.
   */
  public static final AttributeDef PRODUCER_ATTEMPTS =
      longValue(
          "klat.producer.attempts",
          "",
          "How many produce requests carried the batch, 1 without retry.");

  /**
   * {@code klat.producer.retry_error}: the error of the batch's last failed attempt that the
   * producer retried, the name of Kafka's {@code Errors} in the partition's produce response (for
   * example {@code NOT_ENOUGH_REPLICAS}, {@code NOT_LEADER_OR_FOLLOWER}, or {@code
   * NETWORK_EXCEPTION} for a lost connection). Only on records whose batch was retried; absent too
   * from agents that could not hook the retry decision.
   */
  public static final AttributeDef PRODUCER_RETRY_ERROR =
      string(
          "klat.producer.retry_error",
          "The error (Kafka's Errors name) of the batch's last attempt that the producer retried.");

  /** {@code klat.producer.acks}: the producer's {@code acks} setting: "0", "1" or "all". */
  public static final AttributeDef PRODUCER_ACKS =
      string("klat.producer.acks", "The producer's acks setting: \"0\", \"1\" or \"all\".");

  /** {@code klat.batch.record_count}: the number of records in the record's batch. */
  public static final AttributeDef BATCH_RECORD_COUNT =
      longValue("klat.batch.record_count", "", "The number of records in the record's batch.");

  /** {@code klat.batch.size_bytes}: the size of the record's batch, in bytes. */
  public static final AttributeDef BATCH_SIZE_BYTES =
      longValue("klat.batch.size_bytes", "By", "The size of the record's batch, in bytes.");

  /** {@code klat.batch.compression}: the batch's compression type, for example "none" or "lz4". */
  public static final AttributeDef BATCH_COMPRESSION =
      string("klat.batch.compression", "The compression type of the record's batch.");

  /** {@code klat.leader.node_id}: the broker id of the partition leader the batch was sent to. */
  public static final AttributeDef LEADER_NODE_ID =
      longValue("klat.leader.node_id", "", "The node id of the partition leader.");

  /** {@code klat.record.timestamp_ms}: the record's timestamp, in milliseconds since the epoch. */
  public static final AttributeDef RECORD_TIMESTAMP_MS =
      longValue(
          "klat.record.timestamp_ms",
          "ms",
          "The record timestamp, in milliseconds since the epoch.");

  /**
   * {@code klat.record.timestamp_type}: "CreateTime" or "LogAppendTime"; with "LogAppendTime" the
   * record timestamp is {@code L} on the broker's clock.
   */
  public static final AttributeDef RECORD_TIMESTAMP_TYPE =
      string(
          "klat.record.timestamp_type",
          "The record timestamp type: \"CreateTime\" or \"LogAppendTime\".");

  /** {@code klat.partition.high_watermark}: the partition's high watermark the fetch reported. */
  public static final AttributeDef PARTITION_HIGH_WATERMARK =
      longValue(
          "klat.partition.high_watermark",
          "",
          "The high watermark of the partition in the fetch response.");

  /**
   * {@code klat.consumer.fetch_min_bytes}: the consumer's {@code fetch.min.bytes}. With 1 (the
   * default) a fetch waiting at the leader is answered as soon as the high watermark passes a
   * record, which places {@code H} for {@code acks=0/1}.
   */
  public static final AttributeDef CONSUMER_FETCH_MIN_BYTES =
      longValue(
          "klat.consumer.fetch_min_bytes",
          "By",
          "The consumer's fetch.min.bytes: how much data the leader waits for before answering.");

  /**
   * {@code klat.fetch_response.read_promptly}: true when the client read the fetch response as it
   * arrived, so that {@code R} is its arrival: read by the new consumer's network thread, or by a
   * {@code poll()} that had been waiting for it. A classic consumer reads nothing while the
   * application is busy outside {@code poll()}; a response read then, or at the start of the next
   * {@code poll()}, may have waited in the socket.
   */
  public static final AttributeDef FETCH_RESPONSE_READ_PROMPTLY =
      new AttributeDef(
          "klat.fetch_response.read_promptly",
          AttributeDef.Type.BOOLEAN,
          "",
          "Whether the client read the fetch response as it arrived (R is its arrival).");

  /**
   * {@code klat.record.uncommitted_time_unix_nano}: on the consumer's clock, when this consumer
   * received its previous fetch response for the partition, present only when that response was
   * read as it arrived and its high watermark had not reached the record: the record was committed
   * after the leader built that response. With {@link #FETCH_REQUEST_TIME} shortly after it, the
   * fetch that returned the record asked before the record was committed.
   */
  public static final AttributeDef RECORD_UNCOMMITTED_TIME =
      time(
          "klat.record.uncommitted_time_unix_nano",
          "The consumer's previous fetch response for the partition, which found the record not"
              + " yet committed, was received.");

  /** {@code klat.error.type}: the exception class name when the send or fetch failed. */
  public static final AttributeDef ERROR_TYPE =
      string("klat.error.type", "The class name of the error, when the operation failed.");

  /**
   * {@code klat.instance.id}: the agent instance id; for producers the same value as the timing
   * header's {@code producerInstanceId}.
   */
  public static final AttributeDef INSTANCE_ID =
      longValue(
          "klat.instance.id", "", "The random id of the agent instance, naming its clock domain.");

  /**
   * {@code klat.capture}: how the span's record was captured, a {@link Capture#id()}; absent on
   * sampled records' spans (section 8 of the latency model), {@code "tail"} on a tail span.
   */
  public static final AttributeDef CAPTURE =
      string("klat.capture", "How the record was captured: absent (sampled) or \"tail\".");

  /**
   * {@code klat.tail.threshold_ns}: on a tail span, the threshold its side's latency was above when
   * the record was flagged ({@code A - S} on a producer span, {@code P - timestamp} on a consumer
   * span).
   */
  public static final AttributeDef TAIL_THRESHOLD_NANOS =
      longValue(
          "klat.tail.threshold_ns",
          NS,
          "On a tail span: the threshold its side's latency was above when it was flagged.");

  /**
   * {@code klat.link.topic}: on a producer span whose record was produced while the application
   * processed a consumed record (section 9 of the latency model), the consumed record's topic. With
   * several linked inputs, the first one's; the others are OTLP span links carrying the same four
   * {@code klat.link.*} attributes.
   */
  public static final AttributeDef LINK_TOPIC =
      string("klat.link.topic", "The topic of the consumed record this record was produced from.");

  /** {@code klat.link.partition}: the linked consumed record's partition. */
  public static final AttributeDef LINK_PARTITION =
      longValue(
          "klat.link.partition", "", "The partition of the consumed record this record came from.");

  /** {@code klat.link.offset}: the linked consumed record's offset. */
  public static final AttributeDef LINK_OFFSET =
      longValue("klat.link.offset", "", "The offset of the consumed record this record came from.");

  /**
   * {@code klat.link.group}: the consumer group that read the linked record in this application;
   * absent when the application's consumer has no group.
   */
  public static final AttributeDef LINK_GROUP =
      string("klat.link.group", "The consumer group that read the linked consumed record.");

  /**
   * {@code klat.link.count}: how many sampled consumed records this record is linked to (1 for a
   * record-at-a-time hop; more for a batch or an aggregation).
   */
  public static final AttributeDef LINK_COUNT =
      longValue("klat.link.count", "", "How many sampled consumed records this record links to.");

  /**
   * {@code klat.producer.transactional}: 1 on a producer span whose record was sent in a
   * transaction (the producer has a {@code transactional.id}), absent otherwise.
   */
  public static final AttributeDef PRODUCER_TRANSACTIONAL =
      longValue("klat.producer.transactional", "", "1 when the record was sent in a transaction.");

  /**
   * {@code klat.txn_commit.time_unix_nano}: {@code C}, the producer's {@code commitTransaction()}
   * returned, for a transactional record (section 9 of the latency model); on the producer's clock.
   */
  public static final AttributeDef TXN_COMMIT_TIME =
      time(
          "klat.txn_commit.time_unix_nano",
          "C: the producer's commitTransaction() returned for the record's transaction.");

  /**
   * {@code klat.visible.time_unix_nano}: {@code V}, the leader's last stable offset passed the
   * record (section 9 of the latency model); on the broker's clock. On the commit span of a
   * breakdown with a transaction wait.
   */
  public static final AttributeDef VISIBLE_TIME =
      time(
          "klat.visible.time_unix_nano",
          "V: the leader's last stable offset passed the record (read_committed may read it).");

  /**
   * {@code klat.consumer.isolation_level}: the consumer's {@code isolation.level}, {@code
   * read_committed} or {@code read_uncommitted}, on a consumer span.
   */
  public static final AttributeDef CONSUMER_ISOLATION_LEVEL =
      string("klat.consumer.isolation_level", "The consumer's isolation.level.");

  /** {@code klat.segment}: a {@link Segment#id()}. */
  public static final AttributeDef SEGMENT =
      string("klat.segment", "The segment of the latency model, as Segment.id().");

  /** {@code klat.quality}: a {@link Quality#id()}. */
  public static final AttributeDef QUALITY =
      string("klat.quality", "The quality of the value, as Quality.id().");

  /** {@code klat.method}: an {@link EstimationMethod#id()}. */
  public static final AttributeDef METHOD =
      string("klat.method", "How the value was obtained, as EstimationMethod.id().");

  /** {@code klat.clock.offset_ns}: the clock offset the collector applied, in nanoseconds. */
  public static final AttributeDef CLOCK_OFFSET_NANOS =
      longValue("klat.clock.offset_ns", NS, "The clock offset applied to align this span's host.");

  /** {@code klat.clock.uncertainty_ns}: the uncertainty of {@link #CLOCK_OFFSET_NANOS}. */
  public static final AttributeDef CLOCK_UNCERTAINTY_NANOS =
      longValue("klat.clock.uncertainty_ns", NS, "The uncertainty of the applied clock offset.");

  /**
   * {@code klat.clock.collector_offset_ns}: a resource attribute of the agent's exports, {@code
   * clock(collector) - clock(agent)} as measured by the agent from the collector's {@link
   * ClockSyncHeaders} (NTP's {@code ((t1 - t0) + (t2 - t3)) / 2}), for the exchange with the
   * shortest round trip among the agent's recent exports. Absent when the endpoint does not send
   * those headers.
   */
  public static final AttributeDef CLOCK_COLLECTOR_OFFSET_NANOS =
      longValue(
          "klat.clock.collector_offset_ns",
          NS,
          "A resource attribute: the collector's clock minus the agent's, measured by the agent"
              + " over its exports.");

  /**
   * {@code klat.clock.collector_uncertainty_ns}: a resource attribute, the half-width of the
   * interval {@link #CLOCK_COLLECTOR_OFFSET_NANOS} lies in: NTP's {@code ((t3 - t0) - (t2 - t1)) /
   * 2}, plus the headers' truncation to microseconds; never negative.
   */
  public static final AttributeDef CLOCK_COLLECTOR_UNCERTAINTY_NANOS =
      longValue(
          "klat.clock.collector_uncertainty_ns",
          NS,
          "A resource attribute: the uncertainty of the collector clock offset the agent measured.");

  /**
   * {@code klat.produce_request.queue_ns}: on a breakdown's publish span, the time the produce
   * request that appended the record waited in its leader's request queue, as the leader's broker
   * probe timed that one request ({@link BrokerProbeWire#APPEND_REQUESTS}); absent when unknown.
   */
  public static final AttributeDef PRODUCE_REQUEST_QUEUE_NANOS =
      longValue(
          "klat.produce_request.queue_ns",
          NS,
          "On the publish span: the record's produce request's time in the leader's request"
              + " queue, timed by the leader's broker probe.");

  /**
   * {@code klat.produce_request.local_ns}: on a breakdown's publish span, that request's time from
   * leaving the request queue to the append (parsing, validation, recompression, the append), as
   * the same probe timed it; absent when unknown.
   */
  public static final AttributeDef PRODUCE_REQUEST_LOCAL_NANOS =
      longValue(
          "klat.produce_request.local_ns",
          NS,
          "On the publish span: the record's produce request's time from the leader's request"
              + " queue to the append, timed by the leader's broker probe.");

  /** The value of {@link #CONSUMER_GROUP_TYPE} on a share consumer's spans. */
  public static final String GROUP_TYPE_SHARE = "share";

  /**
   * {@code klat.consumer.group_type}: {@value #GROUP_TYPE_SHARE} on the spans of a {@code
   * KafkaShareConsumer} (a share group, KIP-932; section 11 of the latency model); absent for a
   * consumer group.
   */
  public static final AttributeDef CONSUMER_GROUP_TYPE =
      string(
          "klat.consumer.group_type",
          "\"share\" when the consumer is a KafkaShareConsumer in a share group; absent otherwise.");

  /**
   * {@code klat.share.delivery_count}: the broker's delivery count of this delivery of the record
   * to its share group, 1 for the first.
   */
  public static final AttributeDef SHARE_DELIVERY_COUNT =
      longValue(
          "klat.share.delivery_count",
          "",
          "The broker's delivery count of this delivery of the record to the share group (1 for"
              + " the first).");

  /**
   * {@code klat.share.acknowledge.time_unix_nano}: when the application acknowledged this delivery,
   * explicitly or implicitly (the next poll or commit); absent when it did not.
   */
  public static final AttributeDef SHARE_ACKNOWLEDGE_TIME =
      time(
          "klat.share.acknowledge.time_unix_nano",
          "K: the application acknowledged this delivery of the record (explicitly, or implicitly"
              + " at its next poll or commit).");

  /**
   * {@code klat.share.acknowledge.type}: {@code accept}, {@code release}, {@code reject} or {@code
   * renew}, as the application acknowledged the delivery; absent when it did not.
   */
  public static final AttributeDef SHARE_ACKNOWLEDGE_TYPE =
      string(
          "klat.share.acknowledge.type",
          "How the application acknowledged this delivery: accept, release, reject or renew.");

  /**
   * {@code klat.share.acknowledge.error}: the class name of the error the broker answered the
   * acknowledgement with ({@code InvalidRecordStateException} when the acquisition lock had
   * expired); absent when the broker took it.
   */
  public static final AttributeDef SHARE_ACKNOWLEDGE_ERROR =
      string(
          "klat.share.acknowledge.error",
          "The class name of the error the broker answered this delivery's acknowledgement with"
              + " (InvalidRecordStateException: the acquisition lock had expired).");

  private static final List<AttributeDef> ALL =
      withEvidence(
          Arrays.asList(
              SEND_TIME,
              DRAIN_TIME,
              DRAIN_FIRST_TIME,
              ACK_TIME,
              APPEND_TIME,
              COMMIT_TIME,
              FETCH_REQUEST_TIME,
              FETCH_RESPONSE_TIME,
              POLL_TIME,
              MESSAGING_SYSTEM,
              MESSAGING_DESTINATION_NAME,
              MESSAGING_DESTINATION_PARTITION_ID,
              MESSAGING_KAFKA_OFFSET,
              MESSAGING_CONSUMER_GROUP_NAME,
              MESSAGING_CLIENT_ID,
              PRODUCER_ATTEMPTS,
              PRODUCER_RETRY_ERROR,
              PRODUCER_ACKS,
              BATCH_RECORD_COUNT,
              BATCH_SIZE_BYTES,
              BATCH_COMPRESSION,
              LEADER_NODE_ID,
              RECORD_TIMESTAMP_MS,
              RECORD_TIMESTAMP_TYPE,
              PARTITION_HIGH_WATERMARK,
              CONSUMER_FETCH_MIN_BYTES,
              FETCH_RESPONSE_READ_PROMPTLY,
              RECORD_UNCOMMITTED_TIME,
              ERROR_TYPE,
              INSTANCE_ID,
              CAPTURE,
              TAIL_THRESHOLD_NANOS,
              LINK_TOPIC,
              LINK_PARTITION,
              LINK_OFFSET,
              LINK_GROUP,
              LINK_COUNT,
              PRODUCER_TRANSACTIONAL,
              TXN_COMMIT_TIME,
              VISIBLE_TIME,
              CONSUMER_ISOLATION_LEVEL,
              SEGMENT,
              QUALITY,
              METHOD,
              CLOCK_OFFSET_NANOS,
              CLOCK_UNCERTAINTY_NANOS,
              CLOCK_COLLECTOR_OFFSET_NANOS,
              CLOCK_COLLECTOR_UNCERTAINTY_NANOS,
              PRODUCE_REQUEST_QUEUE_NANOS,
              PRODUCE_REQUEST_LOCAL_NANOS,
              CONSUMER_GROUP_TYPE,
              SHARE_DELIVERY_COUNT,
              SHARE_ACKNOWLEDGE_TIME,
              SHARE_ACKNOWLEDGE_TYPE,
              SHARE_ACKNOWLEDGE_ERROR));

  // Indexed by TimePoint.ordinal().
  private static final AttributeDef[] TIMES = {
    SEND_TIME,
    DRAIN_TIME,
    ACK_TIME,
    APPEND_TIME,
    COMMIT_TIME,
    FETCH_REQUEST_TIME,
    FETCH_RESPONSE_TIME,
    POLL_TIME
  };

  private SpanAttributes() {}

  /**
   * Returns every attribute klat defines, in declaration order.
   *
   * @return an unmodifiable list; names are unique
   */
  public static List<AttributeDef> all() {
    return ALL;
  }

  /**
   * Returns the attribute that carries an instant. {@link TimePoint#DRAIN} maps to the last
   * attempt, {@link #DRAIN_TIME}.
   *
   * @param point which instant, not null
   * @return the {@code *.time_unix_nano} attribute of {@code point}
   */
  public static AttributeDef timeOf(TimePoint point) {
    return TIMES[point.ordinal()];
  }

  private static AttributeDef time(String name, String description) {
    return new AttributeDef(
        name,
        AttributeDef.Type.LONG,
        NS,
        description + " Wall-clock nanoseconds since the Unix epoch on the observing host.");
  }

  private static AttributeDef string(String name, String description) {
    return new AttributeDef(name, AttributeDef.Type.STRING, "", description);
  }

  private static AttributeDef longValue(String name, String unit, String description) {
    return new AttributeDef(name, AttributeDef.Type.LONG, unit, description);
  }

  // The client settings and internals the diagnosis weighs, after the rest.
  private static List<AttributeDef> withEvidence(List<AttributeDef> attributes) {
    List<AttributeDef> all = new ArrayList<AttributeDef>(attributes);
    all.addAll(EvidenceAttributes.all());
    return Collections.unmodifiableList(all);
  }
}

package dev.klat.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Span attributes that carry the evidence the diagnosis weighs: the client settings that matter to
 * latency (read once per client) and the client internals measured for a sampled record (how long
 * {@code send()} blocked, the request that carried its batch, the application's pace). Part of
 * {@link SpanAttributes#all()}.
 */
public final class EvidenceAttributes {

  private static final String NS = "ns";

  private EvidenceAttributes() {}

  /** {@code klat.producer.linger_ms}: the producer's {@code linger.ms}. */
  public static final AttributeDef PRODUCER_LINGER_MS =
      longValue(
          "klat.producer.linger_ms",
          "ms",
          "The producer's linger.ms: how long a batch waits for more records before it is sent.");

  /** {@code klat.producer.batch_size}: the producer's {@code batch.size}, in bytes. */
  public static final AttributeDef PRODUCER_BATCH_SIZE =
      longValue(
          "klat.producer.batch_size",
          "By",
          "The producer's batch.size: the bytes at which a batch is full and sent at once.");

  /** {@code klat.producer.buffer_memory}: the producer's {@code buffer.memory}, in bytes. */
  public static final AttributeDef PRODUCER_BUFFER_MEMORY =
      longValue(
          "klat.producer.buffer_memory",
          "By",
          "The producer's buffer.memory: the bytes of unsent records before send() blocks.");

  /** {@code klat.producer.max_in_flight}: {@code max.in.flight.requests.per.connection}. */
  public static final AttributeDef PRODUCER_MAX_IN_FLIGHT =
      longValue(
          "klat.producer.max_in_flight",
          "",
          "The producer's max.in.flight.requests.per.connection.");

  /**
   * {@code klat.producer.append_wait_ns}: the time from {@code send()} until the record was in its
   * batch: the partition's metadata, serialization, partitioning, and a wait for {@code
   * buffer.memory}. The part of produce spent blocked in {@code send()}.
   */
  public static final AttributeDef PRODUCER_APPEND_WAIT_NS =
      longValue(
          "klat.producer.append_wait_ns",
          NS,
          "Time from send() until the record was in its batch (metadata, buffer.memory).");

  /**
   * {@code klat.producer.metadata_wait_ms}: the part of {@link #PRODUCER_APPEND_WAIT_NS} that
   * {@code send()} spent waiting for the topic's metadata (a topic the producer had not written
   * yet, or had forgotten after {@code metadata.max.idle.ms}, a partition it did not know yet), as
   * kafka-clients measures it: in whole milliseconds, so 0 for a wait under a millisecond. Absent
   * when the agent could not read it (an older agent, an unsupported kafka-clients): then the
   * append wait is not split.
   */
  public static final AttributeDef PRODUCER_METADATA_WAIT_MS =
      longValue(
          "klat.producer.metadata_wait_ms",
          "ms",
          "Part of the append wait spent waiting for the topic's metadata, in whole milliseconds.");

  /**
   * {@code klat.producer.request_in_flight}: the requests the producer already had in flight to the
   * record's leader when the request carrying the record's batch (its last attempt) was sent. At
   * {@code max.in.flight.requests.per.connection} minus one, the request took the connection's last
   * free slot.
   */
  public static final AttributeDef PRODUCER_REQUEST_IN_FLIGHT =
      longValue(
          "klat.producer.request_in_flight",
          "",
          "Requests already in flight to the leader when the record's produce request was sent.");

  /**
   * {@code klat.producer.request_batches}: the batches (one per partition) in the produce request
   * that carried the record's batch (its last attempt).
   */
  public static final AttributeDef PRODUCER_REQUEST_BATCHES =
      longValue(
          "klat.producer.request_batches",
          "",
          "Batches (partitions) in the produce request that carried the record's batch.");

  /**
   * {@code klat.consumer.poll_gap_ns}: the application's time between the previous {@code poll()}'s
   * return and the {@code poll()} that returned the record: what it spent on the previous records.
   */
  public static final AttributeDef CONSUMER_POLL_GAP_NS =
      longValue(
          "klat.consumer.poll_gap_ns",
          NS,
          "Time between the previous poll()'s return and the poll() that returned the record.");

  /** {@code klat.consumer.previous_poll_records}: the records the previous poll() returned. */
  public static final AttributeDef CONSUMER_PREVIOUS_POLL_RECORDS =
      longValue(
          "klat.consumer.previous_poll_records", "", "The records the previous poll() returned.");

  /** {@code klat.consumer.fetch_max_wait_ms}: the consumer's {@code fetch.max.wait.ms}. */
  public static final AttributeDef CONSUMER_FETCH_MAX_WAIT_MS =
      longValue(
          "klat.consumer.fetch_max_wait_ms",
          "ms",
          "The consumer's fetch.max.wait.ms: how long the leader holds a fetch waiting for data.");

  /** {@code klat.consumer.max_poll_records}: the consumer's {@code max.poll.records}. */
  public static final AttributeDef CONSUMER_MAX_POLL_RECORDS =
      longValue(
          "klat.consumer.max_poll_records",
          "",
          "The consumer's max.poll.records: the most records one poll() returns.");

  /**
   * {@code klat.consumer.assigned_partitions}: the partitions of the record's topic assigned to the
   * consumer when {@code poll()} returned the record: more than one, and other consumers of the
   * group could take some.
   */
  public static final AttributeDef CONSUMER_ASSIGNED_PARTITIONS =
      longValue(
          "klat.consumer.assigned_partitions",
          "",
          "Partitions of the record's topic assigned to the consumer when poll() returned it.");

  private static final List<AttributeDef> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              PRODUCER_LINGER_MS,
              PRODUCER_BATCH_SIZE,
              PRODUCER_BUFFER_MEMORY,
              PRODUCER_MAX_IN_FLIGHT,
              PRODUCER_APPEND_WAIT_NS,
              PRODUCER_METADATA_WAIT_MS,
              PRODUCER_REQUEST_IN_FLIGHT,
              PRODUCER_REQUEST_BATCHES,
              CONSUMER_POLL_GAP_NS,
              CONSUMER_PREVIOUS_POLL_RECORDS,
              CONSUMER_FETCH_MAX_WAIT_MS,
              CONSUMER_MAX_POLL_RECORDS,
              CONSUMER_ASSIGNED_PARTITIONS));

  /** Every evidence attribute, in a stable order. */
  public static List<AttributeDef> all() {
    return ALL;
  }

  private static AttributeDef longValue(String name, String unit, String description) {
    return new AttributeDef(name, AttributeDef.Type.LONG, unit, description);
  }
}

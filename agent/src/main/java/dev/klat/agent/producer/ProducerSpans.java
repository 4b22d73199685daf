package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.PartitionIds;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.tail.TailSpans;
import dev.klat.model.AttributeDef;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.SpanAttributes;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.ProducerBatch;

/**
 * The spans of sampled records: exported when their batch has completed, or when {@code send()}
 * failed before the record reached a batch.
 */
final class ProducerSpans {

  /**
   * The most attributes {@link #span} puts (every branch taken), with the transaction's two ({@link
   * TransactionSpans}): its span's arrays fit it. The record's link adds {@link #LINK_ATTRIBUTES}.
   */
  static final int MAX_ATTRIBUTES = 30;

  /**
   * The klat.link.* attributes of a linked record's span: topic, partition, offset, group, count.
   */
  static final int LINK_ATTRIBUTES = 5;

  /** How many of them are strings. */
  static final int MAX_STRING_ATTRIBUTES = 9;

  private ProducerSpans() {}

  /** At the end of a batch's completion: every future of the batch is done. */
  static void exportBatch(AgentRuntime runtime, Object batch, BatchTiming timing) {
    for (int i = 0; i < timing.sampledCount; i++) {
      RecordTracker tracker = timing.sampledRecords[i];
      SpanRecord span = acknowledged(runtime, tracker, batch, timing, timing.ackNanos);
      if (tracker.producer.transactions != null) {
        tracker.producer.transactions.exportAtEnd(runtime, span, tracker.future);
      } else {
        runtime.export(span);
      }
    }
  }

  /** A sampled record whose {@code send()} returned a failed future: A is now. */
  static void exportFailedSend(AgentRuntime runtime, RecordTracker tracker) {
    runtime.export(acknowledged(runtime, tracker, null, null, runtime.time.nanoTime()));
  }

  /** The span of a record whose future is done, with its metadata or its failure. */
  static SpanRecord acknowledged(
      AgentRuntime runtime,
      RecordTracker tracker,
      Object batch,
      BatchTiming timing,
      long ackNanos) {
    RecordMetadata metadata = null;
    Exception exception = null;
    Future<?> future = tracker.future;
    // Done by now (the batch's futures are set before its callbacks run): get() does not wait.
    if (future != null && future.isDone()) {
      try {
        Object value = future.get();
        metadata = value instanceof RecordMetadata ? (RecordMetadata) value : null;
      } catch (ExecutionException failed) {
        Throwable cause = failed.getCause();
        exception = cause instanceof Exception ? (Exception) cause : failed;
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return span(runtime, tracker, metadata, exception, batch, timing, ackNanos);
  }

  /** {@code S} to {@code A}, with {@code D}, the leader, the batch and the record's metadata. */
  private static SpanRecord span(
      AgentRuntime runtime,
      RecordTracker tracker,
      RecordMetadata metadata,
      Exception exception,
      Object batch,
      BatchTiming timing,
      long ackNanos) {
    SpanRecord span =
        new SpanRecord(
                tracker.links == null ? MAX_ATTRIBUTES : MAX_ATTRIBUTES + LINK_ATTRIBUTES,
                tracker.links == null ? MAX_STRING_ATTRIBUTES : MAX_STRING_ATTRIBUTES + 2)
            .setTraceId(tracker.traceIdHigh, tracker.traceIdLow)
            .setSpanId(tracker.spanId)
            .setParentSpanId(tracker.parentSpanId);
    putRecord(runtime, span, tracker.producer, tracker.topic, tracker.sendNanos, ackNanos);
    if (tracker.appendedNanos != Long.MIN_VALUE) {
      span.put(
          EvidenceAttributes.PRODUCER_APPEND_WAIT_NS,
          Math.max(0, tracker.appendedNanos - tracker.sendNanos));
      if (ProducerHooks.metadataWaitHooked) {
        span.put(EvidenceAttributes.PRODUCER_METADATA_WAIT_MS, tracker.metadataWaitMs);
      }
    }
    putBatch(runtime, span, batch, timing);
    putMetadata(span, metadata, timing);
    if (tracker.links != null) {
      putLinks(span, tracker.links, tracker.linkCount);
    }
    if (exception != null) {
      span.setError(exception.getClass().getSimpleName() + ": " + exception.getMessage());
      span.put(SpanAttributes.ERROR_TYPE, exception.getClass().getName());
    }
    return span;
  }

  /**
   * The record's link (section 9 of the latency model): {@code klat.link.*} name the first input,
   * the span's parent, and count them all; each further input kept is an OTLP span link to its
   * consumer span, with the same four attributes.
   */
  static void putLinks(SpanRecord span, InputLink[] links, int linkCount) {
    putLink(span, links[0]);
    span.put(SpanAttributes.LINK_COUNT, linkCount);
    for (int i = 1; i < links.length; i++) {
      InputLink link = links[i];
      SpanRecord attributes = new SpanRecord(4, 2);
      putLink(attributes, link);
      span.addLink(link.traceIdHigh, link.traceIdLow, link.consumerSpanId, attributes);
    }
  }

  private static void putLink(SpanRecord span, InputLink link) {
    span.put(SpanAttributes.LINK_TOPIC, link.topic);
    span.put(SpanAttributes.LINK_PARTITION, link.partition);
    span.put(SpanAttributes.LINK_OFFSET, link.offset);
    if (link.group != null) {
      span.put(SpanAttributes.LINK_GROUP, link.group);
    }
  }

  /**
   * At the end of a batch's completion, outside the accumulator's lock: the tail spans of the
   * batch's records that were flagged and kept by the producer's fair cap.
   */
  static void exportTail(AgentRuntime runtime, Object batch, BatchTiming timing) {
    TopicInstruments instruments = timing.instruments;
    if (instruments == null || instruments.producer == null) {
      return;
    }
    for (int k = 0; k < timing.tailCount; k++) {
      SpanRecord span = tailSpan(runtime, batch, timing, k);
      if (span != null) {
        runtime.exportTail(span);
      }
    }
  }

  /**
   * The tail span of the batch's {@code k}-th tail record: the sampled span's shape (without the
   * append wait, which only sampled records measure), its offset the batch's base offset plus its
   * index, and what {@link TailSpans#mark} adds; null when the batch's partition cannot be read.
   */
  static SpanRecord tailSpan(AgentRuntime runtime, Object batch, BatchTiming timing, int k) {
    TopicInstruments instruments = timing.instruments;
    int index = timing.tailIndices[k];
    // The record's future, done by now, has the record's timestamp; its offset is the batch's base
    // offset plus the record's index, as Kafka computes it, which serves when the future cannot be
    // read.
    RecordMetadata metadata = metadataOf(BatchRecordFutures.futureAt(batch, index));
    long offset =
        metadata != null && metadata.hasOffset() ? metadata.offset() : timing.baseOffset + index;
    int partition = metadata != null ? metadata.partition() : BatchRecordFutures.partitionOf(batch);
    SpanRecord span =
        new SpanRecord(MAX_ATTRIBUTES + 2, MAX_STRING_ATTRIBUTES + 1)
            .setSpanId(TraceIds.randomNonZeroLong());
    TailSpans.mark(span, instruments.topicHash, partition, offset, timing.tailThresholdNanos);
    putRecord(
        runtime,
        span,
        instruments.producer,
        instruments.topic,
        timing.tailSendNanos[k],
        timing.ackNanos);
    putBatch(runtime, span, batch, timing);
    span.put(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID, PartitionIds.of(partition));
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, offset);
    putMetadata(span, metadata, timing);
    return span;
  }

  private static RecordMetadata metadataOf(Future<?> future) {
    if (future == null || !future.isDone()) {
      return null;
    }
    try {
      Object value = future.get();
      return value instanceof RecordMetadata ? (RecordMetadata) value : null;
    } catch (ExecutionException failed) {
      return null;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The record's instants and the producer's settings. */
  private static void putRecord(
      AgentRuntime runtime,
      SpanRecord span,
      ProducerState producer,
      String topic,
      long sendNanos,
      long ackNanos) {
    span.setKind(SpanRecord.KIND_PRODUCER)
        .setName(spanName(producer, topic))
        .setStartEpochNanos(runtime.time.epochNanosAt(sendNanos))
        .setEndEpochNanos(runtime.time.epochNanosAt(ackNanos));
    span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, topic);
    span.put(SpanAttributes.MESSAGING_CLIENT_ID, producer.clientId);
    span.put(SpanAttributes.PRODUCER_ACKS, producer.acks);
    span.put(SpanAttributes.BATCH_COMPRESSION, producer.compression);
    putIfKnown(span, EvidenceAttributes.PRODUCER_LINGER_MS, producer.lingerMs);
    putIfKnown(span, EvidenceAttributes.PRODUCER_BATCH_SIZE, producer.batchSizeBytes);
    putIfKnown(span, EvidenceAttributes.PRODUCER_BUFFER_MEMORY, producer.bufferMemoryBytes);
    putIfKnown(span, EvidenceAttributes.PRODUCER_MAX_IN_FLIGHT, producer.maxInFlight);
    span.put(SpanAttributes.INSTANCE_ID, runtime.instanceId);
    span.put(SpanAttributes.SEND_TIME, span.startEpochNanos());
    span.put(SpanAttributes.ACK_TIME, span.endEpochNanos());
    if (producer.transactions != null) {
      span.put(SpanAttributes.PRODUCER_TRANSACTIONAL, 1L);
    }
  }

  /** The batch's drains, attempts, retry error, leader, request, records and bytes. */
  private static void putBatch(
      AgentRuntime runtime, SpanRecord span, Object batch, BatchTiming timing) {
    if (timing == null) {
      return;
    }
    if (timing.drains > 0) {
      span.put(SpanAttributes.DRAIN_FIRST_TIME, runtime.time.epochNanosAt(timing.firstDrainNanos));
      span.put(SpanAttributes.DRAIN_TIME, runtime.time.epochNanosAt(timing.lastDrainNanos));
      span.put(SpanAttributes.PRODUCER_ATTEMPTS, timing.drains);
      if (timing.drains > 1 && timing.retryError != null) {
        span.put(SpanAttributes.PRODUCER_RETRY_ERROR, timing.retryError);
      }
      if (timing.leaderNodeId >= 0) {
        span.put(SpanAttributes.LEADER_NODE_ID, timing.leaderNodeId);
      }
      putIfKnown(span, EvidenceAttributes.PRODUCER_REQUEST_BATCHES, timing.requestBatches);
      putIfKnown(span, EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT, timing.requestInFlightBefore);
    }
    if (timing.completedRecordCount >= 0) {
      span.put(SpanAttributes.BATCH_RECORD_COUNT, timing.completedRecordCount);
    }
    if (batch instanceof ProducerBatch) {
      span.put(SpanAttributes.BATCH_SIZE_BYTES, ((ProducerBatch) batch).estimatedSizeInBytes());
    }
    if (timing.logAppendTime >= 0) {
      span.put(SpanAttributes.RECORD_TIMESTAMP_MS, timing.logAppendTime);
      span.put(SpanAttributes.RECORD_TIMESTAMP_TYPE, "LogAppendTime");
    }
  }

  /** The record's partition, offset and (unless the batch's is a log append time) timestamp. */
  private static void putMetadata(SpanRecord span, RecordMetadata metadata, BatchTiming timing) {
    if (metadata == null) {
      return;
    }
    span.put(
        SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID, PartitionIds.of(metadata.partition()));
    if (metadata.hasOffset()) {
      span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, metadata.offset());
    }
    if (timing == null || timing.logAppendTime < 0) {
      span.put(SpanAttributes.RECORD_TIMESTAMP_MS, metadata.timestamp());
      span.put(SpanAttributes.RECORD_TIMESTAMP_TYPE, "CreateTime");
    }
  }

  /** {@code "send " + topic}, made once per run of spans of the same topic. */
  static String spanName(ProducerState producer, String topic) {
    SpanName last = producer.lastSpanName;
    if (last == null || !last.topic.equals(topic)) {
      last = new SpanName(topic);
      producer.lastSpanName = last;
    }
    return last.name;
  }

  /**
   * A topic and its spans' name. Immutable, so that the threads that export spans (the sender's,
   * and the application's for a failed send) may race on {@link ProducerState#lastSpanName} without
   * pairing a name with another topic.
   */
  static final class SpanName {
    final String topic;
    final String name;

    SpanName(String topic) {
      this.topic = topic;
      this.name = "send " + topic;
    }
  }

  private static void putIfKnown(SpanRecord span, AttributeDef attribute, long value) {
    if (value >= 0) {
      span.put(attribute, value);
    }
  }
}

package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.model.AttributeDef;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.SpanAttributes;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.ProducerBatch;

/** The span of a sampled record, built when its acknowledgement reaches its tracker. */
final class ProducerSpans {

  private ProducerSpans() {}

  /** {@code S} to {@code A}, with {@code D}, the leader, the batch and the record's metadata. */
  static SpanRecord span(
      AgentRuntime runtime,
      RecordTracker tracker,
      RecordMetadata metadata,
      Exception exception,
      CompletionContext.Frame frame,
      BatchTiming timing,
      long ackNanos) {
    RecordTracker.SampledRecord sampled = tracker.sampled;
    ProducerState producer = tracker.producer;
    SpanRecord span =
        new SpanRecord()
            .setTraceId(sampled.traceIdHigh, sampled.traceIdLow)
            .setSpanId(sampled.spanId)
            .setParentSpanId(sampled.parentSpanId)
            .setKind(SpanRecord.KIND_PRODUCER)
            .setName("send " + tracker.topic)
            .setStartEpochNanos(runtime.time.epochNanosAt(tracker.sendNanos))
            .setEndEpochNanos(runtime.time.epochNanosAt(ackNanos));
    span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, tracker.topic);
    span.put(SpanAttributes.MESSAGING_CLIENT_ID, producer.clientId);
    span.put(SpanAttributes.PRODUCER_ACKS, producer.acks);
    span.put(SpanAttributes.BATCH_COMPRESSION, producer.compression);
    putIfKnown(span, EvidenceAttributes.PRODUCER_LINGER_MS, producer.lingerMs);
    putIfKnown(span, EvidenceAttributes.PRODUCER_BATCH_SIZE, producer.batchSizeBytes);
    putIfKnown(span, EvidenceAttributes.PRODUCER_BUFFER_MEMORY, producer.bufferMemoryBytes);
    putIfKnown(span, EvidenceAttributes.PRODUCER_MAX_IN_FLIGHT, producer.maxInFlight);
    if (tracker.appendedNanos != Long.MIN_VALUE) {
      span.put(
          EvidenceAttributes.PRODUCER_APPEND_WAIT_NS,
          Math.max(0, tracker.appendedNanos - tracker.sendNanos));
    }
    span.put(SpanAttributes.INSTANCE_ID, runtime.instanceId);
    span.put(SpanAttributes.SEND_TIME, span.startEpochNanos());
    span.put(SpanAttributes.ACK_TIME, span.endEpochNanos());
    if (timing != null && timing.drains > 0) {
      span.put(SpanAttributes.DRAIN_FIRST_TIME, runtime.time.epochNanosAt(timing.firstDrainNanos));
      span.put(SpanAttributes.DRAIN_TIME, runtime.time.epochNanosAt(timing.lastDrainNanos));
      span.put(SpanAttributes.PRODUCER_ATTEMPTS, timing.drains);
      if (timing.leaderNodeId >= 0) {
        span.put(SpanAttributes.LEADER_NODE_ID, timing.leaderNodeId);
      }
      putIfKnown(span, EvidenceAttributes.PRODUCER_REQUEST_BATCHES, timing.requestBatches);
      putIfKnown(span, EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT, timing.requestInFlightBefore);
    }
    if (frame != null) {
      span.put(SpanAttributes.BATCH_RECORD_COUNT, frame.recordCount);
      if (frame.batch instanceof ProducerBatch) {
        span.put(
            SpanAttributes.BATCH_SIZE_BYTES, ((ProducerBatch) frame.batch).estimatedSizeInBytes());
      }
      if (frame.logAppendTime >= 0) {
        span.put(SpanAttributes.RECORD_TIMESTAMP_MS, frame.logAppendTime);
        span.put(SpanAttributes.RECORD_TIMESTAMP_TYPE, "LogAppendTime");
      }
    }
    if (metadata != null) {
      span.put(
          SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID,
          Integer.toString(metadata.partition()));
      if (metadata.hasOffset()) {
        span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, metadata.offset());
      }
      if (frame == null || frame.logAppendTime < 0) {
        span.put(SpanAttributes.RECORD_TIMESTAMP_MS, metadata.timestamp());
        span.put(SpanAttributes.RECORD_TIMESTAMP_TYPE, "CreateTime");
      }
    }
    if (exception != null) {
      span.setError(exception.getClass().getSimpleName() + ": " + exception.getMessage());
      span.put(SpanAttributes.ERROR_TYPE, exception.getClass().getName());
    }
    return span;
  }

  private static void putIfKnown(SpanRecord span, AttributeDef attribute, long value) {
    if (value >= 0) {
      span.put(attribute, value);
    }
  }
}

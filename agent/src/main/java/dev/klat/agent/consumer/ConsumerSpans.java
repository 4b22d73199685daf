package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.PartitionIds;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TraceIds;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.SpanAttributes;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;

/**
 * The consumer's span of one record, without {@code P}: the poll exit adds it, with the poll's
 * evidence. A sampled record's span ({@link TimingHeaderReader}) and a tail record's ({@link
 * ConsumerTail}) share this shape, so that the collector reads both the same way; each adds what
 * only it has ({@code S} of the header; the capture and the threshold).
 */
final class ConsumerSpans {

  /** The attributes every consumer span gets here. */
  static final int RECORD_ATTRIBUTES = 18;

  /** How many of them are strings. */
  static final int RECORD_STRING_ATTRIBUTES = 7;

  /** The attributes the poll's exit adds ({@code ConsumerHooks}). */
  static final int POLL_ATTRIBUTES = 4;

  private ConsumerSpans() {}

  /**
   * A consumer span of {@code record}, sized for {@code extraAttributes} more attributes of which
   * {@code extraStrings} strings.
   */
  static SpanRecord of(
      AgentRuntime runtime,
      ConsumerState state,
      ConsumerRecord<?, ?> record,
      long traceIdHigh,
      long traceIdLow,
      long parentSpanId,
      FetchStamp stamp,
      long highWatermark,
      long uncommittedAtNanos,
      int extraAttributes,
      int extraStrings) {
    SpanRecord span =
        new SpanRecord(
                RECORD_ATTRIBUTES + POLL_ATTRIBUTES + extraAttributes,
                RECORD_STRING_ATTRIBUTES + extraStrings)
            .setTraceId(traceIdHigh, traceIdLow)
            .setSpanId(TraceIds.randomNonZeroLong())
            .setParentSpanId(parentSpanId)
            .setKind(SpanRecord.KIND_CONSUMER)
            .setName("poll " + record.topic());
    span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, record.topic());
    span.put(
        SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID, PartitionIds.of(record.partition()));
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, record.offset());
    span.put(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME, state.groupId);
    span.put(SpanAttributes.MESSAGING_CLIENT_ID, state.clientId);
    span.put(SpanAttributes.INSTANCE_ID, runtime.instanceId);
    if (stamp != null) {
      long responseEpochNanos = runtime.time.epochNanosAt(stamp.responseNanos);
      long startEpochNanos = responseEpochNanos;
      if (stamp.requestNanos != 0L) {
        startEpochNanos = runtime.time.epochNanosAt(stamp.requestNanos);
        span.put(SpanAttributes.FETCH_REQUEST_TIME, startEpochNanos);
      }
      span.put(SpanAttributes.FETCH_RESPONSE_TIME, responseEpochNanos);
      span.put(SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY, stamp.readPromptly);
      span.setStartEpochNanos(startEpochNanos);
    }
    span.put(SpanAttributes.RECORD_TIMESTAMP_MS, record.timestamp());
    span.put(
        SpanAttributes.RECORD_TIMESTAMP_TYPE,
        record.timestampType() == TimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime");
    if (highWatermark >= 0L) {
      span.put(SpanAttributes.PARTITION_HIGH_WATERMARK, highWatermark);
    }
    if (uncommittedAtNanos != 0L) {
      span.put(
          SpanAttributes.RECORD_UNCOMMITTED_TIME, runtime.time.epochNanosAt(uncommittedAtNanos));
    }
    if (state.fetchMinBytes >= 0) {
      span.put(SpanAttributes.CONSUMER_FETCH_MIN_BYTES, state.fetchMinBytes);
    }
    if (state.fetchMaxWaitMs >= 0) {
      span.put(EvidenceAttributes.CONSUMER_FETCH_MAX_WAIT_MS, state.fetchMaxWaitMs);
    }
    if (state.maxPollRecords >= 0) {
      span.put(EvidenceAttributes.CONSUMER_MAX_POLL_RECORDS, state.maxPollRecords);
    }
    if (state.isolationLevel != null) {
      span.put(SpanAttributes.CONSUMER_ISOLATION_LEVEL, state.isolationLevel);
    }
    return span;
  }
}

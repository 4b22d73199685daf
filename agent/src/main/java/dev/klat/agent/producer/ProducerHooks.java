package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.WallClock;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.weave.StateHolder;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimingHeader;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.ProducerBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * The producer hooks' logic, called from the advice that {@link ProducerInstrumentation} weaves
 * into kafka-clients. Every method here is reached from inside the application's calls, so each
 * catches everything: a failure of the agent costs the agent its measurement, never the application
 * its record.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class ProducerHooks {

  private ProducerHooks() {}

  /**
   * At {@code KafkaProducer.send(record, callback)} entry: takes S and returns the callback for the
   * send to use, the agent's tracker around the application's, or the application's own to leave
   * the call untouched.
   */
  public static Callback onSend(
      Object producer,
      String clientId,
      Object producerConfig,
      Object apiVersions,
      ProducerRecord<?, ?> record,
      Callback callback) {
    long sendNanos = System.nanoTime();
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null || record == null) {
      return callback;
    }
    try {
      ProducerState state = producerState(runtime, producer, clientId, producerConfig, apiVersions);
      TopicInstruments instruments = state.instruments(record.topic());
      if (instruments == null) {
        return callback;
      }
      RecordTracker tracker = new RecordTracker(state, instruments, callback, sendNanos, record);
      maybeSample(runtime, state, tracker, record, sendNanos);
      return tracker;
    } catch (Throwable t) {
      runtime.log.warnThrottled("producer-send", "producer send hook failed: " + t);
      return callback;
    }
  }

  /**
   * Right after {@link #onSend}: the record to send, a stamped copy when {@code callback} is a
   * tracker that made one, else {@code record} itself.
   */
  @SuppressWarnings("rawtypes")
  public static ProducerRecord recordToSend(ProducerRecord record, Callback callback) {
    try {
      if (callback instanceof RecordTracker) {
        ProducerRecord<?, ?> replacement = ((RecordTracker) callback).takeRecord();
        if (replacement != null) {
          return replacement;
        }
      }
    } catch (Throwable t) {
      warn("producer-send", t);
    }
    return record;
  }

  private static ProducerState producerState(
      AgentRuntime runtime,
      Object producer,
      String clientId,
      Object producerConfig,
      Object apiVersions) {
    StateHolder holder = (StateHolder) producer;
    Object state = holder.klat$state();
    if (state instanceof ProducerState) {
      return (ProducerState) state;
    }
    // Two threads may race to create it; both states work and the last one written wins.
    ProducerState created = new ProducerState(runtime, clientId, producerConfig, apiVersions);
    holder.klat$state(created);
    return created;
  }

  private static void maybeSample(
      AgentRuntime runtime,
      ProducerState state,
      RecordTracker tracker,
      ProducerRecord<?, ?> record,
      long sendNanos) {
    long[] upstream = null;
    Header traceparent = record.headers().lastHeader(HeaderNames.TRACEPARENT);
    if (traceparent != null) {
      long[] parsed = new long[4];
      if (TraceIds.parseTraceparent(traceparent.value(), parsed)) {
        upstream = parsed;
      }
    }
    boolean wanted =
        upstream != null
            ? (upstream[3] & 1) != 0
            : ThreadLocalRandom.current().nextDouble() < runtime.samplingProbability;
    if (!wanted || !state.sampleRateLimiter.tryAcquire(sendNanos)) {
      return;
    }
    long traceIdHigh = upstream != null ? upstream[0] : TraceIds.randomNonZeroLong();
    long traceIdLow = upstream != null ? upstream[1] : TraceIds.randomNonZeroLong();
    long parentSpanId = upstream != null ? upstream[2] : 0L;
    long spanId = TraceIds.randomNonZeroLong();
    boolean stamped = false;
    if (runtime.headersEnabled && state.recordFormatCarriesHeaders()) {
      byte[] timing =
          TimingHeader.encode(WallClock.epochNanos(sendNanos) / 1000L, runtime.instanceId, true);
      tracker.replaceRecord(
          HeaderStamper.stamp(
              record, TraceIds.traceparent(traceIdHigh, traceIdLow, spanId, true), timing));
      stamped = true;
    }
    tracker.sampled =
        new RecordTracker.SampledRecord(traceIdHigh, traceIdLow, spanId, parentSpanId, stamped);
  }

  /** At {@code ProducerBatch.drained(long)} exit, on the producer's network thread: takes D. */
  public static void onDrained(Object batch) {
    long nowNanos = System.nanoTime();
    try {
      timingOf(batch).drained(nowNanos);
    } catch (Throwable t) {
      warn("producer-drain", t);
    }
  }

  /** At {@code Sender.sendProduceRequest} entry: the broker the drained batches go to. */
  public static void onProduceRequest(int destinationNodeId, List<?> batches) {
    try {
      for (int i = 0, n = batches.size(); i < n; i++) {
        timingOf(batches.get(i)).leaderNodeId = destinationNodeId;
      }
    } catch (Throwable t) {
      warn("producer-request", t);
    }
  }

  /**
   * At {@code ProducerBatch.completeFutureAndFireCallbacks} entry: the batch's callbacks follow.
   */
  public static void onCompletionStart(
      Object batch,
      long baseOffset,
      long logAppendTime,
      int recordCount,
      TopicPartition topicPartition) {
    try {
      Object state = ((StateHolder) batch).klat$state();
      CompletionContext.push(
          batch,
          state instanceof BatchTiming ? (BatchTiming) state : null,
          baseOffset,
          logAppendTime,
          recordCount,
          topicPartition);
    } catch (Throwable t) {
      warn("producer-completion", t);
    }
  }

  /**
   * At each normal return of {@code ProducerBatch.completeFutureAndFireCallbacks}. An exception
   * escaping that method skips this; {@link CompletionContext} copes with the frame left behind.
   */
  public static void onCompletionEnd() {
    try {
      CompletionContext.pop();
    } catch (Throwable t) {
      warn("producer-completion", t);
    }
  }

  /** Called by {@link RecordTracker} before the application's callback: takes A. */
  static void onAcknowledged(RecordTracker tracker, RecordMetadata metadata, Exception exception) {
    long ackNanos = System.nanoTime();
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null) {
      return;
    }
    try {
      TopicInstruments instruments = tracker.instruments;
      // A failed record is an error, not a latency: an expired batch would otherwise show up as a
      // delivery.timeout.ms-long "latency".
      if (exception != null) {
        instruments.countFailure(exception);
      } else {
        recordLatency(runtime, instruments.producerLatency, ackNanos - tracker.sendNanos, "A");
      }
      CompletionContext.Frame frame = CompletionContext.current();
      BatchTiming timing = frame == null ? null : frame.timing;
      if (exception == null && timing != null && timing.drains > 0) {
        recordLatency(
            runtime, instruments.produceLatency, timing.lastDrainNanos - tracker.sendNanos, "D");
      }
      if (tracker.sampled != null) {
        runtime.export(span(runtime, tracker, metadata, exception, frame, timing, ackNanos));
      }
    } catch (Throwable t) {
      warn("producer-ack", t);
    }
  }

  private static void recordLatency(
      AgentRuntime runtime,
      dev.klat.agent.export.LatencyHistogram histogram,
      long nanos,
      String endInstant) {
    if (nanos >= 0) {
      histogram.recordNanos(nanos);
    } else {
      runtime.metrics().counter(MetricDef.AGENT_DURATIONS_CLAMPED, endInstant).increment();
    }
  }

  private static SpanRecord span(
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
            .setStartEpochNanos(WallClock.epochNanos(tracker.sendNanos))
            .setEndEpochNanos(WallClock.epochNanos(ackNanos));
    span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, tracker.topic);
    span.put(SpanAttributes.MESSAGING_CLIENT_ID, producer.clientId);
    span.put(SpanAttributes.PRODUCER_ACKS, producer.acks);
    span.put(SpanAttributes.BATCH_COMPRESSION, producer.compression);
    span.put(SpanAttributes.INSTANCE_ID, runtime.instanceId);
    span.put(SpanAttributes.SEND_TIME, span.startEpochNanos());
    span.put(SpanAttributes.ACK_TIME, span.endEpochNanos());
    if (timing != null && timing.drains > 0) {
      span.put(SpanAttributes.DRAIN_FIRST_TIME, WallClock.epochNanos(timing.firstDrainNanos));
      span.put(SpanAttributes.DRAIN_TIME, WallClock.epochNanos(timing.lastDrainNanos));
      span.put(SpanAttributes.PRODUCER_ATTEMPTS, timing.drains);
      if (timing.leaderNodeId >= 0) {
        span.put(SpanAttributes.LEADER_NODE_ID, timing.leaderNodeId);
      }
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

  private static BatchTiming timingOf(Object batch) {
    StateHolder holder = (StateHolder) batch;
    Object state = holder.klat$state();
    if (state instanceof BatchTiming) {
      return (BatchTiming) state;
    }
    BatchTiming timing = new BatchTiming();
    holder.klat$state(timing);
    return timing;
  }

  private static void warn(String key, Throwable t) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnThrottled(key, "klat hook " + key + " failed: " + t);
    }
  }
}

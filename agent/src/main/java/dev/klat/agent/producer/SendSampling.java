package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.TraceIds;
import dev.klat.model.TimingHeader;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The sampling decision of the records that {@code send()}'s hook could not settle on its fast path
 * (a record with a traceparent, or one that won the probability draw), and the tracker of a sampled
 * record. Apart from {@link ProducerHooks#onSend} so that the hook stays small.
 */
final class SendSampling {

  private SendSampling() {}

  /**
   * Returns the tracker of a sampled record, or null when it is not sampled. A record that carries
   * a W3C traceparent follows its sampled flag; one with an unreadable traceparent gets the
   * probability draw; one without has already won the caller's draw. Either way the producer's rate
   * cap applies.
   */
  static RecordTracker maybeSample(
      AgentRuntime runtime,
      ProducerState state,
      ProducerRecord<?, ?> record,
      long sendNanos,
      Header traceparent) {
    long[] upstream = null;
    if (traceparent != null) {
      long[] parsed = new long[4];
      if (TraceIds.parseTraceparent(traceparent.value(), parsed)) {
        upstream = parsed;
      }
    }
    boolean wanted =
        upstream != null
            ? (upstream[3] & 1) != 0
            : traceparent == null
                || ThreadLocalRandom.current().nextDouble() < runtime.samplingProbability;
    if (!wanted || !state.sampleRateLimiter.tryAcquire(sendNanos)) {
      return null;
    }
    return track(runtime, state, record, sendNanos, upstream);
  }

  /**
   * The tracker of a sampled record, with its trace ids (the parent's, from {@code upstream}, when
   * it has one) and, where the record format allows, its headers stamped on a copy.
   */
  private static RecordTracker track(
      AgentRuntime runtime,
      ProducerState state,
      ProducerRecord<?, ?> record,
      long sendNanos,
      long[] upstream) {
    long traceIdHigh = upstream != null ? upstream[0] : TraceIds.randomNonZeroLong();
    long traceIdLow = upstream != null ? upstream[1] : TraceIds.randomNonZeroLong();
    long parentSpanId = upstream != null ? upstream[2] : 0L;
    long spanId = TraceIds.randomNonZeroLong();
    RecordTracker tracker =
        new RecordTracker(state, sendNanos, record, traceIdHigh, traceIdLow, spanId, parentSpanId);
    if (runtime.headersEnabled && state.recordFormatCarriesHeaders()) {
      byte[] timing =
          TimingHeader.encode(
              runtime.time.epochNanosAt(sendNanos) / 1000L, runtime.instanceId, true);
      tracker.replaceRecord(
          HeaderStamper.stamp(
              record, TraceIds.traceparentBytes(traceIdHigh, traceIdLow, spanId, true), timing));
      tracker.headersStamped = true;
    }
    return tracker;
  }
}

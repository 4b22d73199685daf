package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.ThreadLinks;
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
   * The probability draw of a record without a traceparent whose thread has no gap left to count
   * down: whether it is picked, and the gap to the next pick. Picking each record with probability
   * p is the same as picking one and then skipping a geometrically distributed number of records,
   * so the per-record cost is a decrement instead of a random number.
   */
  static boolean drawPicks(AgentRuntime runtime, SendContext context) {
    double probability = runtime.samplingProbability;
    if (context.gapRuntime != runtime) {
      // This thread's first draw under this runtime: where the first pick falls is random too.
      context.gapRuntime = runtime;
      long skipped = gap(probability, ThreadLocalRandom.current().nextDouble());
      if (skipped > 0) {
        context.recordsBeforeNextDraw = skipped - 1;
        return false;
      }
    }
    context.recordsBeforeNextDraw = gap(probability, ThreadLocalRandom.current().nextDouble());
    return probability > 0;
  }

  /**
   * How many records go unpicked before the next pick when each is picked with {@code probability}:
   * geometric, {@code P(gap = k) = (1 - p)^k p}, from a uniform {@code uniform} in [0, 1).
   */
  static long gap(double probability, double uniform) {
    if (probability >= 1) {
      return 0;
    }
    if (probability <= 0) {
      return Long.MAX_VALUE;
    }
    // 1 - uniform is in (0, 1]: its logarithm is finite.
    double records = Math.floor(Math.log(1 - uniform) / Math.log1p(-probability));
    return records >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) records;
  }

  /**
   * Returns the tracker of a sampled record, or null when it is not sampled. A record that carries
   * a W3C traceparent follows its sampled flag; one with an unreadable traceparent gets the
   * probability draw; one without has already been picked by the caller's ({@link #drawPicks}).
   * Either way the producer's rate cap applies.
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
    RecordTracker tracker =
        upstream != null
            ? track(runtime, state, record, sendNanos, upstream[0], upstream[1], upstream[2])
            : track(
                runtime,
                state,
                record,
                sendNanos,
                TraceIds.randomNonZeroLong(),
                TraceIds.randomNonZeroLong(),
                0L);
    if (upstream != null) {
      // A forwarded trace context (Kafka Streams): the input a consumer of this JVM read with it.
      InputLink forwarded = runtime.forwardedLinks.get(upstream[2]);
      if (forwarded != null) {
        tracker.links = new InputLink[] {forwarded};
        tracker.linkCount = 1;
      }
    }
    return tracker;
  }

  /**
   * The send of a thread with linked inputs (section 9 of the latency model): the sampled consumed
   * records it took since its last send, or that send's when it took none since. Returns null when
   * it has none after all (the caller goes on as for any record), else the record to send: sampled
   * within the producer's cap, continuing the first input's trace under its consumer span, or,
   * refused by the cap, unsampled and without a timing header copied from the input.
   */
  static ProducerRecord<?, ?> sendLinked(
      AgentRuntime runtime,
      SendContext context,
      ProducerState state,
      ProducerRecord<?, ?> record,
      long sendNanos) {
    ThreadLinks links = context.links;
    int count = links.forSend();
    if (count == 0) {
      return null;
    }
    if (!state.sampleRateLimiter.tryAcquire(sendNanos)) {
      return unsampled(runtime, record);
    }
    int kept = Math.min(count, ThreadLinks.MAX_LINKS);
    InputLink[] inputs = new InputLink[kept];
    int present = 0;
    for (int i = 0; i < kept; i++) {
      // Null only when another thread iterated this thread's ConsumerRecords meanwhile.
      InputLink input = links.linked(i);
      if (input != null) {
        inputs[present++] = input;
      }
    }
    if (present == 0) {
      return unsampled(runtime, record);
    }
    if (present < kept) {
      inputs = java.util.Arrays.copyOf(inputs, present);
    }
    InputLink first = inputs[0];
    RecordTracker tracker =
        track(
            runtime,
            state,
            record,
            sendNanos,
            first.traceIdHigh,
            first.traceIdLow,
            first.consumerSpanId);
    tracker.links = inputs;
    tracker.linkCount = count;
    context.sampled = tracker;
    ProducerRecord<?, ?> toSend = tracker.takeRecord();
    return toSend != null ? toSend : record;
  }

  /**
   * An output record that is not sampled: without a timing header copied from its input (section 9
   * of the latency model), unless {@code klat.headers.enabled=false}, which promises that the agent
   * never changes a record header.
   */
  static ProducerRecord<?, ?> unsampled(AgentRuntime runtime, ProducerRecord<?, ?> record) {
    return runtime.headersEnabled ? HeaderStamper.withoutTiming(record) : record;
  }

  /**
   * The tracker of a sampled record, with its trace ids (its parent's, when it has one) and, where
   * the record format allows, its headers stamped on a copy.
   */
  private static RecordTracker track(
      AgentRuntime runtime,
      ProducerState state,
      ProducerRecord<?, ?> record,
      long sendNanos,
      long traceIdHigh,
      long traceIdLow,
      long parentSpanId) {
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

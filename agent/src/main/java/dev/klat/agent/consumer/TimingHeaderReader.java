package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.model.HeaderNames;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimingHeader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads the klat headers of a record a producer agent stamped: checks them (counting each kind of
 * bad header), and builds the span of a sampled record. Only stamped (or forged) records get here.
 */
final class TimingHeaderReader {

  /** A send time further ahead of this host's clock than this is forged or a broken clock. */
  static final long MAX_FUTURE_MICROS = 300_000_000L;

  /** Reprocessing a year-old topic is legitimate; older send times are not trusted. */
  static final long MAX_AGE_MICROS = 366L * 24 * 3600 * 1_000_000L;

  /** W3C allows longer values for future versions; anything beyond this is garbage. */
  static final int MAX_TRACEPARENT_BYTES = 512;

  static final String REASON_DUPLICATE_TIMING = "duplicate";
  static final String REASON_TRACEPARENT_INVALID = "traceparent-invalid";
  static final String REASON_TRACEPARENT_MISSING = "traceparent-missing";
  static final String REASON_TRACEPARENT_DUPLICATE = "traceparent-duplicate";

  private TimingHeaderReader() {}

  /**
   * Validates the klat headers of a record that has a timing header, exports its span when it is
   * sampled, and returns its {@code S} in epoch microseconds, or 0 when the header is unusable.
   * Only records stamped by a producer agent (or forged) get here, so allocation is allowed.
   */
  static long read(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      ConsumerRecord<?, ?> record,
      Header timing,
      FetchStamp stamp,
      long highWatermark) {
    long[] traceContext = new long[TRACE_CONTEXT_LENGTH];
    long sendEpochMicros = check(runtime, state, context.decoded, record, timing, traceContext);
    if (traceContext[SPAN_WANTED] == 0L) {
      return sendEpochMicros;
    }
    long[] parent = traceContext[PARENT_SPAN_ID] != 0L ? traceContext : null;
    PartitionFetchHistory history = context.listHistory;
    long uncommittedAtNanos = history != null ? history.uncommittedAtNanos(record.offset()) : 0L;
    SpanRecord span =
        span(
            runtime,
            state,
            record,
            parent,
            sendEpochMicros,
            stamp,
            highWatermark,
            uncommittedAtNanos);
    context.addSpan(span, record.topic());
    registerLink(runtime, state, context, record, span, parent);
    return sendEpochMicros;
  }

  /** The length of the array {@link #check} fills. */
  static final int TRACE_CONTEXT_LENGTH = 4;

  /** Indexes into it: the trace id, the parent span id (0: a fresh trace), and whether to trace. */
  static final int TRACE_ID_HIGH = 0;

  static final int TRACE_ID_LOW = 1;
  static final int PARENT_SPAN_ID = 2;
  static final int SPAN_WANTED = 3;

  /**
   * Validates the klat headers of a record that has a timing header (counting each kind of bad
   * header) and returns its {@code S} in epoch microseconds, or 0 when the header is unusable. When
   * the record is sampled and the consumer's span limiter admits it, sets {@code
   * traceContext[SPAN_WANTED]} to 1 and the trace its span continues (a fresh one, parent 0, when
   * the trace context is missing or bad); otherwise leaves {@code traceContext} alone.
   */
  static long check(
      AgentRuntime runtime,
      ConsumerState state,
      TimingHeader.Decoded decoded,
      ConsumerRecord<?, ?> record,
      Header timing,
      long[] traceContext) {
    int timings = 0;
    int traceparents = 0;
    Header traceparent = null;
    for (Header header : record.headers()) {
      String key = header.key();
      if (HeaderNames.TIMING.equals(key)) {
        timings++;
      } else if (HeaderNames.TRACEPARENT.equals(key)) {
        traceparents++;
        traceparent = header;
      }
    }
    if (timings > 1) {
      state.invalidHeader(REASON_DUPLICATE_TIMING).increment();
      return 0L;
    }
    TimingHeader.DecodeError error = TimingHeader.decode(timing.value(), decoded);
    if (error == TimingHeader.DecodeError.NONE) {
      error =
          TimingHeader.checkPlausible(
              decoded.sendEpochMicros(),
              runtime.time.epochNanos() / 1000L,
              MAX_FUTURE_MICROS,
              MAX_AGE_MICROS);
    }
    if (error != TimingHeader.DecodeError.NONE) {
      state.invalidHeader(error.id()).increment();
      return 0L;
    }
    long sendEpochMicros = decoded.sendEpochMicros();
    if (!decoded.sampled() || !state.spanRateLimiter.tryAcquire(runtime.time.nanoTime())) {
      return sendEpochMicros;
    }
    long[] parent = null;
    if (traceparents == 1) {
      byte[] value = traceparent.value();
      long[] parsed = new long[4];
      if (value != null
          && value.length <= MAX_TRACEPARENT_BYTES
          && TraceIds.parseTraceparent(value, parsed)) {
        parent = parsed;
      } else {
        state.invalidHeader(REASON_TRACEPARENT_INVALID).increment();
      }
    } else {
      state
          .invalidHeader(
              traceparents == 0 ? REASON_TRACEPARENT_MISSING : REASON_TRACEPARENT_DUPLICATE)
          .increment();
    }
    // A bad or missing trace context starts a fresh trace; the collector still joins the span to
    // the producer's by topic, partition and offset.
    traceContext[TRACE_ID_HIGH] = parent != null ? parent[0] : TraceIds.randomNonZeroLong();
    traceContext[TRACE_ID_LOW] = parent != null ? parent[1] : TraceIds.randomNonZeroLong();
    traceContext[PARENT_SPAN_ID] = parent != null ? parent[2] : 0L;
    traceContext[SPAN_WANTED] = 1L;
    return sendEpochMicros;
  }

  /**
   * Makes the record linkable (section 9 of the latency model): outputs this thread sends after
   * taking it from {@code ConsumerRecords} continue its trace under its consumer span, whose id is
   * decided here, before the application sees the record; an output that forwards its {@code
   * traceparent} (Kafka Streams) finds it by the upstream span id.
   */
  private static void registerLink(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      ConsumerRecord<?, ?> record,
      SpanRecord span,
      long[] parent) {
    InputLink link =
        new InputLink(
            record.topic(),
            record.partition(),
            record.offset(),
            state.groupId == null || state.groupId.isEmpty() ? null : state.groupId,
            span.traceIdHigh(),
            span.traceIdLow(),
            span.spanId());
    context.links.polled(record, link);
    if (parent != null) {
      runtime.forwardedLinks.put(parent[2], link);
    }
  }

  /** The span of a sampled record, without P: the poll exit's second pass adds it. */
  private static SpanRecord span(
      AgentRuntime runtime,
      ConsumerState state,
      ConsumerRecord<?, ?> record,
      long[] parent,
      long sendEpochMicros,
      FetchStamp stamp,
      long highWatermark,
      long uncommittedAtNanos) {
    // A bad or missing trace context starts a fresh trace; the collector still joins the span to
    // the producer's by topic, partition and offset.
    SpanRecord span =
        ConsumerSpans.of(
            runtime,
            state,
            record,
            parent != null ? parent[0] : TraceIds.randomNonZeroLong(),
            parent != null ? parent[1] : TraceIds.randomNonZeroLong(),
            parent != null ? parent[2] : 0L,
            stamp,
            highWatermark,
            uncommittedAtNanos,
            1,
            0);
    span.put(SpanAttributes.SEND_TIME, sendEpochMicros * 1000L);
    return span;
  }
}

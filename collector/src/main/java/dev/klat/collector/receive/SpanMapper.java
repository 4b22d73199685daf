package dev.klat.collector.receive;

import dev.klat.collector.correlate.join.ClockSync;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.OtelRecordSpan;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.ProducerTransaction;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.RecordLink;
import dev.klat.collector.correlate.join.RecordLinks;
import dev.klat.collector.correlate.join.ShareDelivery;
import dev.klat.model.AttributeDef;
import dev.klat.model.Capture;
import dev.klat.model.SpanAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads klat's producer and consumer spans ({@link SpanAttributes}) out of OTLP spans. A span
 * carrying {@code klat.poll.time_unix_nano} is a consumer span, one carrying {@code
 * klat.send.time_unix_nano} a producer span; any other span is not klat's and is ignored. A klat
 * span that lacks what the join needs is rejected, with the reason. A tail span (section 8 of the
 * latency model) has the shape of its side's sampled span plus {@code klat.capture=tail} and its
 * threshold; a value other than {@code tail} reads as a sampled span, a bad threshold as unknown. A
 * span that is not klat's goes to {@link OtelSpanReader}: an OpenTelemetry Kafka instrumentation's
 * span from a client without klat's agent (section 10), or ignored.
 */
final class SpanMapper {
  static final String LOG_APPEND_TIME = "LogAppendTime";
  static final String CREATE_TIME = "CreateTime";
  // Instants beyond 2^62 ns (year 2116) are garbage; below it no difference can overflow.
  private static final long MAX_EPOCH_NANOS = 1L << 62;

  /** The reason a span lacking what the join needs is counted under. */
  static final String REASON_INCOMPLETE = "incomplete";

  /**
   * The outcome of mapping one span: at most one of the span fields is set, none when the span is
   * ignored; a rejected span has the message for the partial success and the reason it is counted
   * under ({@link #REASON_INCOMPLETE}, {@link OtelSpanReader#REASON_VALUE} or a {@link WireNames}
   * reason). A span that is not klat's but an OpenTelemetry Kafka instrumentation's has its {@code
   * otelOutcome}, and when it is a record span its {@code otel}.
   */
  record Result(
      ProducerSpan producer,
      ConsumerSpan consumer,
      OtelRecordSpan otel,
      OtelSpanReader.Outcome otelOutcome,
      String rejected,
      String reason) {
    /** Not klat's, and not Kafka's: counted as not klat's. */
    static final Result IGNORED =
        new Result(null, null, null, OtelSpanReader.Outcome.NOT_KAFKA, null, null);

    static final Result NOT_JOINABLE = new Result(null, null, null, null);

    private static final Result[] OTEL_COUNTED = new Result[OtelSpanReader.Outcome.values().length];

    static {
      for (OtelSpanReader.Outcome outcome : OtelSpanReader.Outcome.values()) {
        OTEL_COUNTED[outcome.ordinal()] = new Result(null, null, null, outcome, null, null);
      }
    }

    Result(ProducerSpan producer, ConsumerSpan consumer, String rejected, String reason) {
      this(producer, consumer, null, null, rejected, reason);
    }

    /** An instrumentation's span that is only counted. */
    static Result otel(OtelSpanReader.Outcome outcome) {
      return OTEL_COUNTED[outcome.ordinal()];
    }

    /** An instrumentation's record span. */
    static Result otel(OtelRecordSpan span, OtelSpanReader.Outcome outcome) {
      return new Result(null, null, span, outcome, null, null);
    }

    /** An instrumentation's span refused for a value of the wrong kind. */
    static Result refusedOtel(String message, String reason) {
      return new Result(null, null, null, OtelSpanReader.Outcome.REFUSED, message, reason);
    }
  }

  /** A span refused for a name the collector does not keep, with the reason it is counted under. */
  static final class Refused extends IllegalArgumentException {
    final String reason;

    Refused(String reason, String message) {
      super(message);
      this.reason = reason;
    }

    // A hostile sender may send many: no stack trace to fill.
    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  private SpanMapper() {}

  /**
   * Reads {@link SpanAttributes#CLOCK_COLLECTOR_OFFSET_NANOS} and its uncertainty from a resource;
   * null when either, or the instance id, is missing or not an integer (not a klat agent, an agent
   * whose endpoint sends no clock headers, or garbage).
   */
  static ClockSync clockSync(Map<String, Object> resource) {
    if (!resource.containsKey(SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name())) {
      return null;
    }
    long instanceId = optionalLong(resource, SpanAttributes.INSTANCE_ID, 0);
    Object offset = resource.get(SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name());
    Object uncertainty = resource.get(SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name());
    Long o = offset == null ? null : asLong(offset);
    Long u = uncertainty == null ? null : asLong(uncertainty);
    if (instanceId == 0 || o == null || u == null || u < 0) {
      return null;
    }
    return new ClockSync(instanceId, o, u);
  }

  static Result map(OtlpSpan span) {
    KlatAttributes a = span.attributes;
    try {
      if (a.has(KlatAttributes.POLL_TIME)) {
        return new Result(null, consumer(span), null, null);
      }
      if (a.has(KlatAttributes.SEND_TIME)) {
        if (a.has(KlatAttributes.ERROR_TYPE) || !a.has(KlatAttributes.OFFSET)) {
          // A failed send has no offset and no latency: nothing to join, nothing wrong.
          return Result.NOT_JOINABLE;
        }
        return new Result(producer(span), null, null, null);
      }
      return OtelSpanReader.read(span);
    } catch (Refused e) {
      return new Result(null, null, e.getMessage(), e.reason);
    } catch (IllegalArgumentException e) {
      return new Result(null, null, e.getMessage(), REASON_INCOMPLETE);
    }
  }

  private static ProducerSpan producer(OtlpSpan span) {
    ProducerSpan p = producerOutsideTransaction(span);
    ProducerTransaction txn = transaction(span.attributes);
    return txn.transactional() ? p.withTransaction(txn) : p;
  }

  // Section 9: klat.producer.transactional (1) and C; evidence the join can do without, so a value
  // out of range is dropped, not the span.
  private static ProducerTransaction transaction(KlatAttributes a) {
    if (optionalLong(a, KlatAttributes.TRANSACTIONAL, 0) != 1) {
      return ProducerTransaction.NONE;
    }
    long commit = optionalLong(a, KlatAttributes.TXN_COMMIT_TIME, 0);
    return new ProducerTransaction(
        true, commit > 0 && commit < MAX_EPOCH_NANOS ? commit : Long.MIN_VALUE);
  }

  private static ProducerSpan producerOutsideTransaction(OtlpSpan span) {
    KlatAttributes a = span.attributes;
    long ack = a.has(KlatAttributes.ACK_TIME) ? time(a, KlatAttributes.ACK_TIME) : 0;
    return new ProducerSpan(
        key(a),
        span.traceIdHigh,
        span.traceIdLow,
        span.spanId,
        instanceId(span),
        time(a, KlatAttributes.SEND_TIME),
        time(a, KlatAttributes.DRAIN_TIME),
        ack == 0 ? Long.MIN_VALUE : ack,
        logAppendTimeMs(a),
        leaderNodeId(a),
        name(a, KlatAttributes.CLIENT_ID),
        new ProducerEvidence(
            evidence(a, KlatAttributes.LINGER_MS),
            evidence(a, KlatAttributes.BATCH_SIZE),
            evidence(a, KlatAttributes.BUFFER_MEMORY),
            evidence(a, KlatAttributes.MAX_IN_FLIGHT),
            evidence(a, KlatAttributes.BATCH_RECORDS),
            evidence(a, KlatAttributes.BATCH_BYTES),
            evidence(a, KlatAttributes.ATTEMPTS),
            evidence(a, KlatAttributes.APPEND_WAIT),
            evidence(a, KlatAttributes.REQUEST_IN_FLIGHT),
            evidence(a, KlatAttributes.REQUEST_BATCHES),
            isAcksAll(a.asString(KlatAttributes.ACKS)),
            millisAsNanos(evidence(a, KlatAttributes.METADATA_WAIT)),
            name(a, KlatAttributes.RETRY_ERROR)),
        capture(a),
        tailThresholdNanos(a),
        span.parentSpanId,
        links(span));
  }

  /**
   * The inputs a producer span names (section 9 of the latency model): the first in its own {@code
   * klat.link.*} attributes (its trace and parent span are the input's), the others in its OTLP
   * span links, each with the same attributes; null when it names none. A link whose topic,
   * partition or offset is missing or bad is not read, and counted with those beyond {@link
   * RecordLinks#MAX_LINKS}; the span itself is kept, since its own breakdown does not need links.
   */
  static RecordLinks links(OtlpSpan span) {
    if (span.linkCount == 0 && !span.attributes.has(KlatAttributes.LINK_TOPIC)) {
      return null;
    }
    List<RecordLink> links = new ArrayList<>(1 + span.linkCount);
    int notRead = span.linksNotRead;
    if (span.attributes.has(KlatAttributes.LINK_TOPIC)) {
      RecordLink first =
          link(span.attributes, span.traceIdHigh, span.traceIdLow, span.parentSpanId);
      if (first == null) {
        notRead++;
      } else {
        links.add(first);
      }
    }
    for (int i = 0; i < span.linkCount; i++) {
      RecordLink link =
          links.size() == RecordLinks.MAX_LINKS
              ? null
              : link(
                  span.linkAttributes(i),
                  span.linkTraceIdHigh[i],
                  span.linkTraceIdLow[i],
                  span.linkSpanId[i]);
      if (link == null) {
        notRead++;
      } else {
        links.add(link);
      }
    }
    if (links.isEmpty()) {
      return null;
    }
    long count = optionalLong(span.attributes, KlatAttributes.LINK_COUNT, -1);
    return new RecordLinks(
        links, count > 0 && count <= Integer.MAX_VALUE ? (int) count : links.size(), notRead);
  }

  // One link's klat.link.* attributes, checked as the span's own names are; null when unusable.
  private static RecordLink link(KlatAttributes a, long traceIdHigh, long traceIdLow, long spanId) {
    String topic = a.string(KlatAttributes.LINK_TOPIC);
    if (topic == null || WireNames.topicProblem(topic) != null) {
      return null;
    }
    long partition = optionalLong(a, KlatAttributes.LINK_PARTITION, -1);
    long offset = optionalLong(a, KlatAttributes.LINK_OFFSET, -1);
    if (partition < 0 || partition > Integer.MAX_VALUE || offset < 0) {
      return null;
    }
    String group = a.asString(KlatAttributes.LINK_GROUP);
    if (WireNames.nameProblem(KlatAttributes.name(KlatAttributes.LINK_GROUP), group) != null) {
      return null;
    }
    return new RecordLink(
        new RecordKey(topic, (int) partition, offset),
        group.isEmpty() ? null : group,
        traceIdHigh,
        traceIdLow,
        spanId);
  }

  // -1, unknown, stays -1; so does a value too large to be a wait.
  private static long millisAsNanos(long millis) {
    return millis < 0 || millis > Long.MAX_VALUE / 1_000_000L ? -1 : millis * 1_000_000L;
  }

  // The producer's own setting: "all" and "-1" are the same.
  private static boolean isAcksAll(String acks) {
    return acks.equals("all") || acks.equals("-1");
  }

  private static ConsumerSpan consumer(OtlpSpan span) {
    ConsumerSpan c = consumerOfAnyIsolation(span);
    // Section 11: a share consumer's span is one delivery of the record to its share group. Its
    // isolation level is a group setting the client does not see, so V is not used.
    if (SpanAttributes.GROUP_TYPE_SHARE.equals(span.attributes.string(KlatAttributes.GROUP_TYPE))) {
      return c.withShare(shareDelivery(span.attributes));
    }
    // Section 9: anything but read_committed (absent from an older agent) reads at H.
    return READ_COMMITTED.equals(span.attributes.string(KlatAttributes.ISOLATION_LEVEL))
        ? c.withReadCommitted(true)
        : c;
  }

  // The delivery count is what the join keys deliveries by, so it must be there and sane; the
  // acknowledgement is what the span says of its end, so a type the collector does not know is a
  // malformed span rather than a guess.
  private static ShareDelivery shareDelivery(KlatAttributes a) {
    long count = requiredLong(a, KlatAttributes.SHARE_DELIVERY_COUNT);
    if (count < 1 || count > ShareDelivery.MAX_DELIVERY_COUNT) {
      throw new IllegalArgumentException(
          KlatAttributes.name(KlatAttributes.SHARE_DELIVERY_COUNT) + " out of range: " + count);
    }
    String type =
        a.has(KlatAttributes.SHARE_ACK_TYPE) ? a.asString(KlatAttributes.SHARE_ACK_TYPE) : null;
    if (type != null && !ShareDelivery.knownType(type)) {
      throw new IllegalArgumentException(
          KlatAttributes.name(KlatAttributes.SHARE_ACK_TYPE)
              + " must be accept, release, reject or renew");
    }
    long ackNanos =
        a.has(KlatAttributes.SHARE_ACK_TIME)
            ? time(a, KlatAttributes.SHARE_ACK_TIME)
            : ShareDelivery.NOT_ACKNOWLEDGED;
    String error =
        a.has(KlatAttributes.SHARE_ACK_ERROR) ? name(a, KlatAttributes.SHARE_ACK_ERROR) : "";
    return new ShareDelivery((int) count, ackNanos, type, error.isEmpty() ? null : error);
  }

  private static final String READ_COMMITTED = "read_committed";

  private static ConsumerSpan consumerOfAnyIsolation(OtlpSpan span) {
    KlatAttributes a = span.attributes;
    String group = name(a, KlatAttributes.GROUP);
    if (group.isEmpty()) {
      throw new IllegalArgumentException(
          "consumer span without " + SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME);
    }
    return new ConsumerSpan(
        key(a),
        group,
        span.traceIdHigh,
        span.traceIdLow,
        span.spanId,
        span.parentSpanId,
        instanceId(span),
        time(a, KlatAttributes.FETCH_REQUEST_TIME),
        time(a, KlatAttributes.FETCH_RESPONSE_TIME),
        time(a, KlatAttributes.POLL_TIME),
        logAppendTimeMs(a),
        name(a, KlatAttributes.CLIENT_ID),
        new ConsumerEvidence(
            fetchMinBytes(a),
            evidence(a, KlatAttributes.FETCH_MAX_WAIT_MS),
            evidence(a, KlatAttributes.MAX_POLL_RECORDS),
            evidence(a, KlatAttributes.POLL_GAP),
            evidence(a, KlatAttributes.PREVIOUS_POLL_RECORDS),
            evidence(a, KlatAttributes.ASSIGNED_PARTITIONS)),
        a.isTrue(KlatAttributes.READ_PROMPTLY),
        uncommittedNanos(a),
        createTimeMs(a),
        capture(a),
        tailThresholdNanos(a));
  }

  // Absent, or any value but "tail", is a sampled span: every span before tail capture was one.
  private static Capture capture(KlatAttributes a) {
    return Capture.fromId(a.string(KlatAttributes.CAPTURE));
  }

  // Evidence the collector can do without: negative or not an integer reads as unknown.
  private static long tailThresholdNanos(KlatAttributes a) {
    return evidence(a, KlatAttributes.TAIL_THRESHOLD);
  }

  // Evidence the collector can do without: a value out of range is dropped, not the span.
  private static long uncommittedNanos(KlatAttributes a) {
    long nanos = optionalLong(a, KlatAttributes.UNCOMMITTED_TIME, 0);
    return nanos > 0 && nanos < MAX_EPOCH_NANOS ? nanos : 0;
  }

  // A setting or figure the diagnosis weighs: absent, negative or not an integer reads as unknown.
  private static long evidence(KlatAttributes a, int slot) {
    long value = optionalLong(a, slot, -1);
    return value >= 0 ? value : -1;
  }

  // An agent that could not read the setting sends none; a value out of int range is garbage.
  private static int fetchMinBytes(KlatAttributes a) {
    long bytes = optionalLong(a, KlatAttributes.FETCH_MIN_BYTES, -1);
    return bytes >= 0 && bytes <= Integer.MAX_VALUE ? (int) bytes : -1;
  }

  private static RecordKey key(KlatAttributes a) {
    String topic = a.asString(KlatAttributes.TOPIC);
    if (topic.isEmpty()) {
      throw new IllegalArgumentException(
          "span without " + SpanAttributes.MESSAGING_DESTINATION_NAME);
    }
    String problem = WireNames.topicProblem(topic);
    if (problem != null) {
      throw new Refused(WireNames.REASON_TOPIC, problem);
    }
    long partition = requiredLong(a, KlatAttributes.PARTITION);
    long offset = requiredLong(a, KlatAttributes.OFFSET);
    if (partition < 0 || partition > Integer.MAX_VALUE || offset < 0) {
      throw new IllegalArgumentException("negative partition or offset");
    }
    return new RecordKey(topic, (int) partition, offset);
  }

  // A name the span carries, at most WireNames.MAX_NAME_CHARS long, or "" when absent.
  private static String name(KlatAttributes a, int slot) {
    String value = a.asString(slot);
    String problem = WireNames.nameProblem(KlatAttributes.name(slot), value);
    if (problem != null) {
      throw new Refused(WireNames.REASON_NAME, problem);
    }
    return value;
  }

  // A broker's node id is an int32 in Kafka; anything else reads as unknown.
  private static int leaderNodeId(KlatAttributes a) {
    long id = optionalLong(a, KlatAttributes.LEADER_NODE_ID, -1);
    return id >= 0 && id <= Integer.MAX_VALUE ? (int) id : -1;
  }

  private static long instanceId(OtlpSpan span) {
    long id = optionalLong(span.attributes, KlatAttributes.INSTANCE_ID, 0);
    return id != 0 ? id : optionalLong(span.resource, SpanAttributes.INSTANCE_ID, 0);
  }

  private static long logAppendTimeMs(KlatAttributes a) {
    return timestampMs(a, LOG_APPEND_TIME);
  }

  // S of a consumer-only tail record; the type must say CreateTime, since an agent that does not
  // report the type leaves it unknown.
  private static long createTimeMs(KlatAttributes a) {
    return timestampMs(a, CREATE_TIME);
  }

  private static long timestampMs(KlatAttributes a, String type) {
    if (!type.equals(a.string(KlatAttributes.TIMESTAMP_TYPE))) {
      return -1;
    }
    long ms = optionalLong(a, KlatAttributes.TIMESTAMP_MS, -1);
    return ms > 0 && ms < MAX_EPOCH_NANOS / 1_000_000 ? ms : -1;
  }

  private static long time(KlatAttributes a, int slot) {
    long nanos = requiredLong(a, slot);
    if (nanos <= 0 || nanos >= MAX_EPOCH_NANOS) {
      throw new IllegalArgumentException(KlatAttributes.name(slot) + " out of range: " + nanos);
    }
    return nanos;
  }

  private static long requiredLong(KlatAttributes a, int slot) {
    if (!a.has(slot)) {
      throw new IllegalArgumentException("span without " + KlatAttributes.name(slot));
    }
    if (!a.isLong(slot)) {
      throw new IllegalArgumentException(KlatAttributes.name(slot) + " is not an integer");
    }
    return a.longValue(slot);
  }

  private static long optionalLong(KlatAttributes a, int slot, long absent) {
    return a.isLong(slot) ? a.longValue(slot) : absent;
  }

  private static long optionalLong(Map<String, Object> a, AttributeDef def, long absent) {
    Object v = a.get(def.name());
    Long value = v == null ? null : asLong(v);
    return value == null ? absent : value;
  }

  // The semantic conventions make the partition a string, the agent writes ints elsewhere: accept
  // either form for every integer attribute.
  private static Long asLong(Object v) {
    if (v instanceof Long l) {
      return l;
    }
    if (v instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 0x1p62) {
      return (long) (double) d;
    }
    return null;
  }
}

package dev.klat.collector.export;

import dev.klat.collector.aggregate.CombinedSegment;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareDelivery;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.Instants;
import dev.klat.model.Segment;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimePoint;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceId;
import io.opentelemetry.api.trace.TraceState;
import java.util.ArrayList;
import java.util.List;

/**
 * One breakdown as a small trace: a root span from {@code S} to {@code P} for the record and
 * consumer group, and one child per segment part with its true start and end on the producer's
 * timeline, so that a trace view draws the waterfall. The spans join the record's own trace (same
 * trace id), which is also the trace id of the exemplars; their ids are derived from the record and
 * group, so that exporting a breakdown again gives the same spans and a backend deduplicates. The
 * root says how the record was captured ({@code klat.capture}: {@code sampled}, {@code tail} or
 * {@code opentelemetry}). A record seen through an OpenTelemetry instrumentation (section 10 of the
 * latency model) has no {@code D}, {@code F} or {@code R}: its parts are the combined segments
 * {@code produce+publish} ({@code S} to {@code L}) and {@code catch-up+fetch} ({@code H} to {@code
 * P}) around commit, each labelled {@code klat.segment} with its id and the worse quality of its
 * two ends (a side with klat's agent keeps its own parts). A partial tail record (section 8 of the
 * latency model) gets the parts its known instants bound: a producer-only one ends at its commit, a
 * consumer-only one starts at its {@code S} from the timestamp with produce and publish as one
 * part, or at {@code L}. A {@code read_committed} group's transactional record (section 9) reads at
 * {@code V}: its commit part ends there and carries {@code klat.visible.time_unix_nano}, and
 * catch-up and fetch start from it. A share group's record (section 11) has one more child per
 * delivery seen ({@code delivery n: end}, from its acquisition to its acknowledgement), and a
 * redelivered one splits catch-up's wait at the first acquisition {@code R(1)}: {@code catch-up
 * (redelivery)} runs from it to the counted delivery's {@code F}.
 */
final class BreakdownSpans {
  private static final AttributeKey<String> TOPIC =
      AttributeKey.stringKey(SpanAttributes.MESSAGING_DESTINATION_NAME.name());
  private static final AttributeKey<String> PARTITION =
      AttributeKey.stringKey(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name());
  private static final AttributeKey<Long> OFFSET =
      AttributeKey.longKey(SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
  private static final AttributeKey<String> GROUP =
      AttributeKey.stringKey(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name());
  private static final AttributeKey<Long> CLOCK_OFFSET =
      AttributeKey.longKey(SpanAttributes.CLOCK_OFFSET_NANOS.name());
  private static final AttributeKey<Long> CLOCK_UNCERTAINTY =
      AttributeKey.longKey(SpanAttributes.CLOCK_UNCERTAINTY_NANOS.name());
  private static final AttributeKey<String> QUALITY =
      AttributeKey.stringKey(SpanAttributes.QUALITY.name());
  private static final AttributeKey<String> SEGMENT =
      AttributeKey.stringKey(SpanAttributes.SEGMENT.name());
  private static final AttributeKey<String> METHOD =
      AttributeKey.stringKey(SpanAttributes.METHOD.name());
  private static final AttributeKey<Long> REQUEST_QUEUE =
      AttributeKey.longKey(SpanAttributes.PRODUCE_REQUEST_QUEUE_NANOS.name());
  private static final AttributeKey<Long> REQUEST_LOCAL =
      AttributeKey.longKey(SpanAttributes.PRODUCE_REQUEST_LOCAL_NANOS.name());
  private static final AttributeKey<String> CAPTURE =
      AttributeKey.stringKey(SpanAttributes.CAPTURE.name());
  private static final AttributeKey<Long> VISIBLE_TIME =
      AttributeKey.longKey(SpanAttributes.VISIBLE_TIME.name());

  private static final AttributeKey<Long> DELIVERY_COUNT =
      AttributeKey.longKey(SpanAttributes.SHARE_DELIVERY_COUNT.name());
  private static final AttributeKey<String> ACK_TYPE =
      AttributeKey.stringKey(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name());
  private static final AttributeKey<String> ACK_ERROR =
      AttributeKey.stringKey(SpanAttributes.SHARE_ACKNOWLEDGE_ERROR.name());
  private static final AttributeKey<Long> ACK_TIME =
      AttributeKey.longKey(SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name());

  private BreakdownSpans() {}

  static List<BreakdownSpan> of(JoinedBreakdown jb) {
    Breakdown b = jb.breakdown();
    Instants t = b.instants();
    long h = t.nanos(TimePoint.COMMIT);
    String traceId = TraceId.fromLongs(jb.traceIdHigh(), jb.traceIdLow());
    // A producer-only tail record has neither consumer span nor group: its producer span names it.
    long side = jb.consumerSpanId() != 0 ? jb.consumerSpanId() : jb.producerSpanId();
    long rootId = mix(side ^ (jb.group() == null ? 0 : jb.group().hashCode()) ^ 0x6b6c6174L);
    SpanContext root = context(traceId, rootId);
    // A consumer seen through an OpenTelemetry instrumentation has P without F and R (section 10).
    boolean consumer = t.has(TimePoint.POLL);
    boolean fetched = consumer && t.has(TimePoint.FETCH_RESPONSE);
    long start = t.has(TimePoint.SEND) ? t.nanos(TimePoint.SEND) : first(t, TimePoint.APPEND, h);
    long end =
        consumer
            ? t.nanos(TimePoint.POLL)
            : Math.max(h, t.has(TimePoint.ACK) ? t.nanos(TimePoint.ACK) : h);
    Capture capture = jb.capture() == null ? Capture.SAMPLED : jb.capture();
    List<BreakdownSpan> out = new ArrayList<>();
    out.add(
        new BreakdownSpan(
            "klat " + jb.key().topic() + (jb.group() == null ? "" : " " + jb.group()),
            root,
            SpanContext.getInvalid(),
            start,
            end,
            common(jb, null).put(QUALITY, b.quality().id()).put(CAPTURE, capture.id()).build()));
    Parts parts = new Parts(jb, traceId, root, rootId, out);
    // Section 9: the record became readable at V, not H (a read_committed group, a transaction).
    h = t.hasVisible() ? t.visibleNanos() : h;
    boolean drain = t.has(TimePoint.DRAIN);
    long d = drain ? t.nanos(TimePoint.DRAIN) : 0;
    if (drain && t.has(TimePoint.SEND)) {
      parts.add(Segment.PRODUCE, "produce", t.nanos(TimePoint.SEND), d);
    }
    if (b.isKnown(Segment.PUBLISH) && drain) {
      long l = t.nanos(TimePoint.APPEND);
      parts.add(Segment.PUBLISH, "publish", d, l);
      parts.add(Segment.COMMIT, "commit", l, h);
    } else if (drain) {
      parts.add(null, "publish+commit", d, h);
    } else if (t.has(TimePoint.APPEND)) {
      long l = t.nanos(TimePoint.APPEND);
      if (t.has(TimePoint.SEND)) {
        parts.add(CombinedSegment.PRODUCE_AND_PUBLISH, t.nanos(TimePoint.SEND), l);
      }
      parts.add(Segment.COMMIT, "commit", l, h);
    }
    if (consumer && !fetched && t.has(TimePoint.COMMIT)) {
      parts.add(CombinedSegment.CATCH_UP_AND_FETCH, h, t.nanos(TimePoint.POLL));
    } else if (fetched) {
      long f = t.has(TimePoint.FETCH_REQUEST) ? t.nanos(TimePoint.FETCH_REQUEST) : h;
      long r = t.nanos(TimePoint.FETCH_RESPONSE);
      // Section 11: a redelivered record was available again from the first acquisition R(1).
      // Fetch is R(n) - X with X = max(F(n), R(1)); the part is F(n) - R(1) when positive.
      long available = h;
      if (b.redeliveryNanos() >= 0) {
        available = r - b.nanos(Segment.FETCH);
        long acquired = b.redeliveryNanos() > 0 ? f - b.redeliveryNanos() : available;
        if (acquired > h) {
          parts.add(Segment.CATCH_UP, "catch-up (until first acquired)", h, acquired);
        }
        if (b.redeliveryNanos() > 0) {
          parts.add(Segment.CATCH_UP, "catch-up (redelivery)", acquired, f);
        }
      } else if (f > h) {
        parts.add(Segment.CATCH_UP, "catch-up (lag)", h, f);
      }
      parts.add(Segment.FETCH, "fetch", Math.max(f, available), r);
      parts.add(Segment.CATCH_UP, "catch-up (buffer)", r, t.nanos(TimePoint.POLL));
    }
    if (jb.share() != null) {
      deliveries(jb, parts);
    }
    return out;
  }

  // Section 11: each delivery seen, from its acquisition R to its acknowledgement (or P without
  // one), named with its count and end; on the producer's timeline where its clock is related,
  // else as its own consumer read it (said in the name).
  private static void deliveries(JoinedBreakdown jb, Parts parts) {
    for (ShareRecord.Delivery d : jb.share().deliveries()) {
      long offset = d.aligned() ? d.offsetNanos() : 0;
      long from = d.acquiredNanos() - offset;
      long to =
          (d.acknowledgeNanos() != ShareDelivery.NOT_ACKNOWLEDGED
                  ? Math.max(d.acknowledgeNanos(), d.pollNanos())
                  : d.pollNanos())
              - offset;
      AttributesBuilder attributes =
          common(jb, null).put(DELIVERY_COUNT, (long) d.count()).put(QUALITY, "exact");
      if (d.acknowledgeType() != null) {
        attributes.put(ACK_TYPE, d.acknowledgeType());
      }
      if (d.acknowledgeError() != null) {
        attributes.put(ACK_ERROR, d.acknowledgeError());
      }
      if (d.acknowledgeNanos() != ShareDelivery.NOT_ACKNOWLEDGED) {
        attributes.put(ACK_TIME, d.acknowledgeNanos() - offset);
      }
      if (!d.aligned()) {
        attributes.remove(CLOCK_OFFSET).remove(CLOCK_UNCERTAINTY);
      }
      parts.add(
          "delivery " + d.count() + ": " + d.end().id() + (d.aligned() ? "" : " (own clock)"),
          from,
          to,
          attributes);
    }
  }

  private static long first(Instants t, TimePoint point, long otherwise) {
    return t.has(point) ? t.nanos(point) : otherwise;
  }

  /** The children of one root, numbered in order, so that each keeps its id from run to run. */
  private record Parts(
      JoinedBreakdown jb, String traceId, SpanContext root, long rootId, List<BreakdownSpan> out) {
    // A combined segment (section 10 of the latency model): named and labelled by its id, with
    // the worse of its two ends' qualities.
    void add(CombinedSegment combined, long start, long end) {
      AttributesBuilder attributes =
          common(jb, null)
              .put(SEGMENT, combined.id())
              .put(QUALITY, combined.quality(jb.breakdown()).id());
      add(combined.id(), start, end, attributes);
    }

    void add(Segment segment, String name, long start, long end) {
      Breakdown b = jb.breakdown();
      AttributesBuilder attributes = common(jb, segment);
      if (segment != null && b.isKnown(segment)) {
        attributes
            .put(SEGMENT, segment.id())
            .put(QUALITY, b.quality(segment).id())
            .put(METHOD, b.method(segment).id());
      } else {
        attributes.put(QUALITY, "none");
      }
      // The leader's probe timed the request that appended the record: part of publish.
      if (segment == Segment.PUBLISH && jb.requestQueueNanos() >= 0) {
        attributes.put(REQUEST_QUEUE, jb.requestQueueNanos());
      }
      if (segment == Segment.PUBLISH && jb.requestLocalNanos() >= 0) {
        attributes.put(REQUEST_LOCAL, jb.requestLocalNanos());
      }
      if (segment == Segment.COMMIT && b.instants().hasVisible()) {
        attributes.put(VISIBLE_TIME, b.instants().visibleNanos());
      }
      add(name, start, end, attributes);
    }

    void add(String name, long start, long end, AttributesBuilder attributes) {
      long spanId = mix(rootId + out.size());
      out.add(
          new BreakdownSpan(
              name,
              context(traceId, spanId),
              root,
              start,
              Math.max(start, end),
              attributes.build()));
    }
  }

  private static AttributesBuilder common(JoinedBreakdown jb, Segment segment) {
    // The publish part is on the broker's clock: its offset is the broker's, where known.
    ClockOffset offset =
        segment == Segment.PUBLISH && jb.brokerOffset() != null
            ? jb.brokerOffset()
            : jb.consumerOffset();
    AttributesBuilder out =
        Attributes.builder()
            .put(TOPIC, jb.key().topic())
            .put(PARTITION, Integer.toString(jb.key().partition()))
            .put(OFFSET, jb.key().offset());
    if (jb.group() != null) {
      out.put(GROUP, jb.group());
    }
    // A producer-only tail record placed no consumer instant: no offset was applied.
    if (offset != null) {
      out.put(CLOCK_OFFSET, offset.offsetNanos()).put(CLOCK_UNCERTAINTY, offset.uncertaintyNanos());
    }
    return out;
  }

  private static SpanContext context(String traceId, long spanId) {
    return SpanContext.create(
        traceId, SpanId.fromLong(spanId), TraceFlags.getSampled(), TraceState.getDefault());
  }

  // splitmix64: spreads related inputs over the id space; the result is never 0 in practice, and
  // an id of 0 would be invalid, so 0 maps to 1.
  static long mix(long z) {
    z += 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    z = z ^ (z >>> 31);
    return z == 0 ? 1 : z;
  }
}

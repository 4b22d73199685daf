package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;

import dev.klat.model.SpanAttributes;
import dev.klat.model.TailTraceIds;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * OTLP spans as the agents send them for tail records (section 8 of the latency model), built with
 * the generated classes: the same attributes as a sampled span of that side, {@code
 * klat.capture=tail}, the threshold, and the trace id derived from the record.
 */
public final class TailOtlpSpans {
  public static final long MS = 1_000_000L;

  private TailOtlpSpans() {}

  public static long derivedHigh(String topic, int partition, long offset) {
    return TailTraceIds.high(TailTraceIds.topicHash(topic), partition, offset);
  }

  public static long derivedLow(String topic, int partition, long offset) {
    return TailTraceIds.low(TailTraceIds.topicHash(topic), partition, offset);
  }

  /** A producer tail span of {@code topic-partition@offset}: S at {@code s}, D +2 ms, A +30 ms. */
  public static Span.Builder producer(String topic, int partition, long offset, long s) {
    return Span.newBuilder()
        .setTraceId(id(derivedHigh(topic, partition, offset), derivedLow(topic, partition, offset)))
        .setSpanId(id(0x1000 + offset))
        .setName(topic + " publish")
        .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), topic))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), partition))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
        .addAttributes(num(SpanAttributes.SEND_TIME.name(), s))
        .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), s + 2 * MS))
        .addAttributes(num(SpanAttributes.ACK_TIME.name(), s + 30 * MS))
        .addAttributes(num(SpanAttributes.LEADER_NODE_ID.name(), 1))
        .addAttributes(str(SpanAttributes.CAPTURE.name(), "tail"))
        .addAttributes(num(SpanAttributes.TAIL_THRESHOLD_NANOS.name(), 25 * MS));
  }

  /**
   * A consumer tail span of group {@code group}: F, R and P at +20, +34 and +35 ms after {@code s},
   * the record timestamp {@code s} in milliseconds on a CreateTime topic.
   */
  public static Span.Builder consumer(
      String topic, int partition, long offset, String group, long s) {
    return Span.newBuilder()
        .setTraceId(id(derivedHigh(topic, partition, offset), derivedLow(topic, partition, offset)))
        .setSpanId(id(0x2000 + offset))
        .setName(topic + " process")
        .setKind(Span.SpanKind.SPAN_KIND_CONSUMER)
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), topic))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), partition))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
        .addAttributes(str(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), group))
        .addAttributes(num(SpanAttributes.FETCH_REQUEST_TIME.name(), s + 20 * MS))
        .addAttributes(num(SpanAttributes.FETCH_RESPONSE_TIME.name(), s + 34 * MS))
        .addAttributes(num(SpanAttributes.POLL_TIME.name(), s + 35 * MS))
        .addAttributes(num(SpanAttributes.RECORD_TIMESTAMP_MS.name(), s / MS))
        .addAttributes(str(SpanAttributes.RECORD_TIMESTAMP_TYPE.name(), "CreateTime"))
        .addAttributes(str(SpanAttributes.CAPTURE.name(), "tail"))
        .addAttributes(num(SpanAttributes.TAIL_THRESHOLD_NANOS.name(), 30 * MS));
  }

  /** One agent's export request of {@code spans}, its instance id on the resource. */
  public static byte[] request(long instanceId, Span... spans) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (Span span : spans) {
      scope.addSpans(span);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), instanceId)))
                .addScopeSpans(scope))
        .build()
        .toByteArray();
  }
}

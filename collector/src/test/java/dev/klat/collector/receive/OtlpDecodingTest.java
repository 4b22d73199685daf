package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OtlpDecodingTest {
  static final long S = 1_800_000_000_000_000_000L;

  static byte[] producerAndConsumerRequest() {
    Span producer =
        Span.newBuilder()
            .setTraceId(id(0x0102030405060708L, 0x090a0b0c0d0e0f10L))
            .setSpanId(id(0x11))
            .setName("send orders")
            .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
            .setStartTimeUnixNano(S)
            .setEndTimeUnixNano(S + 9_000_000)
            .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
            .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "3"))
            .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), 42))
            .addAttributes(num(SpanAttributes.SEND_TIME.name(), S))
            .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), S + 1_000_000))
            .addAttributes(num(SpanAttributes.ACK_TIME.name(), S + 9_000_000))
            .addAttributes(num(SpanAttributes.LEADER_NODE_ID.name(), 2))
            .addAttributes(num(SpanAttributes.RECORD_TIMESTAMP_MS.name(), S / 1_000_000 + 4))
            .addAttributes(str(SpanAttributes.RECORD_TIMESTAMP_TYPE.name(), "LogAppendTime"))
            .addAttributes(str(SpanAttributes.PRODUCER_ACKS.name(), "all"))
            .addAttributes(num(EvidenceAttributes.PRODUCER_LINGER_MS.name(), 20))
            .addAttributes(num(EvidenceAttributes.PRODUCER_BATCH_SIZE.name(), 65_536))
            .addAttributes(num(EvidenceAttributes.PRODUCER_BUFFER_MEMORY.name(), -5))
            .addAttributes(num(SpanAttributes.BATCH_RECORD_COUNT.name(), 7))
            .addAttributes(num(SpanAttributes.BATCH_SIZE_BYTES.name(), 900))
            .addAttributes(num(SpanAttributes.PRODUCER_ATTEMPTS.name(), 2))
            .addAttributes(str(SpanAttributes.PRODUCER_RETRY_ERROR.name(), "NOT_ENOUGH_REPLICAS"))
            .addAttributes(num(EvidenceAttributes.PRODUCER_APPEND_WAIT_NS.name(), 3_000_000))
            .addAttributes(num(EvidenceAttributes.PRODUCER_METADATA_WAIT_MS.name(), 2))
            .addAttributes(num(EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT.name(), 4))
            .addAttributes(num(EvidenceAttributes.PRODUCER_REQUEST_BATCHES.name(), 12))
            .build();
    Span consumer =
        consumerOfOrders42()
            .setTraceId(id(0x0102030405060708L, 0x090a0b0c0d0e0f10L))
            .setSpanId(id(0x22))
            .setParentSpanId(id(0x11))
            .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x77))
            .addAttributes(num(SpanAttributes.CONSUMER_FETCH_MIN_BYTES.name(), 1))
            .addAttributes(num(EvidenceAttributes.CONSUMER_FETCH_MAX_WAIT_MS.name(), 250))
            .addAttributes(num(EvidenceAttributes.CONSUMER_MAX_POLL_RECORDS.name(), 100))
            .addAttributes(num(EvidenceAttributes.CONSUMER_POLL_GAP_NS.name(), 40_000_000))
            .addAttributes(num(EvidenceAttributes.CONSUMER_PREVIOUS_POLL_RECORDS.name(), 12))
            .addAttributes(
                KeyValue.newBuilder()
                    .setKey(SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY.name())
                    .setValue(AnyValue.newBuilder().setBoolValue(true)))
            .addAttributes(num(SpanAttributes.RECORD_UNCOMMITTED_TIME.name(), S + 1_500_000))
            .build();
    Span other = Span.newBuilder().setName("GET /").setKind(Span.SpanKind.SPAN_KIND_SERVER).build();
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x55)))
                .addScopeSpans(
                    ScopeSpans.newBuilder().addSpans(producer).addSpans(consumer).addSpans(other)))
        .build()
        .toByteArray();
  }

  /** An export request of one span without a resource. */
  private static byte[] requestOf(Span span) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder().addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
        .build()
        .toByteArray();
  }

  /** A consumer span of group "billing" that read orders-3 offset 42, F, R and P set. */
  private static Span.Builder consumerOfOrders42() {
    return Span.newBuilder()
        .setKind(Span.SpanKind.SPAN_KIND_CONSUMER)
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), 3))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), 42))
        .addAttributes(str(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), "billing"))
        .addAttributes(num(SpanAttributes.FETCH_REQUEST_TIME.name(), S + 2_000_000))
        .addAttributes(num(SpanAttributes.FETCH_RESPONSE_TIME.name(), S + 12_000_000))
        .addAttributes(num(SpanAttributes.POLL_TIME.name(), S + 15_000_000));
  }

  // The decoder reuses one span object: map each as it comes, as the collector does.
  static List<SpanMapper.Result> decodeAndMap(byte[] body) throws MalformedException {
    List<SpanMapper.Result> out = new ArrayList<>();
    OtlpProtobuf.decodeTraces(body, body.length, span -> out.add(SpanMapper.map(span)));
    return out;
  }

  @Test
  void protobufSpansMapToJoinInputs() throws Exception {
    byte[] body = producerAndConsumerRequest();
    List<SpanMapper.Result> spans = decodeAndMap(body);
    assertThat(spans).hasSize(3);

    ProducerSpan p = spans.get(0).producer();
    assertThat(p.key().topic()).isEqualTo("orders");
    assertThat(p.key().partition()).isEqualTo(3);
    assertThat(p.key().offset()).isEqualTo(42);
    assertThat(p.traceIdHigh()).isEqualTo(0x0102030405060708L);
    assertThat(p.traceIdLow()).isEqualTo(0x090a0b0c0d0e0f10L);
    assertThat(p.spanId()).isEqualTo(0x11);
    assertThat(p.instanceId()).isEqualTo(0x55); // from the resource
    assertThat(p.drainNanos()).isEqualTo(S + 1_000_000);
    assertThat(p.logAppendTimeMs()).isEqualTo(S / 1_000_000 + 4);
    assertThat(p.leaderNodeId()).isEqualTo(2);
    // The settings and batch figures the diagnosis weighs; a negative value reads as unknown, and
    // max.in.flight was not sent; the metadata wait arrives in milliseconds.
    assertThat(p.evidence())
        .isEqualTo(
            new ProducerEvidence(
                20,
                65_536,
                -1,
                -1,
                7,
                900,
                2,
                3_000_000,
                4,
                12,
                true,
                2_000_000,
                "NOT_ENOUGH_REPLICAS"));

    ConsumerSpan c = spans.get(1).consumer();
    assertThat(c.group()).isEqualTo("billing");
    assertThat(c.key()).isEqualTo(p.key());
    assertThat(c.parentSpanId()).isEqualTo(0x11);
    assertThat(c.instanceId()).isEqualTo(0x77); // the span's own wins
    assertThat(c.pollNanos()).isEqualTo(S + 15_000_000);
    assertThat(c.evidence()).isEqualTo(new ConsumerEvidence(1, 250, 100, 40_000_000, 12, -1));
    assertThat(c.responseReadPromptly()).isTrue();
    assertThat(c.uncommittedNanos()).isEqualTo(S + 1_500_000);

    assertThat(spans.get(2)).isSameAs(SpanMapper.Result.IGNORED);
  }

  @Test
  void aFetchMinBytesAbsentOrOutOfRangeIsUnknown() throws Exception {
    for (Long bytes : new Long[] {Long.MIN_VALUE, -5L, 1L << 31, null}) {
      Span.Builder consumer = consumerOfOrders42();
      if (bytes != null) {
        consumer.addAttributes(num(SpanAttributes.CONSUMER_FETCH_MIN_BYTES.name(), bytes));
      }
      byte[] body = requestOf(consumer.build());
      assertThat(decodeAndMap(body).get(0).consumer().evidence().fetchMinBytes())
          .as("%s", bytes)
          .isEqualTo(-1);
    }
  }

  @Test
  void anUncommittedTimeAbsentOrOutOfRangeIsDroppedAndTheSpanKept() throws Exception {
    for (Long nanos : new Long[] {-1L, 0L, Long.MAX_VALUE, null}) {
      Span.Builder consumer = consumerOfOrders42();
      if (nanos != null) {
        consumer.addAttributes(num(SpanAttributes.RECORD_UNCOMMITTED_TIME.name(), nanos));
      }
      ConsumerSpan c = decodeAndMap(requestOf(consumer.build())).get(0).consumer();
      assertThat(c).as("%s", nanos).isNotNull();
      assertThat(c.uncommittedNanos()).as("%s", nanos).isZero();
    }
  }

  @Test
  void aKlatSpanMissingTheGroupIsRejectedWithTheReason() throws Exception {
    Span consumer =
        Span.newBuilder()
            .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
            .addAttributes(num(SpanAttributes.POLL_TIME.name(), S))
            .build();
    byte[] body = requestOf(consumer);
    assertThat(decodeAndMap(body).get(0).rejected()).contains("messaging.consumer.group.name");
  }

  @Test
  void jsonSpansDecodeLikeProtobuf() throws Exception {
    String json =
        """
        {"resourceSpans":[{"resource":{"attributes":[{"key":"klat.instance.id","value":{"intValue":"85"}}]},
         "scopeSpans":[{"scope":{"name":"x"},"spans":[{
           "traceId":"0102030405060708090A0B0C0D0E0F10","spanId":"0000000000000011","parentSpanId":"",
           "name":"send orders","kind":4,"startTimeUnixNano":"1800000000000000000",
           "endTimeUnixNano":1800000000009000000,
           "attributes":[
             {"key":"messaging.destination.name","value":{"stringValue":"orders"}},
             {"key":"messaging.destination.partition.id","value":{"stringValue":"3"}},
             {"key":"messaging.kafka.offset","value":{"intValue":"42"}},
             {"key":"klat.send.time_unix_nano","value":{"intValue":"1800000000000000000"}},
             {"key":"klat.drain.time_unix_nano","value":{"intValue":1800000000001000000}},
             {"key":"flag","value":{"boolValue":true}},
             {"key":"ratio","value":{"doubleValue":0.5}},
             {"key":"list","value":{"arrayValue":{"values":[]}}}]}]}]}]}
        """;
    List<SpanMapper.Result> spans = new java.util.ArrayList<>();
    long[] endNanos = new long[1];
    byte[] bytes = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    OtlpJson.decodeTraces(
        bytes,
        bytes.length,
        span -> {
          spans.add(SpanMapper.map(span));
          endNanos[0] = span.endNanos;
        });
    ProducerSpan p = spans.get(0).producer();
    assertThat(p.traceIdHigh()).isEqualTo(0x0102030405060708L);
    assertThat(p.spanId()).isEqualTo(0x11);
    assertThat(p.instanceId()).isEqualTo(85);
    assertThat(p.key().offset()).isEqualTo(42);
    assertThat(p.drainNanos()).isEqualTo(S + 1_000_000);
    assertThat(p.ackNanos()).isEqualTo(Long.MIN_VALUE);
    assertThat(endNanos[0]).isEqualTo(S + 9_000_000);
  }

  @Test
  void protobufHistogramsDecodeWithPackedCountsAndBounds() throws Exception {
    HistogramDataPoint point =
        HistogramDataPoint.newBuilder()
            .addAttributes(str("topic", "orders"))
            .setStartTimeUnixNano(5)
            .setTimeUnixNano(9)
            .setCount(6)
            .setSum(1.5)
            .addAllExplicitBounds(List.of(0.1, 1.0))
            .addAllBucketCounts(List.of(1L, 2L, 3L))
            .build();
    byte[] body =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("klat.e2e.latency")
                                    .setHistogram(
                                        Histogram.newBuilder()
                                            .setAggregationTemporality(
                                                AggregationTemporality
                                                    .AGGREGATION_TEMPORALITY_CUMULATIVE)
                                            .addDataPoints(point)))))
            .build()
            .toByteArray();
    OtlpMetricPoint p = OtlpMetricsProtobuf.decodeMetrics(body, body.length).get(0);
    assertThat(p.name).isEqualTo("klat.e2e.latency");
    assertThat(p.type).isEqualTo(OtlpMetricPoint.Type.HISTOGRAM);
    assertThat(p.temporality).isEqualTo(OtlpMetricPoint.TEMPORALITY_CUMULATIVE);
    assertThat(p.bounds).containsExactly(0.1, 1.0);
    assertThat(p.bucketCounts).containsExactly(1, 2, 3);
    assertThat(p.attributes).containsEntry("topic", "orders");
    assertThat(p.startNanos).isEqualTo(5);
    assertThat(p.sum).isEqualTo(1.5);
  }

  @Test
  void truncatedAndGarbageBodiesAreMalformedNeverACrash() {
    byte[] body = producerAndConsumerRequest();
    for (int cut = 1; cut < body.length; cut += 7) {
      byte[] truncated = java.util.Arrays.copyOf(body, cut);
      try {
        OtlpProtobuf.decodeTraces(truncated, truncated.length, span -> {});
      } catch (MalformedException expected) {
        // the only allowed failure
      }
    }
    Random random = new Random(1);
    for (int i = 0; i < 2000; i++) {
      byte[] garbage = new byte[random.nextInt(200)];
      random.nextBytes(garbage);
      try {
        OtlpProtobuf.decodeTraces(garbage, garbage.length, span -> {});
        OtlpMetricsProtobuf.decodeMetrics(garbage, garbage.length);
      } catch (MalformedException expected) {
        // fine
      }
      try {
        OtlpJson.decodeTraces(garbage, garbage.length, span -> {});
      } catch (MalformedException expected) {
        // fine
      }
    }
    assertThatThrownBy(() -> OtlpProtobuf.decodeTraces(new byte[] {0x0a, 0x7f}, 2, span -> {}))
        .isInstanceOf(MalformedException.class);
    assertThatThrownBy(() -> json("{\"resourceSpans\": 3}")).isInstanceOf(MalformedException.class);
    assertThatThrownBy(() -> json("[".repeat(10_000))).isInstanceOf(MalformedException.class);
  }

  private static void json(String body) throws MalformedException {
    byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    OtlpJson.decodeTraces(bytes, bytes.length, span -> {});
  }
}

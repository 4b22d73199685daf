package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpDecodingTest.S;
import static dev.klat.collector.receive.OtlpDecodingTest.decodeAndMap;
import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The protobuf span decoder that fills {@link KlatAttributes}, on good and on hostile input. */
class SpanDecodingTest {

  private static Span.Builder producer(long offset) {
    return Span.newBuilder()
        .setTraceId(id(1, offset))
        .setSpanId(id(offset))
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "3"))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
        .addAttributes(num(SpanAttributes.SEND_TIME.name(), S))
        .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), S + 1_000_000));
  }

  private static byte[] request(Resource resource, Span.Builder... spans) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (Span.Builder s : spans) {
      scope.addSpans(s);
    }
    ResourceSpans.Builder rs = ResourceSpans.newBuilder().addScopeSpans(scope);
    if (resource != null) {
      rs.setResource(resource);
    }
    return ExportTraceServiceRequest.newBuilder().addResourceSpans(rs).build().toByteArray();
  }

  private static KeyValue dbl(String k, double v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setDoubleValue(v))
        .build();
  }

  // --- hand-made wire bytes for the malformed cases

  private static byte[] varint(long v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
    return out.toByteArray();
  }

  private static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static byte[] tag(int field, int wire) {
    return varint((long) field << 3 | wire);
  }

  private static byte[] field(int field, byte[] payload) {
    return cat(tag(field, 2), varint(payload.length), payload);
  }

  // request { resource_spans { scope_spans { span { <span> } } } }
  private static byte[] wrapSpan(byte[] span) {
    return field(1, field(2, field(2, span)));
  }

  // span { attributes { key; value { <anyValue> } } }
  private static byte[] attribute(String key, byte[] anyValue) {
    return field(9, cat(field(1, key.getBytes(StandardCharsets.UTF_8)), field(2, anyValue)));
  }

  private static void assertMalformed(byte[] body, String message) {
    assertThatThrownBy(() -> OtlpProtobuf.decodeTraces(body, body.length, span -> {}))
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining(message);
  }

  @Test
  void varintsOfEveryLengthDecodeNearTheEndOfTheBufferAndFarFromIt() throws Exception {
    List<Long> values =
        new ArrayList<>(List.of(0L, 1L, 300L, S, Long.MAX_VALUE, -1L, Long.MIN_VALUE));
    for (int bits = 7; bits < 64; bits += 7) {
      // The largest value of each length, the smallest of the next, and one with every group set.
      values.add((1L << bits) - 1);
      values.add(1L << bits);
      values.add(0x5555_5555_5555_5555L & ((1L << bits) - 1));
    }
    for (long v : values) {
      byte[] encoded = varint(v);
      // Alone (the bounded path) and followed by padding (the path that checks no bound per byte).
      ProtoReader alone = new ProtoReader(encoded, encoded.length);
      assertThat(alone.varint()).isEqualTo(v);
      assertThat(alone.hasMore()).isFalse();
      byte[] padded = cat(encoded, new byte[12]);
      ProtoReader far = new ProtoReader(padded, padded.length);
      assertThat(far.varint()).isEqualTo(v);
      assertThat(far.position()).isEqualTo(encoded.length);
    }
  }

  @Test
  void truncatedAndOverlongVarintsAreMalformed() {
    byte[] truncated = {(byte) 0x80, (byte) 0x80};
    assertThatThrownBy(() -> new ProtoReader(truncated, truncated.length).varint())
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("truncated varint");
    byte[] overlong = new byte[16];
    java.util.Arrays.fill(overlong, (byte) 0xff);
    assertThatThrownBy(() -> new ProtoReader(overlong, overlong.length).varint())
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("longer than 10 bytes");
    assertThatThrownBy(() -> new ProtoReader(overlong, 11).varint())
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("longer than 10 bytes");
    // A varint that runs past the enclosing message's end, though the buffer goes on.
    byte[] span = attribute("x", cat(tag(3, 0), new byte[] {(byte) 0x80}));
    assertMalformed(cat(wrapSpan(span), new byte[12]), "truncated varint");
    // The same, as the int value of a key klat reads.
    byte[] known =
        attribute(
            SpanAttributes.SEND_TIME.name(),
            cat(tag(3, 0), new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80}));
    assertMalformed(wrapSpan(known), "truncated varint");
  }

  @Test
  void wrongWireTypesAreMalformedWhetherOrNotKlatReadsTheKey() {
    // int_value sent as fixed64
    assertMalformed(wrapSpan(attribute("someone.else", cat(tag(3, 1), new byte[8]))), "int_value");
    assertMalformed(
        wrapSpan(attribute(SpanAttributes.SEND_TIME.name(), cat(tag(3, 1), new byte[8]))),
        "int_value");
    // string_value sent as a varint
    assertMalformed(
        wrapSpan(
            attribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), cat(tag(1, 0), varint(5)))),
        "string_value");
    // trace_id as a varint, kind as bytes, the name as a varint
    assertMalformed(wrapSpan(cat(tag(1, 0), varint(5))), "trace_id");
    assertMalformed(wrapSpan(field(6, new byte[] {1})), "kind");
    assertMalformed(wrapSpan(cat(tag(5, 0), varint(1))), "name");
    // attributes as a varint
    assertMalformed(wrapSpan(cat(tag(9, 0), varint(1))), "attributes");
    // wire types 3 and 4 (groups) and 6, 7 do not exist here
    assertMalformed(wrapSpan(cat(tag(15, 3))), "wire type");
  }

  @Test
  void lengthsPastTheEndAreMalformed() {
    // A string value whose length runs past its attribute.
    byte[] value = cat(tag(1, 2), varint(50), "orders".getBytes(StandardCharsets.UTF_8));
    assertMalformed(
        wrapSpan(attribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), value)),
        "exceeds the enclosing message");
    // A key whose length runs past the body.
    byte[] key = cat(tag(9, 2), varint(4), tag(1, 2), varint(100), new byte[] {'a'});
    assertMalformed(wrapSpan(key), "exceeds the enclosing message");
    // A length varint that is negative as a long.
    assertMalformed(cat(tag(1, 2), varint(-1), new byte[20]), "exceeds the enclosing message");
    // A span id of the wrong size, and a trace id cut short.
    assertMalformed(wrapSpan(field(2, new byte[7])), "id of 7 bytes, expected 8");
    assertMalformed(wrapSpan(field(1, new byte[8])), "id of 8 bytes, expected 16");
    // Fixed-width fields cut short.
    assertMalformed(wrapSpan(cat(tag(7, 1), new byte[3])), "truncated fixed-width");
  }

  @Test
  void everyCutOfAGoodRequestIsMalformedOrDecodesNeverCrashes() {
    byte[] body = request(null, producer(1), producer(2));
    int malformed = 0;
    for (int cut = 0; cut < body.length; cut++) {
      try {
        OtlpProtobuf.decodeTraces(body, cut, span -> SpanMapper.map(span));
      } catch (MalformedException expected) {
        malformed++;
      }
    }
    assertThat(malformed).isGreaterThan(body.length / 2);
  }

  @Test
  void theLastValueOfAKeyWinsAndValuesKlatDoesNotReadLeaveItAlone() throws Exception {
    Span.Builder span =
        producer(7)
            .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), 9))
            .addAttributes(
                KeyValue.newBuilder()
                    .setKey(SpanAttributes.DRAIN_TIME.name())
                    .setValue(AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder())));
    ProducerSpan p = decodeAndMap(request(null, span)).get(0).producer();
    assertThat(p.key().offset()).isEqualTo(9);
    assertThat(p.drainNanos()).isEqualTo(S + 1_000_000);
  }

  @Test
  void integersMayComeAsStringsOrWholeDoublesAndAnythingPrintsAsAString() throws Exception {
    Span.Builder span =
        producer(7)
            .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), " 4 "))
            .addAttributes(dbl(SpanAttributes.LEADER_NODE_ID.name(), 2.0))
            .addAttributes(num(SpanAttributes.MESSAGING_CLIENT_ID.name(), 42))
            .addAttributes(num(SpanAttributes.PRODUCER_ACKS.name(), -1));
    ProducerSpan p = decodeAndMap(request(null, span)).get(0).producer();
    assertThat(p.key().partition()).isEqualTo(4);
    assertThat(p.leaderNodeId()).isEqualTo(2);
    assertThat(p.clientId()).isEqualTo("42");
    assertThat(p.acksAll()).isTrue();

    Span.Builder fraction =
        producer(8).addAttributes(dbl(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), 2.5));
    assertThat(decodeAndMap(request(null, fraction)).get(0).rejected())
        .isEqualTo(SpanAttributes.MESSAGING_KAFKA_OFFSET.name() + " is not an integer");
    Span.Builder word =
        producer(8).addAttributes(str(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), "12x"));
    assertThat(decodeAndMap(request(null, word)).get(0).rejected())
        .isEqualTo(SpanAttributes.MESSAGING_KAFKA_OFFSET.name() + " is not an integer");
    Span.Builder huge =
        producer(8)
            .addAttributes(
                str(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), "99999999999999999999"));
    assertThat(decodeAndMap(request(null, huge)).get(0).rejected()).contains("is not an integer");
  }

  @Test
  void oneSpanLeavesNothingBehindForTheNext() throws Exception {
    Span.Builder failed =
        producer(1)
            .addAttributes(str(SpanAttributes.ERROR_TYPE.name(), "TimeoutException"))
            .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x66));
    List<SpanMapper.Result> results = decodeAndMap(request(null, failed, producer(2)));
    assertThat(results.get(0)).isSameAs(SpanMapper.Result.NOT_JOINABLE);
    assertThat(results.get(1).producer().instanceId()).isZero();
    assertThat(results.get(1).producer().traceIdLow()).isEqualTo(2);
  }

  @Test
  void repeatedStringsShareOneInstanceAndDifferentOnesStayApart() throws Exception {
    Span.Builder other =
        producer(3).addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "ordersX"));
    Span.Builder sameLength =
        producer(4).addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orderz"));
    List<SpanMapper.Result> r =
        decodeAndMap(request(null, producer(1), producer(2), other, sameLength, producer(5)));
    assertThat(r.get(0).producer().key().topic()).isEqualTo("orders");
    assertThat(r.get(1).producer().key().topic()).isSameAs(r.get(0).producer().key().topic());
    assertThat(r.get(2).producer().key().topic()).isEqualTo("ordersX");
    assertThat(r.get(3).producer().key().topic()).isEqualTo("orderz");
    assertThat(r.get(4).producer().key().topic()).isEqualTo("orders");
  }

  @Test
  void aResourceAfterItsScopesStillGivesEverySpanItsInstance() throws Exception {
    byte[] resource =
        Resource.newBuilder()
            .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x55))
            .build()
            .toByteArray();
    byte[] scope = ScopeSpans.newBuilder().addSpans(producer(1)).build().toByteArray();
    // resource_spans { scope_spans; resource } with the resource last on the wire
    byte[] body = field(1, cat(field(2, scope), field(1, resource)));
    List<SpanMapper.Result> r = decodeAndMap(body);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).producer().instanceId()).isEqualTo(0x55);
  }

  private static Correlator correlator() {
    return new Correlator(
        new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
        () -> 0L,
        BrokerInstants.logAppendTime(),
        joined -> {});
  }

  @Test
  void aBodyMalformedAfterGoodSpansReachesTheJoinNotAtAll() {
    Correlator correlator = correlator();
    OtlpIngest ingest = new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE));
    byte[] good = request(null, producer(1), producer(2));
    byte[] body = cat(good, wrapSpan(cat(tag(3, 0), new byte[] {(byte) 0x80})));
    assertThatThrownBy(() -> ingest.traces(body, body.length, false))
        .isInstanceOf(MalformedException.class);
    assertThat(correlator.stats().producerSpans()).isZero();
    assertThat(ingest.stats().spansReceived.get()).isZero();
  }

  @Test
  void theBodyIsReadOnlyUpToTheGivenLength() throws Exception {
    Correlator correlator = correlator();
    OtlpIngest ingest = new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE));
    byte[] good = request(null, producer(1));
    // Garbage after the length, as in a buffer read with room to spare.
    byte[] buffer = cat(good, new byte[] {(byte) 0xff, (byte) 0xff, 0x07});
    assertThat(ingest.traces(buffer, good.length, false)).isEmpty();
    assertThat(correlator.stats().producerSpans()).isEqualTo(1);
  }
}

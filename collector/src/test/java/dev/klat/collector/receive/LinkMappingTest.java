package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.RecordLink;
import dev.klat.collector.correlate.join.RecordLinks;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SpanMapper} reads what a pipeline's output record was produced from (section 9 of the
 * latency model): the {@code klat.link.*} attributes and the OTLP span links, bounded and checked.
 */
class LinkMappingTest {
  private static final long S = 1_800_000_000_123_000_000L;
  private static final long MS = 1_000_000L;

  private static Span.Builder output() {
    return Span.newBuilder()
        .setTraceId(id(0x0aL, 0x0bL))
        .setSpanId(id(0x77))
        .setParentSpanId(id(0x66))
        .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders-enriched"))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), 1))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), 9))
        .addAttributes(num(SpanAttributes.SEND_TIME.name(), S))
        .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), S + 2 * MS));
  }

  private static Span.Builder firstLink(Span.Builder span, String topic, long offset) {
    return span.addAttributes(str(SpanAttributes.LINK_TOPIC.name(), topic))
        .addAttributes(num(SpanAttributes.LINK_PARTITION.name(), 0))
        .addAttributes(num(SpanAttributes.LINK_OFFSET.name(), offset))
        .addAttributes(str(SpanAttributes.LINK_GROUP.name(), "enricher"));
  }

  private static Span.Link spanLink(long traceLow, long spanId, String topic, long offset) {
    return Span.Link.newBuilder()
        .setTraceId(id(0x0cL, traceLow))
        .setSpanId(id(spanId))
        .setTraceState("k=v")
        .addAttributes(str(SpanAttributes.LINK_TOPIC.name(), topic))
        .addAttributes(num(SpanAttributes.LINK_PARTITION.name(), 2))
        .addAttributes(num(SpanAttributes.LINK_OFFSET.name(), offset))
        .build();
  }

  private static ProducerSpan map(Span.Builder span) throws MalformedException {
    List<SpanMapper.Result> out =
        OtlpDecodingTest.decodeAndMap(TailOtlpSpans.request(0x55, span.build()));
    assertThat(out).hasSize(1);
    assertThat(out.get(0).rejected()).isNull();
    return out.get(0).producer();
  }

  @Test
  void theFirstInputComesFromTheAttributesAndTheOthersFromSpanLinks() throws Exception {
    ProducerSpan p =
        map(
            firstLink(output(), "orders", 41)
                .addAttributes(num(SpanAttributes.LINK_COUNT.name(), 3))
                .addLinks(spanLink(1, 0x21, "orders", 43))
                .addLinks(spanLink(2, 0x22, "orders", 44)));

    assertThat(p.parentSpanId()).isEqualTo(0x66);
    RecordLinks links = p.links();
    assertThat(links.count()).isEqualTo(3);
    assertThat(links.notRead()).isZero();
    assertThat(links.links())
        .containsExactly(
            // The first continues the output's trace; its consumer span is the output's parent.
            new RecordLink(new RecordKey("orders", 0, 41), "enricher", 0x0a, 0x0b, 0x66),
            new RecordLink(new RecordKey("orders", 2, 43), null, 0x0c, 1, 0x21),
            new RecordLink(new RecordKey("orders", 2, 44), null, 0x0c, 2, 0x22));
  }

  @Test
  void atMostSixteenLinksAreReadAndTheRestCounted() throws Exception {
    Span.Builder span = firstLink(output(), "orders", 1);
    for (int i = 0; i < 20; i++) {
      span.addLinks(spanLink(i, 0x100 + i, "orders", 100 + i));
    }
    RecordLinks links = map(span).links();

    assertThat(links.links()).hasSize(RecordLinks.MAX_LINKS);
    assertThat(links.notRead()).isEqualTo(21 - RecordLinks.MAX_LINKS);
    assertThat(links.count()).as("no klat.link.count: the links read").isEqualTo(16);
  }

  @Test
  void aBadLinkIsNotReadButTheSpanIsKept() throws Exception {
    Span.Builder span =
        output()
            .addAttributes(str(SpanAttributes.LINK_TOPIC.name(), "bad topic!"))
            .addAttributes(num(SpanAttributes.LINK_PARTITION.name(), 0))
            .addAttributes(num(SpanAttributes.LINK_OFFSET.name(), 1))
            .addAttributes(num(SpanAttributes.LINK_COUNT.name(), -4))
            .addLinks(spanLink(1, 0x21, "orders", 43))
            // no offset
            .addLinks(
                Span.Link.newBuilder()
                    .addAttributes(str(SpanAttributes.LINK_TOPIC.name(), "orders"))
                    .addAttributes(num(SpanAttributes.LINK_PARTITION.name(), 0))
                    .build())
            // a group longer than any name kept
            .addLinks(
                spanLink(3, 0x23, "orders", 45).toBuilder()
                    .addAttributes(str(SpanAttributes.LINK_GROUP.name(), "g".repeat(256)))
                    .build())
            // not a klat link at all
            .addLinks(Span.Link.newBuilder().setSpanId(id(0x99)).build());
    ProducerSpan p = map(span);

    assertThat(p.links().links())
        .containsExactly(new RecordLink(new RecordKey("orders", 2, 43), null, 0x0c, 1, 0x21));
    assertThat(p.links().notRead()).isEqualTo(4);
    assertThat(p.links().count()).isEqualTo(1);
  }

  @Test
  void aSpanWithoutLinksHasNoneAndKeepsItsParent() throws Exception {
    ProducerSpan p = map(output());

    assertThat(p.links()).isNull();
    assertThat(p.parentSpanId()).isEqualTo(0x66);
  }

  @Test
  void jsonSpansCarryTheirLinksToo() throws Exception {
    String json =
        """
        {"resourceSpans":[{"scopeSpans":[{"spans":[{
          "traceId":"000000000000000a000000000000000b","spanId":"0000000000000077",
          "parentSpanId":"0000000000000066","kind":4,
          "attributes":[
           {"key":"messaging.destination.name","value":{"stringValue":"orders-enriched"}},
           {"key":"messaging.destination.partition.id","value":{"stringValue":"1"}},
           {"key":"messaging.kafka.offset","value":{"intValue":"9"}},
           {"key":"klat.send.time_unix_nano","value":{"intValue":"1800000000123000000"}},
           {"key":"klat.drain.time_unix_nano","value":{"intValue":"1800000000125000000"}},
           {"key":"klat.link.topic","value":{"stringValue":"orders"}},
           {"key":"klat.link.partition","value":{"intValue":"0"}},
           {"key":"klat.link.offset","value":{"intValue":"41"}},
           {"key":"klat.link.count","value":{"intValue":"2"}}],
          "links":[{"traceId":"000000000000000c0000000000000001","spanId":"0000000000000021",
            "traceState":"","flags":1,"attributes":[
             {"key":"klat.link.topic","value":{"stringValue":"orders"}},
             {"key":"klat.link.partition","value":{"intValue":"2"}},
             {"key":"klat.link.offset","value":{"intValue":"43"}},
             {"key":"klat.link.group","value":{"stringValue":"enricher"}}]}]}]}]}]}
        """;
    List<ProducerSpan> spans = new ArrayList<>();
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    OtlpJson.decodeTraces(bytes, bytes.length, span -> spans.add(SpanMapper.map(span).producer()));

    assertThat(spans.get(0).links().links())
        .containsExactly(
            new RecordLink(new RecordKey("orders", 0, 41), null, 0x0a, 0x0b, 0x66),
            new RecordLink(new RecordKey("orders", 2, 43), "enricher", 0x0c, 1, 0x21));
    assertThat(spans.get(0).links().count()).isEqualTo(2);
  }

  @Test
  void malformedLinkIdsAreAMalformedBody() {
    byte[] body =
        TailOtlpSpans.request(
            0x55,
            output()
                .addLinks(
                    Span.Link.newBuilder()
                        .setSpanId(com.google.protobuf.ByteString.copyFrom(new byte[3])))
                .build());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OtlpDecodingTest.decodeAndMap(body))
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("3 bytes");
  }
}

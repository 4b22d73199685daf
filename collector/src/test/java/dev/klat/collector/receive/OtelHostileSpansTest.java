package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtelFixture.MS;
import static dev.klat.collector.receive.OtelFixture.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.OtelRecordSpan;
import dev.klat.collector.correlate.join.ProducerRefs;
import dev.klat.collector.correlate.join.RecordKey;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the collector does with instrumentation spans that are wrong or hostile: each is refused
 * with a reason naming what was wrong and counted, and the spans around it are still read.
 */
@Tag("jdk-independent")
class OtelHostileSpansTest {

  private static OtelFixture consumer() {
    return new OtelFixture(
            OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CONSUMER, "process orders")
        .ids(0x090a0b0c0d0e0f10L, 0x22, 0x11)
        .times(S + 50 * MS, S + 51 * MS)
        .attr("messaging.system", "kafka")
        .attr("messaging.destination.name", "orders")
        .attr("messaging.destination.partition.id", "3")
        .attr("messaging.operation.type", "process")
        .attr("messaging.kafka.offset", "42");
  }

  private static SpanMapper.Result refused(OtelFixture f, String reason) throws Exception {
    SpanMapper.Result r = OtelInstrumentationSpansTest.read(f);
    assertThat(r.otelOutcome()).isEqualTo(OtelSpanReader.Outcome.REFUSED);
    assertThat(r.reason()).isEqualTo(reason);
    assertThat(r.otel()).isNull();
    return r;
  }

  @Test
  void aHugeScopeNameIsRefusedWithoutBeingDecoded() throws Exception {
    OtelFixture f = consumer();
    f.scope = "x".repeat(10_000);
    assertThat(refused(f, WireNames.REASON_NAME).rejected())
        .isEqualTo("instrumentation scope name of 10000 bytes (at most 255)");

    // A span that is not Kafka's keeps being ignored, whatever its scope.
    OtelFixture http =
        new OtelFixture("y".repeat(10_000), SpanKind.SPAN_KIND_SERVER, "GET /")
            .attr("http.request.method", "GET");
    assertThat(OtelInstrumentationSpansTest.read(http)).isSameAs(SpanMapper.Result.IGNORED);
  }

  @Test
  void anOffsetThatIsNoIntegerIsRefusedNamingTheAttribute() throws Exception {
    assertThat(
            refused(consumer().attr("messaging.kafka.offset", "4x2"), OtelSpanReader.REASON_VALUE)
                .rejected())
        .isEqualTo("messaging.kafka.offset is not an offset");
    assertThat(
            refused(consumer().attr("messaging.kafka.offset", -5L), OtelSpanReader.REASON_VALUE)
                .rejected())
        .isEqualTo("messaging.kafka.offset is not an offset");
  }

  @Test
  void aNegativeOrHugePartitionIsRefused() throws Exception {
    assertThat(
            refused(
                    consumer().attr("messaging.destination.partition.id", "-1"),
                    OtelSpanReader.REASON_VALUE)
                .rejected())
        .isEqualTo("messaging.destination.partition.id is not a partition number");
    refused(
        consumer().attr("messaging.destination.partition.id", "99999999999"),
        OtelSpanReader.REASON_VALUE);
    refused(
        consumer().attr("messaging.destination.partition.id", "three"),
        OtelSpanReader.REASON_VALUE);
  }

  @Test
  void badNamesAreRefusedAsKlatSpansNamesAre() throws Exception {
    assertThat(
            refused(
                    consumer().attr("messaging.destination.name", "orders/../etc"),
                    WireNames.REASON_TOPIC)
                .rejected())
        .startsWith("topic name with a character Kafka does not allow");
    assertThat(
            refused(
                    consumer().attr("messaging.kafka.consumer.group", "g".repeat(300)),
                    WireNames.REASON_NAME)
                .rejected())
        .isEqualTo("consumer group of 300 characters (at most 255)");
    refused(consumer().attr("messaging.client.id", "c".repeat(256)), WireNames.REASON_NAME);
    // No group attribute and a service name too long for the group made of it.
    refused(consumer().resource("service.name", "s".repeat(300)), WireNames.REASON_NAME);
    refused(consumer().times(-1, S), OtelSpanReader.REASON_VALUE);
    refused(
        consumer().attr("messaging.message.id", "orders.3.42").attr("messaging.kafka.offset", "x"),
        OtelSpanReader.REASON_VALUE);
  }

  @Test
  void aMessageIdThatIsNotTheRecordsIsRefused() throws Exception {
    OtelFixture python =
        new OtelFixture(
                OtelSpanReader.SCOPE_PYTHON_CONFLUENT,
                SpanKind.SPAN_KIND_CONSUMER,
                "orders process")
            .attr("messaging.system", "kafka")
            .attr("messaging.destination", "orders")
            .attr("messaging.kafka.partition", 3L)
            .attr("messaging.operation", "process");
    for (String id : List.of("orders.4.42", "other.3.42", "orders.3.x", "42", "orders..42")) {
      refused(python.attr("messaging.message.id", id), OtelSpanReader.REASON_VALUE);
    }
    // A topic with dots: the partition and offset are the last two fields.
    OtelFixture dotted =
        python
            .attr("messaging.destination", "eu.orders")
            .attr("messaging.message.id", "eu.orders.3.42");
    assertThat(OtelInstrumentationSpansTest.read(dotted).otel().key())
        .isEqualTo(new RecordKey("eu.orders", 3, 42));
  }

  @Test
  void theIngestCountsEachOutcomeRefusesTheBadSpanAndKeepsTheRest() throws Exception {
    OtelFixture good = consumer();
    OtelFixture garbage = consumer().attr("messaging.kafka.offset", "garbage");
    garbage.spanId = 0x23;
    OtelFixture huge = consumer();
    huge.scope = "z".repeat(1_000);
    OtelFixture batch =
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CLIENT, "poll orders")
            .attr("messaging.system", "kafka")
            .attr("messaging.operation.type", "receive")
            .attr("messaging.batch.message_count", 3L);
    OtelFixture http = new OtelFixture("io.opentelemetry.http", SpanKind.SPAN_KIND_SERVER, "GET /");
    OtelFixture producer =
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_PRODUCER, "send orders")
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders");
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    for (OtelFixture f : List.of(garbage, good, huge, batch, http, producer)) {
      request.addResourceSpans(f.resourceSpans());
    }
    byte[] body = request.build().toByteArray();
    OtlpIngest ingest = ingest();

    ExportTraceServiceResponse response =
        ExportTraceServiceResponse.parseFrom(ingest.traces(body, body.length, false));

    assertThat(response.getPartialSuccess().getRejectedSpans()).isEqualTo(2);
    assertThat(response.getPartialSuccess().getErrorMessage())
        .isEqualTo("messaging.kafka.offset is not an offset");
    Map<String, Long> outcomes = ingest.stats().otelSpans();
    assertThat(outcomes)
        .containsExactly(
            Map.entry("producer", 1L),
            Map.entry("consumer", 1L),
            Map.entry("batch", 1L),
            Map.entry("unplaceable", 0L),
            Map.entry("failed", 0L),
            Map.entry("other", 0L),
            Map.entry("refused", 2L),
            Map.entry("not-kafka", 1L));
    assertThat(ingest.stats().spansNotKlat()).isEqualTo(1);
    assertThat(ingest.stats().spansRejectedByReason())
        .containsEntry(OtelSpanReader.REASON_VALUE, 1L)
        .containsEntry(WireNames.REASON_NAME, 1L);

    // The same through OTLP/JSON: each fixture's body on its own.
    OtlpIngest jsonIngest = ingest();
    for (OtelFixture f : List.of(garbage, good, huge, batch, http, producer)) {
      byte[] json = f.json();
      jsonIngest.traces(json, json.length, true);
    }
    assertThat(jsonIngest.stats().otelSpans()).isEqualTo(outcomes);
  }

  @Test
  void scopeAfterItsSpansOnTheWireStillNamesThem() throws Exception {
    OtelFixture f = consumer();
    // OTLP/JSON with "spans" before "scope", inside a resourceSpans whose resource comes last.
    StringBuilder span = new StringBuilder();
    f.spanJson(span);
    String json =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
            + span
            + "],\"scope\":{\"name\":\"@opentelemetry/instrumentation-kafkajs\"}}],"
            + "\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":"
            + "\"orders-app\"}}]}}]}";
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    List<SpanMapper.Result> results = OtelInstrumentationSpansTest.decode(body, true);
    assertThat(results).hasSize(1);
    OtelRecordSpan read = results.get(0).otel();
    assertThat(read.instrumentation()).isEqualTo(OtelSpanReader.SCOPE_KAFKAJS);
    assertThat(read.group()).isEqualTo("service:orders-app");

    // OTLP/protobuf with the scope field after the spans (generated encoders write it first).
    ResourceSpans rs = f.resourceSpans();
    byte[] scopeLast =
        concat(
            field(2, f.span().toByteArray()),
            field(1, rs.getScopeSpans(0).getScope().toByteArray()));
    byte[] request =
        field(1, concat(field(1, rs.getResource().toByteArray()), field(2, scopeLast)));
    List<SpanMapper.Result> fromProto = OtelInstrumentationSpansTest.decode(request, false);
    assertThat(fromProto).hasSize(1);
    assertThat(fromProto.get(0).otel().instrumentation()).isEqualTo(OtelSpanReader.SCOPE_KAFKAJS);
    assertThat(fromProto.get(0).otel().key()).isEqualTo(read.key());
  }

  private static byte[] field(int number, byte[] message) {
    com.google.protobuf.ByteString.Output out = com.google.protobuf.ByteString.newOutput();
    try {
      com.google.protobuf.CodedOutputStream c =
          com.google.protobuf.CodedOutputStream.newInstance(out);
      c.writeByteArray(number, message);
      c.flush();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    return out.toByteString().toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void theHostIsTheInstanceElseHostAndPidElseTheService() {
    OtelSpanReader.Host instance =
        OtelSpanReader.hostOf(
            Map.of("service.instance.id", "7f9c", "host.name", "node-7", "service.name", "a"));
    OtelSpanReader.Host otherInstance =
        OtelSpanReader.hostOf(
            Map.of("service.instance.id", "8a0d", "host.name", "node-7", "service.name", "a"));
    OtelSpanReader.Host hostPid =
        OtelSpanReader.hostOf(Map.of("host.name", "node-7", "process.pid", 42L));
    OtelSpanReader.Host otherPid =
        OtelSpanReader.hostOf(Map.of("host.name", "node-7", "process.pid", 43L));
    OtelSpanReader.Host service = OtelSpanReader.hostOf(Map.of("service.name", "billing"));
    OtelSpanReader.Host nothing = OtelSpanReader.hostOf(Map.of());

    assertThat(instance.id()).isNotEqualTo(otherInstance.id());
    assertThat(hostPid.id()).isNotEqualTo(otherPid.id());
    assertThat(instance.name()).isEqualTo("node-7");
    assertThat(service.name()).isEqualTo("billing");
    assertThat(service.fallbackGroup()).isEqualTo("service:billing");
    assertThat(nothing.fallbackGroup()).isEqualTo("service:unknown_service");
    assertThat(nothing.id()).isNotZero();
    assertThat(OtelSpanReader.hostOf(Map.of("service.name", "billing")).id())
        .isEqualTo(service.id());
    assertThat(OtelSpanReader.hostOf(Map.of("host.name", "h".repeat(400))).name()).hasSize(255);
  }

  @Test
  void theRecordSpanChecksWhatTheJoinReliesOn() {
    RecordKey key = new RecordKey("orders", 3, 42);
    assertThatThrownBy(() -> span(OtelRecordSpan.Role.CONSUMER, null, "g", S, Long.MIN_VALUE))
        .hasMessage("a consumer span without its record");
    assertThatThrownBy(() -> span(OtelRecordSpan.Role.CONSUMER, key, null, S, Long.MIN_VALUE))
        .hasMessage("a consumer span without a group");
    assertThatThrownBy(() -> span(OtelRecordSpan.Role.PRODUCER, key, "g", S, Long.MIN_VALUE))
        .hasMessage("a producer span's group");
    assertThatThrownBy(() -> span(OtelRecordSpan.Role.PRODUCER, key, null, S, S - 1))
        .hasMessageContaining("before the send");
    assertThatThrownBy(() -> span(OtelRecordSpan.Role.CONSUMER, key, "g", S, S + 1))
        .hasMessage("a consumer span's acknowledgement");
    assertThatThrownBy(
            () ->
                span(
                    OtelRecordSpan.Role.PRODUCER,
                    new RecordKey("other", 3, 42),
                    null,
                    S,
                    Long.MIN_VALUE))
        .hasMessageContaining("does not name a record of orders");
    assertThat(span(OtelRecordSpan.Role.PRODUCER, null, null, S, S + 5).hasAck()).isTrue();
  }

  private static OtelRecordSpan span(
      OtelRecordSpan.Role role, RecordKey key, String group, long start, long ack) {
    return new OtelRecordSpan(
        role,
        key,
        "orders",
        group,
        "",
        1,
        2,
        3,
        0,
        start,
        ack,
        ProducerRefs.EMPTY,
        77,
        "node-7",
        OtelSpanReader.SCOPE_KAFKAJS);
  }

  private static OtlpIngest ingest() {
    return new OtlpIngest(
        new Correlator(
            new Correlator.Settings(10_000_000_000L, 1000, 60_000_000_000L, 100),
            System::nanoTime,
            BrokerInstants.logAppendTime(),
            b -> {}),
        new AgentMetrics(100, 60_000_000_000L));
  }
}

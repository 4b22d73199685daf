package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtelFixture.MS;
import static dev.klat.collector.receive.OtelFixture.S;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.OtelRecordSpan;
import dev.klat.collector.correlate.join.ProducerRefs;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.AttributeDef;
import dev.klat.model.OtelMessagingAttributes;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Spans shaped exactly as each OpenTelemetry Kafka instrumentation shapes them ({@code
 * docs/clients.md}, "What each instrumentation sends", gives the source each shape was read from),
 * read through OTLP/protobuf and OTLP/JSON alike, become the join's {@link OtelRecordSpan} or the
 * outcome they are counted under.
 */
@Tag("jdk-independent")
class OtelInstrumentationSpansTest {
  private static final long TRACE_HIGH = 0x0102030405060708L;
  private static final long TRACE_LOW = 0x090a0b0c0d0e0f10L;
  private static final long OTHER_TRACE_LOW = 0x7777777777777777L;
  private static final long PRODUCER_SPAN = 0x11;
  private static final RecordKey RECORD = new RecordKey("orders", 3, 42);

  // --- reading ---

  static List<SpanMapper.Result> decode(byte[] body, boolean json) throws MalformedException {
    List<SpanMapper.Result> out = new ArrayList<>();
    if (json) {
      OtlpJson.decodeTraces(body, body.length, span -> out.add(SpanMapper.map(span)));
    } else {
      OtlpProtobuf.decodeTraces(body, body.length, span -> out.add(SpanMapper.map(span)));
    }
    return out;
  }

  /** The span read through both decoders, which must agree. */
  static SpanMapper.Result read(OtelFixture f) throws MalformedException {
    List<SpanMapper.Result> proto = decode(f.protobuf(), false);
    List<SpanMapper.Result> json = decode(f.json(), true);
    assertThat(proto).hasSize(1);
    assertThat(json).as("OTLP/JSON reads as OTLP/protobuf").isEqualTo(proto);
    return proto.get(0);
  }

  private static OtelRecordSpan record(OtelFixture f, OtelSpanReader.Outcome outcome)
      throws MalformedException {
    SpanMapper.Result r = read(f);
    assertThat(r.rejected()).as("refused").isNull();
    assertThat(r.otelOutcome()).isEqualTo(outcome);
    assertThat(r.otel()).isNotNull();
    return r.otel();
  }

  private static void counted(OtelFixture f, OtelSpanReader.Outcome outcome)
      throws MalformedException {
    SpanMapper.Result r = read(f);
    assertThat(r.otelOutcome()).isEqualTo(outcome);
    assertThat(r.otel()).isNull();
    assertThat(r.rejected()).isNull();
  }

  private static OtelFixture producer(String scope, String name) {
    return new OtelFixture(scope, SpanKind.SPAN_KIND_PRODUCER, name)
        .ids(TRACE_LOW, PRODUCER_SPAN, 0)
        .times(S, S + 30 * MS)
        .attr("messaging.system", "kafka");
  }

  // A consumer span whose parent is the producer span (same trace).
  private static OtelFixture childConsumer(String scope, SpanKind kind, String name) {
    return new OtelFixture(scope, kind, name)
        .ids(TRACE_LOW, 0x22, PRODUCER_SPAN)
        .times(S + 50 * MS, S + 51 * MS)
        .attr("messaging.system", "kafka");
  }

  // A consumer span in a trace of its own, with a link to the producer span.
  private static OtelFixture linkedConsumer(String scope, SpanKind kind, String name, long parent) {
    return new OtelFixture(scope, kind, name)
        .ids(OTHER_TRACE_LOW, 0x33, parent)
        .times(S + 50 * MS, S + 51 * MS)
        .attr("messaging.system", "kafka")
        .link(TRACE_HIGH, TRACE_LOW, PRODUCER_SPAN);
  }

  private static void assertProducerRef(ProducerRefs refs, int i, long traceLow, long spanId) {
    assertThat(refs.traceIdHigh(i)).isEqualTo(TRACE_HIGH);
    assertThat(refs.traceIdLow(i)).isEqualTo(traceLow);
    assertThat(refs.spanId(i)).isEqualTo(spanId);
  }

  @Test
  void everyOlderNameIsAKnownKeyWithItsSlot() {
    for (AttributeDef def : OtelMessagingAttributes.all()) {
      byte[] framed = ("xx" + def.name() + "yy").getBytes(StandardCharsets.UTF_8);
      assertThat(KnownKeys.of(framed, 2, framed.length - 4)).isSameAs(def.name());
      int slot = KlatAttributes.slotOfKnownKey(KnownKeys.find(framed, 2, framed.length - 4));
      assertThat(slot).as(def.name()).isNotNegative();
      assertThat(KlatAttributes.name(slot)).isEqualTo(def.name());
    }
  }

  // --- OpenTelemetry Java agent 2.x (io.opentelemetry.kafka-clients-0.11), default conventions ---

  @Test
  void javaAgent2ProducerEndsAtTheAckWithItsPartitionAndOffset() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_AGENT, "orders publish")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish")
                .attr("messaging.client_id", "producer-1")
                .attr("messaging.kafka.message.key", "k")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.kafka.message.offset", 42L),
            OtelSpanReader.Outcome.PRODUCER);

    assertThat(p.role()).isEqualTo(OtelRecordSpan.Role.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.startNanos()).isEqualTo(S);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
    assertThat(p.clientId()).isEqualTo("producer-1");
    assertThat(p.group()).isNull();
    assertThat(p.producers()).isEqualTo(ProducerRefs.EMPTY);
    assertThat(p.instrumentation()).isEqualTo("io.opentelemetry.kafka-clients-0.11");
    assertThat(p.hostName()).isEqualTo("node-7");
    assertThat(p.hostId()).isNotZero();
  }

  @Test
  void javaAgent2ProcessSpanIsTheProducersChildWithReceiveTelemetryOff() throws Exception {
    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders process")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.client_id", "consumer-billing-1")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing")
                .attr("messaging.message.body.size", 120L),
            OtelSpanReader.Outcome.CONSUMER);

    assertThat(c.role()).isEqualTo(OtelRecordSpan.Role.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.group()).isEqualTo("billing");
    assertThat(c.startNanos()).as("P: the process span's start").isEqualTo(S + 50 * MS);
    assertThat(c.ackNanos()).isEqualTo(Long.MIN_VALUE);
    assertThat(c.producers().count()).isEqualTo(1);
    assertProducerRef(c.producers(), 0, TRACE_LOW, PRODUCER_SPAN);
  }

  @Test
  void javaAgent2WithReceiveTelemetryHasABatchReceiveSpanAndLinksTheProcessSpan() throws Exception {
    counted(
        new OtelFixture(
                OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
            .ids(OTHER_TRACE_LOW, 0x30, 0)
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.operation", "receive")
            .attr("messaging.batch.message_count", 5L)
            .attr("messaging.kafka.consumer.group", "billing"),
        OtelSpanReader.Outcome.BATCH);

    OtelRecordSpan c =
        record(
            linkedConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT,
                    SpanKind.SPAN_KIND_CONSUMER,
                    "orders process",
                    0x30)
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing"),
            OtelSpanReader.Outcome.CONSUMER);
    // The parent (the receive span) first, then the link (the producer): the join finds which.
    assertThat(c.producers().count()).isEqualTo(2);
    assertProducerRef(c.producers(), 0, OTHER_TRACE_LOW, 0x30);
    assertProducerRef(c.producers(), 1, TRACE_LOW, PRODUCER_SPAN);
  }

  @Test
  void javaAgent2WithStableConventionsReadsTheCurrentNames() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_AGENT, "send orders")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.name", "send")
                .attr("messaging.operation.type", "send")
                .attr("messaging.client.id", "producer-1")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.kafka.offset", 42L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);

    // Without context propagation the send is a CLIENT span: still the record's producer span.
    OtelFixture client =
        producer(OtelSpanReader.SCOPE_JAVA_AGENT, "send orders")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.operation.type", "send")
            .attr("messaging.destination.partition.id", "3")
            .attr("messaging.kafka.offset", 42L);
    client.kind = SpanKind.SPAN_KIND_CLIENT;
    assertThat(record(client, OtelSpanReader.Outcome.PRODUCER).key()).isEqualTo(RECORD);

    counted(
        new OtelFixture(OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CLIENT, "poll orders")
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.operation.name", "poll")
            .attr("messaging.operation.type", "receive")
            .attr("messaging.consumer.group.name", "billing")
            .attr("messaging.batch.message_count", 5L),
        OtelSpanReader.Outcome.BATCH);

    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "process orders")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.name", "process")
                .attr("messaging.operation.type", "process")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.kafka.offset", 42L)
                .attr("messaging.consumer.group.name", "billing")
                .link(TRACE_HIGH, TRACE_LOW, PRODUCER_SPAN),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.group()).isEqualTo("billing");
    assertThat(c.producers().count()).isEqualTo(2);
  }

  @Test
  void javaLibraryInterceptorProducerSpanWithoutOffsetDoesNotEndAtTheAck() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_LIBRARY, "orders publish")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish"),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.topic()).isEqualTo("orders");
    assertThat(p.ackNanos()).isEqualTo(Long.MIN_VALUE);
  }

  // --- OpenTelemetry Java agent, older names ---

  @Test
  void javaAgent1AndEarly2NamesOfSemanticConventions1_20() throws Exception {
    // v1.30 to v2.2: messaging.kafka.destination.partition on both sides, messaging.client_id.
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_AGENT, "orders publish")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish")
                .attr("messaging.client_id", "producer-1")
                .attr("messaging.kafka.destination.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.clientId()).isEqualTo("producer-1");

    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders process")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.kafka.destination.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
  }

  @Test
  void javaAgent1NamesOfSemanticConventions1_17() throws Exception {
    // v1.24 to v1.29: the consumer's partition under messaging.kafka.source.partition.
    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders process")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.kafka.source.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing")
                .attr("messaging.kafka.client_id", "consumer-billing-1")
                .attr("messaging.consumer.id", "billing - consumer-billing-1"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.clientId()).isEqualTo("consumer-billing-1");
  }

  @Test
  void javaAgent1_21And1_22NamesWithTheOffset() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_AGENT, "orders send")
                .attr("messaging.destination", "orders")
                .attr("messaging.destination_kind", "topic")
                .attr("messaging.kafka.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);

    // v1.23: the current topic name, the consumer's partition by source, still no group.
    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders process")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.kafka.source.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.group()).isEqualTo("service:orders-app");
  }

  @Test
  void javaAgent1NamesUpToSemanticConventions1_16() throws Exception {
    // Up to v1.20: messaging.destination and messaging.kafka.partition; no offset unless the
    // experimental attributes are on (kafka.offset), and no consumer group.
    OtelFixture process =
        childConsumer(
                OtelSpanReader.SCOPE_JAVA_AGENT, SpanKind.SPAN_KIND_CONSUMER, "orders process")
            .attr("messaging.destination", "orders")
            .attr("messaging.destination_kind", "topic")
            .attr("messaging.operation", "process")
            .attr("messaging.kafka.partition", 3L);
    counted(process, OtelSpanReader.Outcome.UNPLACEABLE);

    OtelRecordSpan c = record(process.attr("kafka.offset", 42L), OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.group()).as("no group attribute: the service").isEqualTo("service:orders-app");

    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_JAVA_AGENT, "orders send")
                .attr("messaging.destination", "orders")
                .attr("messaging.destination_kind", "topic")
                .attr("messaging.kafka.partition", 3L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).as("no offset: not known to be the ack").isEqualTo(Long.MIN_VALUE);
  }

  // --- @opentelemetry/instrumentation-kafkajs ---

  @Test
  void kafkajsProducerSpanEndsAtTheAckWithoutOffset() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_KAFKAJS, "send orders")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.name", "send")
                .attr("messaging.operation.type", "send")
                .attr("messaging.kafka.cluster.id", "cluster-1"),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
  }

  @Test
  void kafkajsEachMessageProcessSpanIsTheProducersChildWithAStringOffset() throws Exception {
    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CONSUMER, "process orders")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.type", "process")
                .attr("messaging.operation.name", "process")
                .attr("messaging.kafka.offset", "42"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.group()).isEqualTo("service:orders-app");
    assertThat(c.startNanos()).isEqualTo(S + 50 * MS);
    assertProducerRef(c.producers(), 0, TRACE_LOW, PRODUCER_SPAN);
  }

  @Test
  void kafkajsEachBatchHasAClientPollSpanAndProcessSpansLinkedToTheirProducers() throws Exception {
    counted(
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CLIENT, "poll orders")
            .ids(OTHER_TRACE_LOW, 0x30, 0)
            .attr("messaging.batch.message_count", 2L)
            .attr("messaging.destination.partition.id", "3")
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.operation.type", "receive")
            .attr("messaging.operation.name", "poll"),
        OtelSpanReader.Outcome.BATCH);

    OtelRecordSpan c =
        record(
            linkedConsumer(
                    OtelSpanReader.SCOPE_KAFKAJS,
                    SpanKind.SPAN_KIND_CONSUMER,
                    "process orders",
                    0x30)
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.type", "process")
                .attr("messaging.operation.name", "process")
                .attr("messaging.kafka.offset", "42"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.traceIdLow()).isEqualTo(OTHER_TRACE_LOW);
    assertProducerRef(c.producers(), 0, OTHER_TRACE_LOW, 0x30);
    assertProducerRef(c.producers(), 1, TRACE_LOW, PRODUCER_SPAN);
  }

  @Test
  void kafkajsUpTo0_8WroteNoPartitionNorOffset() throws Exception {
    counted(
        childConsumer(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CONSUMER, "orders")
            .attr("messaging.destination", "orders")
            .attr("messaging.operation", "process"),
        OtelSpanReader.Outcome.UNPLACEABLE);
    counted(
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CONSUMER, "orders")
            .attr("messaging.system", "kafka")
            .attr("messaging.destination", "orders")
            .attr("messaging.operation", "receive"),
        OtelSpanReader.Outcome.BATCH);
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_KAFKAJS, "orders")
                .attr("messaging.destination", "orders"),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
  }

  // --- opentelemetry-python-contrib ---

  @Test
  void confluentKafkaPythonPlacesTheProcessSpanByItsMessageId() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_PYTHON_CONFLUENT, "orders send")
                .attr("messaging.destination", "orders")
                .attr("messaging.destination_kind", "queue")
                .attr("messaging.operation", "publish")
                .attr("server.address", "broker-1")
                .attr("server.port", 9092L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).as("ends when produce() returns").isEqualTo(Long.MIN_VALUE);

    // poll(): a "recv" span without attributes, and the process span as its child, linked.
    counted(
        new OtelFixture(OtelSpanReader.SCOPE_PYTHON_CONFLUENT, SpanKind.SPAN_KIND_CONSUMER, "recv"),
        OtelSpanReader.Outcome.NOT_KAFKA);
    OtelRecordSpan c =
        record(
            linkedConsumer(
                    OtelSpanReader.SCOPE_PYTHON_CONFLUENT,
                    SpanKind.SPAN_KIND_CONSUMER,
                    "orders process",
                    0x30)
                .attr("messaging.destination", "orders")
                .attr("messaging.kafka.partition", 3L)
                .attr("messaging.destination_kind", "queue")
                .attr("messaging.operation", "process")
                .attr("messaging.message.id", "orders.3.42"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.startNanos()).isEqualTo(S + 50 * MS);

    // consume(): one process span for the batch, linked to every record's producer.
    counted(
        linkedConsumer(
                OtelSpanReader.SCOPE_PYTHON_CONFLUENT,
                SpanKind.SPAN_KIND_CONSUMER,
                "orders process",
                0x30)
            .link(TRACE_HIGH, 0x4444, 0x12)
            .attr("messaging.destination", "orders")
            .attr("messaging.destination_kind", "queue")
            .attr("messaging.operation", "process"),
        OtelSpanReader.Outcome.BATCH);
  }

  @Test
  void kafkaPythonWritesNoOffsetSoItsConsumerSpanIsUnplaceable() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_PYTHON_KAFKA, "orders send")
                .attr("messaging.destination", "orders")
                .attr("messaging.kafka.partition", 3L)
                .attr("messaging.url", "[\"broker-1:9092\"]"),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).isEqualTo(Long.MIN_VALUE);

    counted(
        childConsumer(
                OtelSpanReader.SCOPE_PYTHON_KAFKA, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
            .attr("messaging.destination", "orders")
            .attr("messaging.kafka.partition", 3L)
            .attr("messaging.url", "[\"broker-1:9092\"]"),
        OtelSpanReader.Outcome.UNPLACEABLE);
  }

  // --- franz-go kotel ---

  @Test
  void kotelReceiveSpanEndsWhenThePollHandsTheRecordOver() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_KOTEL, "orders publish")
                .attr("messaging.destination.kind", "topic")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish")
                .attr("messaging.kafka.client_id", "orders-svc")
                .attr("messaging.kafka.destination.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
    assertThat(p.clientId()).isEqualTo("orders-svc");

    // Started when the fetch buffered the record, ended when a poll returned it.
    OtelRecordSpan receive =
        record(
            childConsumer(OtelSpanReader.SCOPE_KOTEL, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
                .times(S + 40 * MS, S + 55 * MS)
                .attr("messaging.source.kind", "topic")
                .attr("messaging.source.name", "orders")
                .attr("messaging.operation", "receive")
                .attr("messaging.kafka.source.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(receive.startNanos()).as("P: the receive span's end").isEqualTo(S + 55 * MS);
    assertThat(receive.group()).isEqualTo("billing");

    OtelRecordSpan process =
        record(
            new OtelFixture(
                    OtelSpanReader.SCOPE_KOTEL, SpanKind.SPAN_KIND_CONSUMER, "orders process")
                .ids(TRACE_LOW, 0x23, 0x22)
                .times(S + 56 * MS, S + 60 * MS)
                .attr("messaging.system", "kafka")
                .attr("messaging.source.name", "orders")
                .attr("messaging.operation", "process")
                .attr("messaging.kafka.source.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(process.startNanos()).isEqualTo(S + 56 * MS);
  }

  @Test
  void kotelUpTo1_6PutTheOffsetOnTheProcessSpanOnly() throws Exception {
    counted(
        childConsumer(OtelSpanReader.SCOPE_KOTEL, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
            .attr("messaging.source.name", "orders")
            .attr("messaging.operation", "receive")
            .attr("messaging.kafka.source.partition", 3L),
        OtelSpanReader.Outcome.BATCH);
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_KOTEL, "orders publish")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish")
                .attr("messaging.kafka.destination.partition", 3L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
  }

  // --- otelsarama (opentelemetry-go-contrib, Shopify/sarama) ---

  @Test
  void otelsaramaWritesTheOffsetAsTheMessageId() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_OTELSARAMA, "orders publish")
                .attr("messaging.destination.kind", "topic")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.message.payload_size_bytes", 120L)
                .attr("messaging.operation", "publish")
                .attr("messaging.message.id", "42")
                .attr("messaging.kafka.destination.partition", 3L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);

    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_OTELSARAMA, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
                .attr("messaging.destination.kind", "topic")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "receive")
                .attr("messaging.message.id", "42")
                .attr("messaging.kafka.source.partition", 3L),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.startNanos()).as("P: handed over on the channel").isEqualTo(S + 51 * MS);
  }

  @Test
  void otelsaramaForIbmSaramaHasTheSameShapesUnderAnotherScope() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_OTELSARAMA_IBM, "orders publish")
                .attr("messaging.destination.kind", "topic")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation", "publish")
                .attr("messaging.message.id", "42")
                .attr("messaging.kafka.destination.partition", 3L),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isEqualTo(RECORD);
    assertThat(p.ackNanos()).isEqualTo(S + 30 * MS);
  }

  @Test
  void otelsaramaUpTo0_36UsedTheOlderNames() throws Exception {
    OtelRecordSpan c =
        record(
            childConsumer(
                    OtelSpanReader.SCOPE_OTELSARAMA, SpanKind.SPAN_KIND_CONSUMER, "orders receive")
                .attr("messaging.destination_kind", "topic")
                .attr("messaging.destination", "orders")
                .attr("messaging.operation", "receive")
                .attr("messaging.message_id", "42")
                .attr("messaging.kafka.partition", 3L),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
  }

  // --- Confluent.Kafka .NET (opentelemetry-dotnet-contrib) ---

  @Test
  void confluentKafkaDotnetPollIsAClientSpanOfOneRecordLinkedToItsProducer() throws Exception {
    OtelRecordSpan p =
        record(
            producer(OtelSpanReader.SCOPE_DOTNET, "send orders")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.operation.name", "send")
                .attr("messaging.operation.type", "send")
                .attr("messaging.client.id", "rdkafka#producer-1"),
            OtelSpanReader.Outcome.PRODUCER);
    assertThat(p.key()).isNull();
    assertThat(p.ackNanos()).isEqualTo(Long.MIN_VALUE);

    OtelRecordSpan poll =
        record(
            linkedConsumer(OtelSpanReader.SCOPE_DOTNET, SpanKind.SPAN_KIND_CLIENT, "poll orders", 0)
                .times(S + 10 * MS, S + 52 * MS)
                .attr("messaging.operation.name", "poll")
                .attr("messaging.operation.type", "receive")
                .attr("messaging.consumer.group.name", "billing")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.destination.partition.id", "3")
                .attr("messaging.client.id", "rdkafka#consumer-2")
                .attr("messaging.kafka.offset", 42L),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(poll.key()).isEqualTo(RECORD);
    assertThat(poll.startNanos()).as("P: Consume() returned").isEqualTo(S + 52 * MS);
    assertThat(poll.producers().count()).isEqualTo(1);
    assertProducerRef(poll.producers(), 0, TRACE_LOW, PRODUCER_SPAN);
  }

  @Test
  void confluentKafkaDotnet0_1ReceiveSpanUsedTheOlderNames() throws Exception {
    OtelRecordSpan c =
        record(
            linkedConsumer(
                    OtelSpanReader.SCOPE_DOTNET, SpanKind.SPAN_KIND_CONSUMER, "orders receive", 0)
                .times(S + 10 * MS, S + 52 * MS)
                .attr("messaging.client_id", "rdkafka#consumer-2")
                .attr("messaging.destination.name", "orders")
                .attr("messaging.kafka.destination.partition", 3L)
                .attr("messaging.kafka.message.offset", 42L)
                .attr("messaging.kafka.consumer.group", "billing")
                .attr("messaging.operation", "receive"),
            OtelSpanReader.Outcome.CONSUMER);
    assertThat(c.key()).isEqualTo(RECORD);
    assertThat(c.startNanos()).isEqualTo(S + 52 * MS);
    assertThat(c.clientId()).isEqualTo("rdkafka#consumer-2");
  }

  // --- what is not a record span ---

  @Test
  void failedSendsOtherKindsAndOtherSystemsAreOnlyCounted() throws Exception {
    counted(
        producer(OtelSpanReader.SCOPE_KOTEL, "orders publish")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.kafka.destination.partition", -1L)
            .attr("messaging.kafka.message.offset", -1L)
            .status(2),
        OtelSpanReader.Outcome.FAILED);
    counted(
        producer(OtelSpanReader.SCOPE_JAVA_AGENT, "send orders")
            .attr("messaging.destination.name", "orders")
            .attr("error.type", "org.apache.kafka.common.errors.TimeoutException"),
        OtelSpanReader.Outcome.FAILED);
    OtelFixture internal =
        producer(OtelSpanReader.SCOPE_KAFKAJS, "transaction")
            .attr("messaging.destination.name", "x");
    internal.kind = SpanKind.SPAN_KIND_INTERNAL;
    counted(internal, OtelSpanReader.Outcome.OTHER);
    counted(
        new OtelFixture("io.opentelemetry.rabbitmq", SpanKind.SPAN_KIND_PRODUCER, "q publish")
            .attr("messaging.system", "rabbitmq")
            .attr("messaging.destination.name", "q"),
        OtelSpanReader.Outcome.NOT_KAFKA);
    counted(
        producer(OtelSpanReader.SCOPE_KAFKAJS, "send").attr("messaging.operation.type", "send"),
        OtelSpanReader.Outcome.UNPLACEABLE);
    // A klat agent's span without its instants is no instrumentation's span.
    counted(
        producer("dev.klat.agent", "orders publish")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.destination.partition.id", "3")
            .attr("messaging.kafka.offset", 42L)
            .attr("klat.instance.id", 55L),
        OtelSpanReader.Outcome.NOT_KAFKA);
  }
}

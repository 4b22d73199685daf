package dev.klat.collector.receive;

import static dev.klat.collector.receive.OtelFixture.MS;
import static dev.klat.collector.receive.OtelFixture.S;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.Replicas;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.Segment;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Instrumentations' spans from the wire to a breakdown (section 10 of the latency model): what the
 * receiver reads reaches the join, over OTLP/JSON and protobuf alike.
 */
class OtelJoinIngestTest {
  private static final long TRACE_HIGH = 0x0102030405060708L;
  private static final long TRACE_LOW = 0x090a0b0c0d0e0f10L;
  private static final long OTHER_TRACE_LOW = 0x7777777777777777L;

  @Test
  void aKafkajsProducerWithoutOffsetJoinsItsLinkingEachBatchConsumerSpan() throws Exception {
    ProbeTimelines probes = new ProbeTimelines(100, 100);
    TermKey leader = new TermKey(1, 0xABCL, 3);
    probes.append(leader, "orders", 3, 42, 42, S + 10 * MS, S + 10 * MS);
    probes.commit(leader, "orders", 3, 42, 42, S + 14 * MS, S + 14 * MS, 2);
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator correlator =
        new Correlator(
            new Correlator.Settings(10_000_000_000L, 100, 60_000_000_000L, 100),
            () -> 0L,
            BrokerInstants.probeFirst(probes, (node, request, at) -> null, Replicas.UNKNOWN, MS),
            out::add);
    OtlpIngest ingest = new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE));

    byte[] producer =
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_PRODUCER, "send orders")
            .ids(TRACE_LOW, 0x11, 0)
            .times(S, S + 30 * MS)
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.operation.type", "send")
            .json();
    ingest.traces(producer, producer.length, true);
    assertThat(correlator.stats().otel().waitingProducers()).isEqualTo(1);

    byte[] consumer =
        new OtelFixture(OtelSpanReader.SCOPE_KAFKAJS, SpanKind.SPAN_KIND_CONSUMER, "process orders")
            .ids(OTHER_TRACE_LOW, 0x33, 0x30)
            .times(S + 50 * MS, S + 51 * MS)
            .link(TRACE_HIGH, TRACE_LOW, 0x11)
            .attr("messaging.system", "kafka")
            .attr("messaging.destination.name", "orders")
            .attr("messaging.destination.partition.id", "3")
            .attr("messaging.operation.type", "process")
            .attr("messaging.kafka.offset", "42")
            .protobuf();
    ingest.traces(consumer, consumer.length, false);

    assertThat(out).hasSize(1);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.OPENTELEMETRY);
    assertThat(j.group()).isEqualTo("service:orders-app");
    assertThat(j.traceIdLow()).as("the producer's trace").isEqualTo(TRACE_LOW);
    Breakdown b = j.breakdown();
    assertThat(b.produceAndPublishNanos()).isEqualTo(10 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(4 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(36 * MS);
    assertThat(b.e2eNanos()).isEqualTo(50 * MS);
    assertThat(correlator.stats().otel().placedAfterWaiting()).isEqualTo(1);
  }
}

package dev.klat.collector.hostile;

import com.google.protobuf.ByteString;
import dev.klat.model.BrokerProbeWire;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
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
import java.util.Arrays;
import java.util.List;

/**
 * The data attacks of issue 43 as OTLP protobuf request bodies, for the unit tests of the parts
 * they hit and for the hostile-input suite that replays them against a collector process. Each body
 * is what one hostile sender posts; times are recent (the given epoch nanoseconds).
 */
public final class DataAttacks {
  /** The agent instances of the forged clock pair. */
  public static final long PRODUCER_INSTANCE = 0x1111L;

  public static final long CONSUMER_INSTANCE = 0x2222L;

  private DataAttacks() {}

  /**
   * One {@code /v1/metrics} body of {@code topics} cumulative {@code klat.e2e.latency} histogram
   * points, each of its own topic (20,000 make 2.4 MB).
   */
  public static byte[] metricsOfManyTopics(int topics, long nowNanos) {
    Histogram.Builder histogram =
        Histogram.newBuilder()
            .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    for (int i = 0; i < topics; i++) {
      histogram.addDataPoints(
          HistogramDataPoint.newBuilder()
              .addAttributes(str("topic", String.format("topic-%05d", i)))
              .addAttributes(str("group", "g"))
              .setStartTimeUnixNano(nowNanos - 1_000_000_000L)
              .setTimeUnixNano(nowNanos)
              .setCount(1)
              .setSum(0.01)
              .addAllExplicitBounds(List.of(0.005, 0.05))
              .addAllBucketCounts(List.of(0L, 1L, 0L)));
    }
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(
                    Resource.newBuilder().addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 7)))
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("klat.e2e.latency")
                                .setHistogram(histogram))))
        .build()
        .toByteArray();
  }

  /**
   * One {@code /v1/traces} body of {@code leaders} joinable producer and consumer span pairs, each
   * naming its own {@code klat.leader.node_id} (5,000 made every scrape run out of a 1 GiB heap).
   */
  public static byte[] tracesOfManyLeaders(int leaders, long nowNanos) {
    ScopeSpans.Builder spans = ScopeSpans.newBuilder();
    for (int i = 0; i < leaders; i++) {
      spans.addSpans(producer("orders", i, 1000 + i, nowNanos));
      spans.addSpans(consumer("orders", i, "billing", nowNanos, 15_000_000));
    }
    return traces(spans, 0);
  }

  /**
   * One {@code /v1/traces} body of {@code spans} producer spans whose topic is {@code chars} long.
   */
  public static byte[] tracesOfLongTopics(int spans, int chars, long nowNanos) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    char[] name = new char[chars];
    for (int i = 0; i < spans; i++) {
      Arrays.fill(name, (char) ('a' + i % 26));
      String topic = i + new String(name, 0, chars - Integer.toString(i).length());
      scope.addSpans(producer(topic, i, 1, nowNanos));
    }
    return traces(scope, 0);
  }

  /**
   * One {@code /v1/traces} body of one record's producer span and {@code groups} consumer spans,
   * each of its own group (40,000 cost 7.5 s of CPU).
   */
  public static byte[] tracesOfManyGroups(int groups, long nowNanos) {
    ScopeSpans.Builder spans = ScopeSpans.newBuilder();
    for (int i = 0; i < groups; i++) {
      spans.addSpans(consumer("orders", 0, "group-" + i, nowNanos, 15_000_000));
    }
    spans.addSpans(producer("orders", 0, 1, nowNanos));
    return traces(spans, 0);
  }

  /**
   * One {@code /v1/logs} body of a broker probe reporting one append range for each of {@code
   * partitions} partitions of {@code topic} (beyond {@code probe.max-partitions}, 4,096, the probe
   * data of every later partition was lost).
   */
  public static byte[] probeLogsOfManyPartitions(String topic, int partitions, long nowNanos) {
    long micros = nowNanos / 1000;
    byte[] range = new byte[BrokerProbeWire.MAX_RANGE_BYTES];
    int n = BrokerProbeWire.encodeRange(range, 0, 0, 0, 0, 9, micros, micros);
    ByteString appends = ByteString.copyFrom(range, 0, n);
    ScopeLogs.Builder scope =
        ScopeLogs.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName(BrokerProbeWire.SCOPE_NAME));
    for (int p = 0; p < partitions; p++) {
      scope.addLogRecords(
          LogRecord.newBuilder()
              .addAttributes(str(BrokerProbeWire.TOPIC, topic))
              .addAttributes(num(BrokerProbeWire.PARTITION, p))
              .addAttributes(num(BrokerProbeWire.LEADER_EPOCH, 1))
              .addAttributes(
                  KeyValue.newBuilder()
                      .setKey(BrokerProbeWire.APPENDS)
                      .setValue(AnyValue.newBuilder().setBytesValue(appends))));
    }
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(num(BrokerProbeWire.BROKER_ID, 1))
                        .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0xAA)))
                .addScopeLogs(scope))
        .build()
        .toByteArray();
  }

  /**
   * One {@code /v1/traces} body: the clock samples of two agents whose clocks agree (each within
   * 0.2 ms of the collector's, so their pair is bounded within 0.4 ms), and one forged producer and
   * consumer span pair whose consumer read the record an hour before it was drained.
   */
  public static byte[] tracesOfForgedClockPair(long nowNanos) {
    Span forgedProducer = producer(PRODUCER_INSTANCE, "orders", 0, 7, 1, nowNanos);
    Span forgedConsumer =
        consumer(CONSUMER_INSTANCE, "orders", 7, "billing", nowNanos, -3_600_000_000_000L);
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(synced(PRODUCER_INSTANCE).addScopeSpans(scopeOf(forgedProducer)))
        .addResourceSpans(synced(CONSUMER_INSTANCE).addScopeSpans(scopeOf(forgedConsumer)))
        .build()
        .toByteArray();
  }

  /** The honest record after the forgery: 15 ms from send to poll, both clocks synced. */
  public static byte[] tracesOfHonestRecord(long nowNanos) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            synced(PRODUCER_INSTANCE)
                .addScopeSpans(scopeOf(producer(PRODUCER_INSTANCE, "orders", 0, 8, 1, nowNanos))))
        .addResourceSpans(
            synced(CONSUMER_INSTANCE)
                .addScopeSpans(
                    scopeOf(
                        consumer(CONSUMER_INSTANCE, "orders", 8, "billing", nowNanos, 15_000_000))))
        .build()
        .toByteArray();
  }

  private static ResourceSpans.Builder synced(long instance) {
    return ResourceSpans.newBuilder()
        .setResource(
            Resource.newBuilder()
                .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), instance))
                .addAttributes(num(SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name(), 0))
                .addAttributes(
                    num(SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name(), 200_000)));
  }

  private static ScopeSpans.Builder scopeOf(Span span) {
    return ScopeSpans.newBuilder().addSpans(span);
  }

  private static byte[] traces(ScopeSpans.Builder spans, long instance) {
    Resource.Builder resource = Resource.newBuilder();
    if (instance != 0) {
      resource.addAttributes(num(SpanAttributes.INSTANCE_ID.name(), instance));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder().setResource(resource).addScopeSpans(spans))
        .build()
        .toByteArray();
  }

  private static Span producer(String topic, long offset, long leader, long nowNanos) {
    return producer(PRODUCER_INSTANCE, topic, 0, offset, leader, nowNanos);
  }

  // Sent at now, drained 1 ms later, acknowledged 9 ms later.
  private static Span producer(
      long instance, String topic, int partition, long offset, long leader, long nowNanos) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setSpanId(ByteString.copyFrom(longBytes(offset + 1)))
        .setName("send " + (topic.length() > 16 ? "topic" : topic))
        .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
        .setStartTimeUnixNano(nowNanos)
        .setEndTimeUnixNano(nowNanos + 9_000_000)
        .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), instance))
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), topic))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), partition))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
        .addAttributes(num(SpanAttributes.SEND_TIME.name(), nowNanos))
        .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), nowNanos + 1_000_000))
        .addAttributes(num(SpanAttributes.ACK_TIME.name(), nowNanos + 9_000_000))
        .addAttributes(num(SpanAttributes.LEADER_NODE_ID.name(), leader))
        .build();
  }

  private static Span consumer(
      String topic, long offset, String group, long nowNanos, long pollAfterNanos) {
    return consumer(CONSUMER_INSTANCE, topic, offset, group, nowNanos, pollAfterNanos);
  }

  // Polled pollAfterNanos after the producer's send; the fetch answered 3 ms before the poll.
  private static Span consumer(
      long instance, String topic, long offset, String group, long nowNanos, long pollAfterNanos) {
    long poll = nowNanos + pollAfterNanos;
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setSpanId(ByteString.copyFrom(longBytes(offset + 0x10000)))
        .setName("poll " + topic)
        .setKind(Span.SpanKind.SPAN_KIND_CONSUMER)
        .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), instance))
        .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), topic))
        .addAttributes(num(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), 0))
        .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
        .addAttributes(str(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), group))
        .addAttributes(num(SpanAttributes.FETCH_REQUEST_TIME.name(), poll - 8_000_000))
        .addAttributes(num(SpanAttributes.FETCH_RESPONSE_TIME.name(), poll - 3_000_000))
        .addAttributes(num(SpanAttributes.POLL_TIME.name(), poll))
        .build();
  }

  private static byte[] longBytes(long v) {
    return java.nio.ByteBuffer.allocate(8).putLong(v).array();
  }

  private static KeyValue str(String k, String v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setStringValue(v))
        .build();
  }

  private static KeyValue num(String k, long v) {
    return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setIntValue(v)).build();
  }
}

package dev.klat.collector.scale.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.receive.OtlpIngest;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Test;

/** An agent's metrics partition moving between join members, through the commit's metadata. */
class MetricPartitionsTest {
  private static final long MINUTE = 60_000_000_000L;

  private static final class Member {
    final AgentMetrics metrics = new AgentMetrics(100, Long.MAX_VALUE);
    final MetricPartitions partitions;

    Member() {
      Correlator unused =
          new Correlator(
              new Correlator.Settings(MINUTE, 10, MINUTE, 10),
              () -> 0,
              BrokerInstants.logAppendTime(),
              b -> {});
      partitions = new MetricPartitions(new OtlpIngest(unused, metrics), metrics, 5 * MINUTE);
    }

    double exported() {
      var merged = metrics.merged(MetricDef.AGENT_EXPORT_SPANS_EXPORTED, 0);
      return merged.isEmpty() ? 0 : merged.values().iterator().next().value();
    }
  }

  // The agent's cumulative count of exported spans, at its point's time.
  private static ConsumerRecord<byte[], byte[]> point(long offset, long timeNanos, long total) {
    byte[] body =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(
                                KeyValue.newBuilder()
                                    .setKey(SpanAttributes.INSTANCE_ID.name())
                                    .setValue(AnyValue.newBuilder().setStringValue("agent-1"))))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName(MetricDef.AGENT_EXPORT_SPANS_EXPORTED.name())
                                    .setSum(
                                        Sum.newBuilder()
                                            .setIsMonotonic(true)
                                            .setAggregationTemporality(
                                                AggregationTemporality
                                                    .AGGREGATION_TEMPORALITY_CUMULATIVE)
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setStartTimeUnixNano(1)
                                                    .setTimeUnixNano(timeNanos)
                                                    .setAsInt(total))))))
            .build()
            .toByteArray();
    return new ConsumerRecord<>(
        "klat-metrics", 0, offset, "agent-1".getBytes(StandardCharsets.UTF_8), body);
  }

  @Test
  void theTwoMembersCountTheAgentOnceAcrossAHandOver() {
    Member first = new Member();
    first.partitions.assigned(0, null, 0);
    first.partitions.read(point(0, 10, 100), 0);
    first.partitions.read(point(1, 20, 150), 0);
    OffsetAndMetadata commit = first.partitions.commit(0, 2, 0);
    first.partitions.revoked(0);

    // The next owner reads again from the commit: the last point the first counted, then on.
    assertThat(commit.offset()).isEqualTo(1);
    Member second = new Member();
    second.partitions.assigned(0, commit, 0);
    second.partitions.read(point(1, 20, 150), 0);
    second.partitions.read(point(2, 30, 190), 0);

    assertThat(first.exported()).isEqualTo(150);
    assertThat(second.exported()).isEqualTo(40);
  }

  @Test
  void aNewPartitionCountsWhole() {
    Member only = new Member();
    only.partitions.assigned(0, null, 0);
    only.partitions.read(point(0, 10, 100), 0);
    assertThat(only.exported()).isEqualTo(100);
  }

  @Test
  void theCountedTimesRoundTripThroughTheCommitMetadata() {
    assertThat(MetricPartitions.parse("klat.counted=a%26b%3Dc=17&host-2=-5"))
        .isEqualTo(Map.of("a&b=c", 17L, "host-2", -5L));
    assertThat(MetricPartitions.parse("klat.counted=")).isEmpty();
  }

  @Test
  void unknownOrBrokenMetadataIsUnknown() {
    assertThat(MetricPartitions.parse(null)).isNull();
    assertThat(MetricPartitions.parse("")).isNull();
    assertThat(MetricPartitions.parse("klat.counted-unknown")).isNull();
    assertThat(MetricPartitions.parse("klat.counted=a=x")).isNull();
  }
}

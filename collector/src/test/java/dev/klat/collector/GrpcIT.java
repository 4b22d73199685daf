package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.receive.GrpcExport;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.metrics.OtlpGrpcMetricExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** OTLP/gRPC, with the OpenTelemetry SDK's gRPC exporters and a raw grpc-java client. */
@Timeout(120)
class GrpcIT {
  static final long MS = 1_000_000L;
  static final long BASE = 1_800_000_000_000L * MS;

  Collector collector;

  @AfterEach
  void stop() {
    if (collector != null) {
      collector.close();
    }
  }

  Collector start(Map<String, String> extra) throws Exception {
    Map<String, String> config = new java.util.HashMap<>(extra);
    config.put("otlp.http.port", "0");
    config.put("otlp.grpc.port", "0");
    config.put("admin.port", "0");
    collector = Collector.start(CollectorConfig.of(config));
    return collector;
  }

  @Test
  void sdkGrpcExportersWithGzipAreJoinedAndMerged() throws Exception {
    start(Map.of());
    String endpoint = "http://127.0.0.1:" + collector.grpcAddress().getPort();
    SdkTracerProvider tracing =
        SdkTracerProvider.builder()
            .setResource(
                Resource.create(
                    Attributes.of(AttributeKey.longKey(SpanAttributes.INSTANCE_ID.name()), 5L)))
            .addSpanProcessor(
                BatchSpanProcessor.builder(
                        OtlpGrpcSpanExporter.builder()
                            .setEndpoint(endpoint)
                            .setCompression("gzip")
                            .build())
                    .setScheduleDelay(Duration.ofHours(1))
                    .build())
            .build();
    for (int i = 0; i < 10; i++) {
      long s = BASE + i * MS;
      Span producer =
          tracing
              .get("it")
              .spanBuilder("send")
              .setSpanKind(SpanKind.PRODUCER)
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "grpc-topic")
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "1")
              .setAttribute(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), (long) i)
              .setAttribute(SpanAttributes.SEND_TIME.name(), s)
              .setAttribute(SpanAttributes.DRAIN_TIME.name(), s + MS)
              .startSpan();
      producer.end();
      Span consumer =
          tracing
              .get("it")
              .spanBuilder("process")
              .setSpanKind(SpanKind.CONSUMER)
              .setParent(Context.root().with(producer))
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "grpc-topic")
              .setAttribute(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "1")
              .setAttribute(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), (long) i)
              .setAttribute(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), "g")
              .setAttribute(SpanAttributes.FETCH_REQUEST_TIME.name(), s + 2 * MS)
              .setAttribute(SpanAttributes.FETCH_RESPONSE_TIME.name(), s + 3 * MS)
              .setAttribute(SpanAttributes.POLL_TIME.name(), s + 4 * MS)
              .startSpan();
      consumer.end();
    }
    assertThat(tracing.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    tracing.close();
    assertThat(collector.correlator().stats().joined()).isEqualTo(10);

    SdkMeterProvider meters =
        SdkMeterProvider.builder()
            .registerMetricReader(
                PeriodicMetricReader.builder(
                        OtlpGrpcMetricExporter.builder().setEndpoint(endpoint).build())
                    .setInterval(Duration.ofHours(1))
                    .build())
            .build();
    meters.get("it").counterBuilder(MetricDef.AGENT_EXPORT_SPANS_DROPPED.name()).build().add(3);
    assertThat(meters.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    meters.close();
    // The SDK may report its own metrics too; only the klat counter is merged and shown.
    assertThat(collector.families())
        .filteredOn(f -> f.name().equals(MetricDef.AGENT_EXPORT_SPANS_DROPPED.prometheusName()))
        .singleElement()
        .satisfies(f -> assertThat(f.series().get(0).value()).isEqualTo(3));
  }

  @Test
  void garbageIsInvalidArgumentAndOversizeIsResourceExhausted() throws Exception {
    start(Map.of("otlp.max-body-bytes", "1024"));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", collector.grpcAddress().getPort())
            .usePlaintext()
            .build();
    try {
      assertThat(GrpcExport.traces(channel, new byte[] {0x0a, 0x7f, 0x01}).status().getCode())
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(GrpcExport.traces(channel, new byte[4096]).status().getCode())
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(GrpcExport.traces(channel, new byte[0]).status().getCode())
          .isEqualTo(Status.Code.OK);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}

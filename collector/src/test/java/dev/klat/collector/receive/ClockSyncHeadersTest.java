package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.model.ClockSyncHeaders;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The collector's side of the agents' clock sync: every OTLP answer carries its receive and send
 * times, and the offsets agents report in their resources bound a pair of hosts from both sides.
 */
class ClockSyncHeadersTest {
  private static final long EPOCH_NANOS = 1_800_000_000_000_000_000L;

  // Each reading of the fake wall clock is 1.5 ms after the previous one.
  private final AtomicLong clock = new AtomicLong(EPOCH_NANOS);
  private final List<JoinedBreakdown> joined = new ArrayList<>();
  private final Correlator correlator =
      new Correlator(
          new Correlator.Settings(10_000_000_000L, 1000, 60_000_000_000L, 100),
          System::nanoTime,
          BrokerInstants.logAppendTime(),
          joined::add);
  private final OtlpIngest ingest =
      new OtlpIngest(correlator, new AgentMetrics(100, 60_000_000_000L));
  private final HttpClient http = HttpClient.newHttpClient();
  private OtlpHttpReceiver receiver;
  private OtlpGrpcReceiver grpc;

  @AfterEach
  void close() {
    if (receiver != null) {
      receiver.close();
    }
    if (grpc != null) {
      grpc.close();
    }
  }

  private long tick() {
    return clock.getAndAdd(1_500_000);
  }

  private HttpResponse<byte[]> post(String path, String contentType, String body) throws Exception {
    if (receiver == null) {
      receiver =
          new OtlpHttpReceiver(
              new InetSocketAddress("127.0.0.1", 0),
              new ReceiverLimits(1 << 20, 2),
              ingest,
              this::tick);
    }
    return http.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + receiver.address().getPort() + path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static long header(HttpResponse<?> response, String name) {
    return Long.parseLong(response.headers().firstValue(name).orElseThrow());
  }

  @Test
  void everyOtlpHttpAnswerCarriesReceiveAndSendTimesInMicroseconds() throws Exception {
    List<HttpResponse<byte[]>> responses = new ArrayList<>();
    responses.add(post("/v1/traces", "application/json", "{}"));
    responses.add(post("/v1/metrics", "application/json", "{}"));
    responses.add(post("/v1/traces", "application/x-protobuf", "\u00ff\u0001"));
    responses.add(post("/v1/metrics", "text/plain", "x"));

    assertThat(responses).extracting(HttpResponse::statusCode).containsExactly(200, 200, 400, 415);
    long previousSend = 0;
    for (HttpResponse<byte[]> response : responses) {
      long receive = header(response, ClockSyncHeaders.RECEIVE_TIME_MICROS);
      long send = header(response, ClockSyncHeaders.SEND_TIME_MICROS);
      // t1 when the request arrived, t2 at the answer: one tick of the fake clock later.
      assertThat(receive).isGreaterThan(previousSend);
      assertThat(send - receive).isEqualTo(1_500);
      assertThat(receive * 1000).isBetween(EPOCH_NANOS, clock.get());
      previousSend = send;
    }
  }

  @Test
  void otlpGrpcAnswersCarryTheTimesAsHeadersOnSuccessAndTrailersOnError() throws Exception {
    grpc =
        new OtlpGrpcReceiver(
            new InetSocketAddress("127.0.0.1", 0),
            new ReceiverLimits(1 << 20, 2),
            ingest,
            this::tick);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", grpc.address().getPort())
            .usePlaintext()
            .build();
    try {
      GrpcExport.Answer ok = GrpcExport.traces(channel, new byte[0]);
      assertThat(ok.status().getCode()).isEqualTo(Status.Code.OK);
      assertSyncTimes(ok.headers());
      GrpcExport.Answer bad = GrpcExport.traces(channel, new byte[] {0x0a, 0x7f, 0x01});
      assertThat(bad.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertSyncTimes(bad.trailers());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static void assertSyncTimes(Metadata metadata) {
    long receive =
        Long.parseLong(
            metadata.get(
                Metadata.Key.of(
                    ClockSyncHeaders.RECEIVE_TIME_MICROS, Metadata.ASCII_STRING_MARSHALLER)));
    long send =
        Long.parseLong(
            metadata.get(
                Metadata.Key.of(
                    ClockSyncHeaders.SEND_TIME_MICROS, Metadata.ASCII_STRING_MARSHALLER)));
    assertThat(send - receive).isEqualTo(1_500);
  }

  @Test
  void offsetsTheAgentsReportInTheirResourcesBoundAOneWayPairFromBothSides() throws Exception {
    // The consumer host's clock is 250 ms ahead of the producer host's (and the collector's).
    long skew = 250_000_000L;
    String producerResource = resource("1111", 0, 400_000);
    String consumerResource = resource("2222", -skew, 600_000);
    long t = EPOCH_NANOS;
    String producer = producerSpan(t);
    String consumer = consumerSpan(t + skew);
    assertThat(
            post("/v1/traces", "application/json", request(producerResource, producer))
                .statusCode())
        .isEqualTo(200);
    assertThat(
            post("/v1/traces", "application/json", request(consumerResource, consumer))
                .statusCode())
        .isEqualTo(200);

    assertThat(joined).hasSize(1);
    ClockOffset offset = joined.get(0).consumerOffset();
    assertThat(offset.bounded()).isTrue();
    assertThat(offset.offsetNanos()).isEqualTo(skew);
    assertThat(offset.uncertaintyNanos()).isEqualTo(1_000_000);
    assertThat(joined.get(0).breakdown().e2eNanos()).isEqualTo(6_000_000);
    assertThat(correlator.clockOffsets())
        .singleElement()
        .satisfies(o -> assertThat(o.bounded()).isTrue());
  }

  @Test
  void aResourceWithoutOrWithGarbageClockAttributesAddsNoBound() throws Exception {
    String garbage =
        "{\"attributes\":["
            + "{\"key\":\"klat.instance.id\",\"value\":{\"intValue\":\"4369\"}},"
            + "{\"key\":\"klat.clock.collector_offset_ns\",\"value\":{\"stringValue\":\"soon\"}},"
            + "{\"key\":\"klat.clock.collector_uncertainty_ns\",\"value\":{\"intValue\":\"5\"}}]}";
    long t = EPOCH_NANOS;
    post("/v1/traces", "application/json", request(garbage, producerSpan(t)));
    post(
        "/v1/traces",
        "application/json",
        request(
            "{\"attributes\":[{\"key\":\"klat.instance.id\",\"value\":{\"intValue\":\"8738\"}}]}",
            consumerSpan(t)));
    assertThat(joined).hasSize(1);
    assertThat(joined.get(0).consumerOffset().bounded()).isFalse();
  }

  /** A producer span sent at {@code t}, drained 1 ms and acknowledged 3 ms later, acks=all. */
  private static String producerSpan(long t) {
    return span(
        "\"klat.send.time_unix_nano\"",
        t,
        "\"klat.drain.time_unix_nano\"",
        t + 1_000_000,
        "\"klat.ack.time_unix_nano\"",
        t + 3_000_000,
        "\"klat.producer.acks\"",
        "all");
  }

  /**
   * A consumer span of group g: fetch requested 2 ms after {@code t}, answered 5 ms, polled 6 ms.
   */
  private static String consumerSpan(long t) {
    return span(
        "\"klat.fetch_request.time_unix_nano\"",
        t + 2_000_000,
        "\"klat.fetch_response.time_unix_nano\"",
        t + 5_000_000,
        "\"klat.poll.time_unix_nano\"",
        t + 6_000_000,
        "\"messaging.consumer.group.name\"",
        "g");
  }

  private static String resource(String instanceHex, long offsetNanos, long uncertaintyNanos) {
    return "{\"attributes\":["
        + "{\"key\":\"klat.instance.id\",\"value\":{\"intValue\":\""
        + Long.parseLong(instanceHex, 16)
        + "\"}},"
        + "{\"key\":\"klat.clock.collector_offset_ns\",\"value\":{\"intValue\":\""
        + offsetNanos
        + "\"}},"
        + "{\"key\":\"klat.clock.collector_uncertainty_ns\",\"value\":{\"intValue\":\""
        + uncertaintyNanos
        + "\"}}]}";
  }

  private static String span(
      String k1, long v1, String k2, long v2, String k3, long v3, String k4, String v4) {
    return "{\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"spanId\":\"00000000000000"
        + (k4.contains("group") ? "02" : "01")
        + "\",\"attributes\":["
        + "{\"key\":\"messaging.destination.name\",\"value\":{\"stringValue\":\"orders\"}},"
        + "{\"key\":\"messaging.destination.partition.id\",\"value\":{\"stringValue\":\"0\"}},"
        + "{\"key\":\"messaging.kafka.offset\",\"value\":{\"intValue\":\"7\"}},"
        + attribute(k1, v1)
        + ","
        + attribute(k2, v2)
        + ","
        + attribute(k3, v3)
        + ",{\"key\":"
        + k4
        + ",\"value\":{\"stringValue\":\""
        + v4
        + "\"}}]}";
  }

  private static String attribute(String key, long value) {
    return "{\"key\":" + key + ",\"value\":{\"intValue\":\"" + value + "\"}}";
  }

  private static String request(String resource, String span) {
    return ("{\"resourceSpans\":[{\"resource\":"
        + resource
        + ",\"scopeSpans\":[{\"spans\":["
        + span
        + "]}]}]}");
  }
}

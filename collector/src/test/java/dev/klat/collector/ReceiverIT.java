package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Raw HTTP against the OTLP receiver: the status codes of the OTLP specification. */
@Timeout(120)
class ReceiverIT {
  static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  Collector collector;

  Collector start(Map<String, String> overrides) throws Exception {
    Map<String, String> config = new java.util.HashMap<>(overrides);
    config.putIfAbsent("otlp.http.port", "0");
    config.putIfAbsent("otlp.grpc.port", "0");
    config.putIfAbsent("admin.port", "0");
    collector = Collector.start(CollectorConfig.of(config));
    return collector;
  }

  @AfterEach
  void stop() {
    if (collector != null) {
      collector.close();
    }
  }

  HttpResponse<byte[]> post(String path, String contentType, String encoding, byte[] body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + collector.otlpAddress().getPort() + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (encoding != null) {
      b.header("Content-Encoding", encoding);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static String consumerSpanJson(long offset, boolean withGroup) {
    long t = 1_800_000_000_000_000_000L;
    return "{\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"spanId\":\"00000000000000"
        + String.format("%02x", offset + 1)
        + "\",\"kind\":5,\"attributes\":["
        + "{\"key\":\"messaging.destination.name\",\"value\":{\"stringValue\":\"orders\"}},"
        + "{\"key\":\"messaging.destination.partition.id\",\"value\":{\"stringValue\":\"0\"}},"
        + "{\"key\":\"messaging.kafka.offset\",\"value\":{\"intValue\":\""
        + offset
        + "\"}},"
        + (withGroup
            ? "{\"key\":\"messaging.consumer.group.name\",\"value\":{\"stringValue\":\"g\"}},"
            : "")
        + "{\"key\":\"klat.fetch_request.time_unix_nano\",\"value\":{\"intValue\":\""
        + t
        + "\"}},"
        + "{\"key\":\"klat.fetch_response.time_unix_nano\",\"value\":{\"intValue\":\""
        + (t + 1000)
        + "\"}},"
        + "{\"key\":\"klat.poll.time_unix_nano\",\"value\":{\"intValue\":\""
        + (t + 2000)
        + "\"}}]}";
  }

  static byte[] traces(String... spans) {
    return ("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
            + String.join(",", spans)
            + "]}]}]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] raw, int repeat) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      for (int i = 0; i < repeat; i++) {
        gz.write(raw);
      }
    }
    return out.toByteArray();
  }

  @Test
  void malformedBodiesGet400AndTheCollectorKeepsServing() throws Exception {
    start(Map.of());
    HttpResponse<byte[]> r =
        post("/v1/traces", "application/x-protobuf", null, new byte[] {0x0a, 0x7f, 0x01});
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(
            post("/v1/traces", "application/json", null, "{\"resourceSpans\":".getBytes())
                .statusCode())
        .isEqualTo(400);
    assertThat(post("/v1/metrics", "application/json", null, "[1,2".getBytes()).statusCode())
        .isEqualTo(400);
    assertThat(
            post("/v1/traces", "application/x-protobuf", "gzip", new byte[] {1, 2, 3}).statusCode())
        .isEqualTo(400);
    assertThat(post("/v1/traces", "text/plain", null, new byte[0]).statusCode()).isEqualTo(415);
    assertThat(post("/v1/traces", "application/json", "br", new byte[0]).statusCode())
        .isEqualTo(415);
    // The broker probe's logs are protobuf only; a path klat does not serve is 404.
    assertThat(post("/v1/logs", "application/json", null, new byte[0]).statusCode()).isEqualTo(415);
    assertThat(post("/v1/profiles", "application/json", null, new byte[0]).statusCode())
        .isEqualTo(404);
    // A valid empty request is a success.
    assertThat(post("/v1/traces", "application/x-protobuf", null, new byte[0]).statusCode())
        .isEqualTo(200);
    assertThat(collector.receiverStats().requestsRejected()).containsEntry("malformed", 4L);
  }

  @Test
  void oversizedBodiesAndGzipBombsGet413WithoutInflatingThem() throws Exception {
    start(Map.of("otlp.max-body-bytes", "65536"));
    assertThat(post("/v1/traces", "application/x-protobuf", null, new byte[100_000]).statusCode())
        .isEqualTo(413);
    // 256 MiB of zeros is about 250 KB gzipped: refused after 64 KiB of inflation.
    byte[] bomb = gzip(new byte[1 << 20], 256);
    long start = System.nanoTime();
    HttpResponse<byte[]> r = post("/v1/metrics", "application/x-protobuf", "gzip", bomb);
    assertThat(r.statusCode()).isEqualTo(413);
    // A small body that inflates just past the limit is refused too.
    assertThat(
            post("/v1/traces", "application/x-protobuf", "gzip", gzip(new byte[70_000], 1))
                .statusCode())
        .isEqualTo(413);
    // And one under the limit is decoded (zeros are not valid protobuf: 400, not 413).
    assertThat(
            post("/v1/traces", "application/x-protobuf", "gzip", gzip(new byte[1000], 1))
                .statusCode())
        .isEqualTo(400);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(60);
    assertThat(post("/v1/traces", "application/json", "gzip", gzip(traces(), 1)).statusCode())
        .isEqualTo(200);
  }

  @Test
  void theLargestBodyLimitStillAcceptsBodies() throws Exception {
    // otlp.max-body-bytes=Integer.MAX_VALUE once made the first buffer's size overflow to a
    // negative number: every request failed with 500.
    start(Map.of("otlp.max-body-bytes", Integer.toString(Integer.MAX_VALUE)));
    assertThat(post("/v1/traces", "application/json", null, traces()).statusCode()).isEqualTo(200);
    assertThat(post("/v1/traces", "application/json", "gzip", gzip(traces(), 1)).statusCode())
        .isEqualTo(200);
    // A gzipped body that inflates past the first buffer: the buffer grows.
    assertThat(
            post("/v1/traces", "application/x-protobuf", "gzip", gzip(new byte[200_000], 1))
                .statusCode())
        .isEqualTo(400);
  }

  @Test
  void aKlatSpanMissingWhatTheJoinNeedsIsAPartialSuccess() throws Exception {
    start(Map.of());
    HttpResponse<byte[]> r =
        post(
            "/v1/traces",
            "application/json",
            null,
            traces(consumerSpanJson(1, true), consumerSpanJson(2, false)));
    assertThat(r.statusCode()).isEqualTo(200);
    String body = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(body).contains("\"rejectedSpans\":\"1\"").contains("messaging.consumer.group.name");
    assertThat(collector.correlator().pendingRecords()).isEqualTo(1);
  }

  @Test
  void aFullJoinTableAnswers429WithRetryAfter() throws Exception {
    start(Map.of("join.max-pending-records", "2"));
    assertThat(
            post(
                    "/v1/traces",
                    "application/json",
                    null,
                    traces(consumerSpanJson(1, true), consumerSpanJson(2, true)))
                .statusCode())
        .isEqualTo(200);
    HttpResponse<byte[]> r =
        post("/v1/traces", "application/json", null, traces(consumerSpanJson(3, true)));
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
    // Metrics do not depend on the join table.
    assertThat(post("/v1/metrics", "application/json", null, "{}".getBytes()).statusCode())
        .isEqualTo(200);
  }

  @Test
  void aSlowSenderHoldsBytesNotASlotAndAFullReceivingBudgetAnswers503() throws Exception {
    start(
        Map.of(
            "otlp.max-concurrent-requests", "1",
            "otlp.max-body-bytes", "1000",
            "otlp.max-receiving-bytes", "1500"));
    int port = collector.otlpAddress().getPort();
    // A sender that announced 1000 bytes and sent 10 holds its 1001-byte buffer of the receiving
    // budget while its body arrives, never the only decode slot. When the slow sender arrives
    // while one of the probing bodies holds the budget, it is the one refused (and then waits on
    // its unsent bytes): another slow sender is tried then.
    HttpResponse<byte[]> r = null;
    for (int attempt = 1; attempt <= 3 && (r == null || r.statusCode() != 503); attempt++) {
      try (Socket slow = new Socket("127.0.0.1", port)) {
        OutputStream out = slow.getOutputStream();
        out.write(
            ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                    + "Content-Length: 1000\r\n\r\n0123456789")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
          r = post("/v1/traces", "application/x-protobuf", null, new byte[1000]);
          if (r.statusCode() == 503) {
            break;
          }
          Thread.sleep(20);
        }
        if (r.statusCode() == 503) {
          assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
          assertThat(new String(r.body(), StandardCharsets.UTF_8))
              .contains("otlp.max-receiving-bytes");
          // The decode slot is free all along: a body that fits the budget is decoded.
          assertThat(post("/v1/traces", "application/x-protobuf", null, new byte[0]).statusCode())
              .isEqualTo(200);
        }
      }
    }
    assertThat(r.statusCode()).isEqualTo(503);
    // The slow sender is gone: its bytes come back.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int status = 503;
    while (System.nanoTime() < deadline && status == 503) {
      status = post("/v1/traces", "application/x-protobuf", null, new byte[1000]).statusCode();
      Thread.sleep(20);
    }
    assertThat(status).isNotEqualTo(503);
    assertThat(collector.receiverStats().requestsRejected()).containsKey("receiving-full");
  }
}

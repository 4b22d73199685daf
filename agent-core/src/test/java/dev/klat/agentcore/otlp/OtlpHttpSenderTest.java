package dev.klat.agentcore.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.clock.FixedTime;
import dev.klat.agentcore.otlp.OtlpHttpSender.Outcome;
import dev.klat.agentcore.otlp.OtlpHttpSender.Result;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class OtlpHttpSenderTest {

  private static final long HUGE_BODY_BYTES = 256L << 20;

  private final TestCollector collector;
  private final FixedTime time = new FixedTime(1_700_000_000_000_000_000L);
  private final byte[] body =
      ExportTraceServiceRequest.newBuilder()
          .addResourceSpans(
              ResourceSpans.newBuilder()
                  .addScopeSpans(ScopeSpans.newBuilder().addSpans(Span.newBuilder().setName("n"))))
          .build()
          .toByteArray();

  OtlpHttpSenderTest() throws IOException {
    collector = new TestCollector();
  }

  @AfterEach
  void close() {
    collector.close();
  }

  private OtlpHttpSender sender(boolean gzip) throws IOException {
    return new OtlpHttpSender(
        collector.endpoint(), Map.of("Authorization", "Bearer x"), gzip, "9.9", time);
  }

  @Test
  void postsGzippedProtobufWithTheOtlpHeaders() throws Exception {
    Result result = sender(true).sendTraces(body, 1000, 1000);

    assertThat(result.outcome).isEqualTo(Outcome.SUCCESS);
    assertThat(result.httpStatus).isEqualTo(200);
    TestCollector.Received received = collector.nextTraces(1000);
    assertThat(received.path()).isEqualTo("/v1/traces");
    assertThat(received.headers().get("Content-type")).containsExactly("application/x-protobuf");
    assertThat(received.headers().get("Content-encoding")).containsExactly("gzip");
    assertThat(received.headers().get("Authorization")).containsExactly("Bearer x");
    assertThat(received.headers().get("User-agent")).containsExactly("klat-agent/9.9");
    assertThat(received.body()).isEqualTo(body);
    assertThat(received.rawBody()).isNotEqualTo(body);
    assertThat(received.traces().getResourceSpans(0).getScopeSpans(0).getSpans(0).getName())
        .isEqualTo("n");
  }

  @Test
  void aPayloadIsMadeFromPartOfABufferOnceAndSentAsIs() throws Exception {
    byte[] buffer = java.util.Arrays.copyOf(body, body.length + 100);
    OtlpHttpSender gzipping = sender(true);
    byte[] payload = gzipping.payload(buffer, body.length);

    assertThat(gzipping.sendTracesPayload(payload, 1000, 1000).outcome).isEqualTo(Outcome.SUCCESS);
    TestCollector.Received received = collector.nextTraces(1000);
    assertThat(received.headers().get("Content-encoding")).containsExactly("gzip");
    assertThat(received.rawBody()).isEqualTo(payload);
    assertThat(received.body()).isEqualTo(body);

    byte[] plain = sender(false).payload(buffer, body.length);
    assertThat(plain).isEqualTo(body).isNotSameAs(buffer);
  }

  @Test
  void postsPlainProtobufWhenGzipIsOff() throws Exception {
    Result result = sender(false).sendMetrics(new byte[0], 1000, 1000);

    assertThat(result.outcome).isEqualTo(Outcome.SUCCESS);
    TestCollector.Received received = collector.nextMetrics(1000);
    assertThat(received.path()).isEqualTo("/v1/metrics");
    assertThat(received.headers()).doesNotContainKey("Content-encoding");
    assertThat(received.rawBody()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {429, 502, 503, 504})
  void theFourOtlpRetryableStatusesAreRetryable(int status) throws Exception {
    collector.traceResponder =
        (exchange, request) -> TestCollector.reply(exchange, status, new byte[0]);
    Result result = sender(true).sendTraces(body, 1000, 1000);
    assertThat(result.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(result.httpStatus).isEqualTo(status);
    assertThat(result.retryAfterMillis).isEqualTo(-1);
  }

  @ParameterizedTest
  @ValueSource(ints = {301, 400, 401, 404, 413, 500})
  void everyOtherStatusIsRejected(int status) throws Exception {
    collector.traceResponder =
        (exchange, request) -> TestCollector.reply(exchange, status, "no".getBytes());
    Result result = sender(true).sendTraces(body, 1000, 1000);
    assertThat(result.outcome).isEqualTo(Outcome.REJECTED);
    assertThat(result.httpStatus).isEqualTo(status);
  }

  @Test
  void readsRetryAfterSecondsFromA503() throws Exception {
    collector.traceResponder =
        (exchange, request) -> {
          exchange.getResponseHeaders().add("Retry-After", "7");
          TestCollector.reply(exchange, 503, new byte[0]);
        };
    Result result = sender(true).sendTraces(body, 1000, 1000);
    assertThat(result.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(result.retryAfterMillis).isEqualTo(7000);
  }

  @Test
  void parsesRetryAfterSecondsAndDatesAndCapsThemAtOneMinute() throws Exception {
    OtlpHttpSender sender = sender(true);
    assertThat(sender.parseRetryAfterMillis(null)).isEqualTo(-1);
    assertThat(sender.parseRetryAfterMillis("")).isEqualTo(-1);
    assertThat(sender.parseRetryAfterMillis("soon")).isEqualTo(-1);
    assertThat(sender.parseRetryAfterMillis("-5")).isEqualTo(-1);
    assertThat(sender.parseRetryAfterMillis("0")).isEqualTo(0);
    assertThat(sender.parseRetryAfterMillis(" 2 ")).isEqualTo(2000);
    assertThat(sender.parseRetryAfterMillis("3600")).isEqualTo(60_000);
    assertThat(sender.parseRetryAfterMillis("99999999999999999999999")).isEqualTo(60_000);
    Instant now = Instant.ofEpochSecond(0, time.epochNanos());
    DateTimeFormatter http = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
    assertThat(sender.parseRetryAfterMillis(http.format(now.plusSeconds(30)))).isEqualTo(30_000);
    assertThat(sender.parseRetryAfterMillis(http.format(now.plusSeconds(3600)))).isEqualTo(60_000);
    assertThat(sender.parseRetryAfterMillis(http.format(now.minusSeconds(30)))).isEqualTo(0);
  }

  @Test
  void aClosedPortIsRetryableAndFast() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    OtlpHttpSender sender =
        new OtlpHttpSender("http://127.0.0.1:" + port, Map.of(), true, "v", time);
    long start = System.nanoTime();
    Result result = sender.sendTraces(body, 1000, 1000);
    assertThat(result.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(result.httpStatus).isEqualTo(-1);
    assertThat(result.detail).contains("ConnectException");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
  }

  @Test
  void aSlowServerTimesOutAndIsRetryable() throws Exception {
    collector.traceResponder = TestCollector.stallsFor(5000);
    long start = System.nanoTime();
    Result result = sender(true).sendTraces(body, 1000, 300);
    assertThat(result.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(result.detail).contains("SocketTimeoutException");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 2000L);
  }

  @Test
  void abortUnblocksARequestWaitingForAResponse() throws Exception {
    collector.traceResponder = TestCollector.stallsFor(8000);
    OtlpHttpSender sender = sender(true);
    long start = System.nanoTime();
    CompletableFuture<Result> result =
        CompletableFuture.supplyAsync(() -> sender.sendTraces(body, 1000, 30_000));
    Thread.sleep(300);
    sender.abort();

    assertThat(result.get(2, TimeUnit.SECONDS).outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
    assertThat(sender.sendTraces(body, 1000, 1000).outcome).isEqualTo(Outcome.RETRYABLE);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aHugeResponseBodyIsNotRead(boolean chunked) throws Exception {
    AtomicLong written = new AtomicLong();
    CountDownLatch serverDone = new CountDownLatch(1);
    collector.traceResponder =
        (exchange, request) -> {
          exchange.sendResponseHeaders(200, chunked ? 0 : HUGE_BODY_BYTES);
          byte[] chunk = new byte[64 * 1024];
          try (OutputStream out = exchange.getResponseBody()) {
            while (written.get() < HUGE_BODY_BYTES) {
              out.write(chunk);
              written.addAndGet(chunk.length);
            }
          } catch (IOException expected) {
            // The client hung up, as it should.
          } finally {
            serverDone.countDown();
          }
        };
    long start = System.nanoTime();
    Result result = sender(true).sendTraces(body, 1000, 5000);

    assertThat(result.outcome).isEqualTo(Outcome.SUCCESS);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3000);
    assertThat(serverDone.await(5, TimeUnit.SECONDS)).isTrue();
    // Had the sender read the body, the server would have written all of it.
    assertThat(written.get()).isLessThan(HUGE_BODY_BYTES);
  }

  @Test
  void aSuccessWhoseBodyStallsIsStillASuccess() throws Exception {
    collector.traceResponder =
        (exchange, request) -> {
          exchange.sendResponseHeaders(200, 1000);
          OutputStream out = exchange.getResponseBody();
          out.write(new byte[10]);
          out.flush();
          TestCollector.sleep(5000);
        };
    Result result = sender(true).sendTraces(body, 1000, 300);
    assertThat(result.outcome).isEqualTo(Outcome.SUCCESS);
  }

  @Test
  void aSmallResponseBodyIsReadToItsEnd() throws Exception {
    collector.traceResponder =
        (exchange, request) -> TestCollector.reply(exchange, 200, new byte[40_000]);
    OtlpHttpSender sender = sender(true);
    for (int i = 0; i < 3; i++) {
      assertThat(sender.sendTraces(body, 1000, 1000).outcome).isEqualTo(Outcome.SUCCESS);
    }
    assertThat(collector.traces).hasSize(3);
  }

  @Test
  void answersCarryingTheCollectorsClockFeedTheClockSync() throws Exception {
    OtlpHttpSender sender = sender(false);
    sender.sendTraces(body, 1000, 1000);
    assertThat(sender.clockSync().hasSample()).as("an ordinary OTLP endpoint").isFalse();

    // The collector's clock is 250 ms ahead; error statuses carry the times too.
    long collectorMicros = time.epochNanos / 1000 + 250_000;
    collector.traceResponder =
        TestCollector.withClockHeaders(
            Long.toString(collectorMicros), Long.toString(collectorMicros + 1), 503);
    assertThat(sender.sendTraces(body, 1000, 1000).outcome).isEqualTo(Outcome.RETRYABLE);

    ClockSync sync = sender.clockSync();
    assertThat(sync.hasSample()).isTrue();
    // The fixed test clock makes t0 = t3: the collector's 1 us is all the round trip there is.
    assertThat(sync.offsetNanos()).isEqualTo(250_000_000L + 1000);
    assertThat(sync.uncertaintyNanos()).isEqualTo(1000);

    collector.traceResponder = TestCollector.withClockHeaders("yesterday", "today", 200);
    assertThat(sender.sendTraces(body, 1000, 1000).outcome).isEqualTo(Outcome.SUCCESS);
    assertThat(sync.rejected()).isEqualTo(1);
    assertThat(sync.accepted()).isEqualTo(1);
  }
}

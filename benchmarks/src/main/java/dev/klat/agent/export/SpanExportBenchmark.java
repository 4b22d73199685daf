package dev.klat.agent.export;

import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.SpanAttributes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The exporter thread's work per span, reported per span: a request of {@value #SPANS} producer
 * spans with the attributes a sampled record's span carries, encoded as OTLP protobuf ({@link
 * #encode()}), and encoded then gzip-compressed as the exporter sends it by default ({@link
 * #encodeAndGzip()}; {@link #encodeAndGzipDefaultLevel()} at gzip's default level).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SpanExportBenchmark {

  private static final int SPANS = 512;

  private final List<SpanRecord> spans = new ArrayList<>();
  private OtlpEncoder encoder;
  // Gzips as the exporter does by default; never connects.
  private OtlpHttpSender gzipping;

  @Setup
  public void setUp() throws IOException {
    Map<String, Object> resource = new LinkedHashMap<>();
    resource.put("service.name", "bench");
    resource.put("klat.instance.id", 7L);
    encoder = new OtlpEncoder(resource, "bench");
    gzipping =
        new OtlpHttpSender("http://127.0.0.1:4318", Map.of(), true, "bench", TimeSource.SYSTEM);
    long epochNanos = 1_800_000_000_000_000_000L;
    for (int i = 0; i < SPANS; i++) {
      long send = epochNanos + i * 1_000_000L;
      SpanRecord span =
          new SpanRecord()
              .setTraceId(0x1234L + i, 0x5678L + i)
              .setSpanId(0x9abcL + i)
              .setKind(SpanRecord.KIND_PRODUCER)
              .setName("send orders")
              .setStartEpochNanos(send)
              .setEndEpochNanos(send + 4_000_000L);
      span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
      span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, "orders");
      span.put(SpanAttributes.MESSAGING_CLIENT_ID, "producer-1");
      span.put(SpanAttributes.PRODUCER_ACKS, "1");
      span.put(SpanAttributes.BATCH_COMPRESSION, "none");
      span.put(EvidenceAttributes.PRODUCER_LINGER_MS, 5L);
      span.put(EvidenceAttributes.PRODUCER_BATCH_SIZE, 16_384L);
      span.put(EvidenceAttributes.PRODUCER_BUFFER_MEMORY, 33_554_432L);
      span.put(EvidenceAttributes.PRODUCER_MAX_IN_FLIGHT, 5L);
      span.put(EvidenceAttributes.PRODUCER_APPEND_WAIT_NS, 1_200L);
      span.put(SpanAttributes.INSTANCE_ID, 7L);
      span.put(SpanAttributes.SEND_TIME, send);
      span.put(SpanAttributes.ACK_TIME, send + 4_000_000L);
      span.put(SpanAttributes.DRAIN_FIRST_TIME, send + 1_000_000L);
      span.put(SpanAttributes.DRAIN_TIME, send + 1_000_000L);
      span.put(SpanAttributes.PRODUCER_ATTEMPTS, 1L);
      span.put(SpanAttributes.LEADER_NODE_ID, 1L);
      span.put(EvidenceAttributes.PRODUCER_REQUEST_BATCHES, 2L);
      span.put(EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT, 1L);
      span.put(SpanAttributes.BATCH_RECORD_COUNT, 120L);
      span.put(SpanAttributes.BATCH_SIZE_BYTES, 15_000L);
      span.put(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID, Integer.toString(i % 6));
      span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, 1_000_000L + i);
      span.put(SpanAttributes.RECORD_TIMESTAMP_MS, send / 1_000_000L);
      span.put(SpanAttributes.RECORD_TIMESTAMP_TYPE, "CreateTime");
      spans.add(span);
    }
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public byte[] encode() {
    return encoder.encodeSpans(spans);
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public byte[] encodeAndGzip() throws IOException {
    byte[] body = encoder.encodeSpans(spans);
    return gzipping.payload(body, body.length);
  }

  /** Gzip's default level, as the exporter compressed before, for comparison. */
  @Benchmark
  @OperationsPerInvocation(SPANS)
  public byte[] encodeAndGzipDefaultLevel() throws IOException {
    byte[] body = encoder.encodeSpans(spans);
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(Math.max(64, body.length / 4));
    try (GZIPOutputStream out = new GZIPOutputStream(buffer, 8192)) {
      out.write(body);
    }
    return buffer.toByteArray();
  }

  /** Prints the request's size raw, at gzip's fastest and at its default level. */
  public static void main(String[] args) throws IOException {
    SpanExportBenchmark bench = new SpanExportBenchmark();
    bench.setUp();
    System.out.printf(
        "%d spans: %d bytes raw, %d gzip level 1, %d gzip default level%n",
        SPANS,
        bench.encode().length,
        bench.encodeAndGzip().length,
        bench.encodeAndGzipDefaultLevel().length);
  }
}

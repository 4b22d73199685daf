package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.IngestBench;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What decoding a body of the largest default size ({@code otlp.max-body-bytes}, 16 MiB) allocates
 * on the decoding thread, measured with {@code com.sun.management.ThreadMXBean}: everything the
 * decoding can hold is among what it allocated, so the factor printed here bounds the memory one
 * request slot costs beyond the body itself (docs/security.md quotes it).
 */
class JsonBodyMemoryTest {
  private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
  // Measured 0.000 to 0.17 (see the printed lines; the JIT's warm-up varies): the parser's
  // buffers, nothing per element. One object per element would be over 5.
  private static final double MAX_ALLOCATED_PER_BODY_BYTE = 1;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @Test
  void emptySpansCostNoTree() throws Exception {
    byte[] body = fill("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[", "{},", "{}]}]}]}");
    long[] spans = {0};
    double perByte = allocatedPerByte(body, () -> spansOf(body, spans));
    assertThat(spans[0]).isGreaterThan(5_000_000);
    assertThat(perByte).isLessThan(MAX_ALLOCATED_PER_BODY_BYTE);
  }

  @Test
  void emptyResourcesAreNotKept() throws Exception {
    byte[] body = fill("{\"resourceSpans\":[", "{},", "{}]}");
    assertThat(allocatedPerByte(body, () -> spansOf(body, new long[1])))
        .isLessThan(MAX_ALLOCATED_PER_BODY_BYTE);
  }

  @Test
  void resourcesAreHeldOneAtATime() throws Exception {
    // Each resource with an attribute after its scope: the scope's bytes are read again once the
    // resource is known.
    String resource =
        "{\"scopeSpans\":[{\"spans\":[{}]}],\"resource\":{\"attributes\":["
            + "{\"key\":\"a\",\"value\":{\"intValue\":\"1\"}}]}},";
    byte[] body = fill("{\"resourceSpans\":[", resource, "{}]}");
    // What the decoding holds, measured after a full GC at the 100,000th span against before it
    // began: with every resource held (a map each, about 250 bytes) it would be over 25 MB.
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.gc();
    long before = memory.getHeapMemoryUsage().getUsed();
    long[] held = {0};
    long[] spans = {0};
    OtlpJson.decodeTraces(
        body,
        body.length,
        span -> {
          if (++spans[0] == 100_000) {
            System.gc();
            held[0] = memory.getHeapMemoryUsage().getUsed() - before;
          }
        });
    System.out.printf(Locale.ROOT, "held at the 100,000th resource: %d bytes%n", held[0]);
    assertThat(spans[0]).isGreaterThan(100_000);
    assertThat(held[0]).isLessThan(4L * 1024 * 1024);
  }

  @Test
  void deepEmptyObjectsCostNoTree() throws Exception {
    byte[] body =
        fill("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"x\":[", "{},", "{}]}]}]}]}");
    double perByte = allocatedPerByte(body, () -> spansOf(body, new long[1]));
    assertThat(perByte).isLessThan(MAX_ALLOCATED_PER_BODY_BYTE);
  }

  @Test
  void realSpansCostTheirMappedSpansOnly() throws Exception {
    // IngestBench's requests as OTLP/JSON, repeated to the largest body.
    String request =
        DecodeBench.json(ExportTraceServiceRequest.parseFrom(IngestBench.bodies(1, 0).get(0)));
    String spans =
        request.substring(request.indexOf("\"spans\":[") + 9, request.lastIndexOf("]}]}]}"));
    byte[] body =
        fill("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[", spans + ",", "{}]}]}]}");
    long[] count = {0};
    double perByte = allocatedPerByte(body, () -> spansOf(body, count));
    assertThat(count[0]).isGreaterThan(10_000);
    // The strings of each span (ids, topic, group, ...) are allocated and dropped at the next
    // span: measured 2.1.
    assertThat(perByte).isLessThan(2.5);
  }

  @Test
  void emptyDataPointsStopAtTheCap() throws Exception {
    byte[] body =
        fill(
            "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"gauge\":{\"dataPoints\":[",
            "{},",
            "{}]}}]}]}]}");
    double perByte =
        allocatedPerByte(
            body,
            () ->
                assertThatThrownBy(() -> OtlpJson.decodeMetrics(body, body.length))
                    .isInstanceOf(MalformedException.class)
                    .hasMessageContaining("data points"));
    // 65,536 points kept, then refused: measured 1.14.
    assertThat(perByte).isLessThan(1.5);
  }

  private static void spansOf(byte[] body, long[] count) throws MalformedException {
    OtlpJson.decodeTraces(body, body.length, span -> count[0]++);
  }

  interface Work {
    void run() throws Exception;
  }

  private static double allocatedPerByte(byte[] body, Work work) throws Exception {
    long thread = Thread.currentThread().getId();
    long before = THREADS.getThreadAllocatedBytes(thread);
    work.run();
    long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
    double perByte = allocated / (double) body.length;
    System.out.printf(
        Locale.ROOT,
        "%d-byte body: %d bytes allocated decoding it, %.3f per body byte%n",
        body.length,
        allocated,
        perByte);
    return perByte;
  }

  /**
   * {@code head}, then {@code item} (ending in a comma) repeated, then {@code tail} (with the last
   * item): at most the largest body.
   */
  private static byte[] fill(String head, String item, String tail) {
    byte[] h = head.getBytes(StandardCharsets.UTF_8);
    byte[] i = item.getBytes(StandardCharsets.UTF_8);
    byte[] t = tail.getBytes(StandardCharsets.UTF_8);
    int count = (MAX_BODY_BYTES - h.length - t.length) / i.length;
    byte[] body = Arrays.copyOf(h, h.length + count * i.length + t.length);
    for (int n = 0; n < count; n++) {
      System.arraycopy(i, 0, body, h.length + n * i.length, i.length);
    }
    System.arraycopy(t, 0, body, h.length + count * i.length, t.length);
    return body;
  }
}

package dev.klat.collector.receive;

import dev.klat.collector.IngestBench;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;

/**
 * A manual benchmark of protobuf decoding alone (not a test): {@code IngestBench}'s request bodies
 * decoded over and over on one thread, without HTTP and without the join; prints the thread's CPU
 * time per span for each round. With {@code map}, each span is also mapped for the join ({@link
 * SpanMapper}). Steadier than {@code IngestBench} on a shared machine, so it is the one to compare
 * two versions of the decoder with. Run as in {@code docs/collector.md}.
 */
public final class DecodeBench {
  private DecodeBench() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    boolean map = args.length > 2 && args[2].equals("map");
    List<byte[]> bodies = IngestBench.bodies(requests, 0);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long spans = (long) requests * 2 * IngestBench.PER_REQUEST;
    // Read from every span, so that the JIT cannot drop the decoding.
    long[] checksum = new long[1];
    OtlpProtobuf.SpanSink sink =
        map
            ? span -> checksum[0] += SpanMapper.map(span).producer() != null ? 1 : 2
            : span -> checksum[0] += span.spanId;
    for (int round = 0; round < rounds; round++) {
      long cpuNanos = threads.getCurrentThreadCpuTime();
      for (byte[] body : bodies) {
        OtlpProtobuf.decodeTraces(body, body.length, sink);
      }
      System.out.printf(
          Locale.ROOT,
          "round %d: %.0f ns of CPU per span%n",
          round,
          (threads.getCurrentThreadCpuTime() - cpuNanos) / (double) spans);
    }
    System.out.println("checksum " + checksum[0]);
  }
}

package dev.klat.it.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The second half of a run, by records: what the process spent per record once the JIT had compiled
 * the hot code and the caches were warm, which is what a long-running client pays. Fed by {@link
 * PerfMain}'s sampler; the records come from the client's own metrics (the producer's {@code
 * record-send-total}, the consumer's {@code records-consumed-total}), read at the same instant as
 * the CPU times, so the window needs no guess of the rate.
 *
 * <p>The window starts at the first sample with at least half of the run's records and ends at the
 * first sample with all of them, before the client closes.
 */
final class WarmWindow {

  /** What {@link #report()} prints, each line's key prefixed, for {@link ThreadCpu#parse}. */
  static final String PREFIX = "WARM_";

  private record Sample(
      long millis,
      double records,
      long processCpuNanos,
      long jitNanos,
      long gcNanos,
      Map<String, Long> threadCpuByKind) {}

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final List<Sample> samples = new ArrayList<>();

  void sample(long processCpuNanos, long jitNanos, long gcNanos, Map<String, Long> cpuByKind) {
    add(
        System.nanoTime() / 1_000_000,
        recordsSoFar(),
        processCpuNanos,
        jitNanos,
        gcNanos,
        cpuByKind);
  }

  void add(
      long millis,
      double records,
      long processCpuNanos,
      long jitNanos,
      long gcNanos,
      Map<String, Long> cpuByKind) {
    if (records > 0) {
      samples.add(
          new Sample(
              millis, records, processCpuNanos, jitNanos, gcNanos, new TreeMap<>(cpuByKind)));
    }
  }

  /** The window's lines, or none when the client's metrics were never seen. */
  String report() {
    if (samples.size() < 2) {
      return "";
    }
    double all = samples.get(samples.size() - 1).records();
    Sample start = null;
    Sample end = null;
    for (Sample sample : samples) {
      if (start == null && sample.records() >= all / 2) {
        start = sample;
      }
      if (end == null && sample.records() >= all) {
        end = sample;
      }
    }
    if (start == null || end == null || end.records() <= start.records()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    line(out, "RECORDS=", (long) (end.records() - start.records()));
    line(out, "MILLIS=", end.millis() - start.millis());
    line(out, "CPU_NANOS=", end.processCpuNanos() - start.processCpuNanos());
    line(out, "JIT_CPU_NANOS=", end.jitNanos() - start.jitNanos());
    line(out, "GC_CPU_NANOS=", end.gcNanos() - start.gcNanos());
    for (Map.Entry<String, Long> kind : end.threadCpuByKind().entrySet()) {
      long before = start.threadCpuByKind().getOrDefault(kind.getKey(), 0L);
      line(out, "THREAD_CPU_NANOS " + kind.getKey() + "=", kind.getValue() - before);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, String key, long value) {
    out.append(PREFIX).append(key).append(value).append('\n');
  }

  // The client-level counters only: the consumer's per-topic ones carry the same records again.
  private double recordsSoFar() {
    double total = 0;
    total += sum(PRODUCERS, "record-send-total");
    total += sum(CONSUMERS, "records-consumed-total");
    return total;
  }

  private static final ObjectName PRODUCERS = pattern("kafka.producer:type=producer-metrics,*");
  private static final ObjectName CONSUMERS =
      pattern("kafka.consumer:type=consumer-fetch-manager-metrics,*");

  private static ObjectName pattern(String pattern) {
    try {
      return new ObjectName(pattern);
    } catch (javax.management.MalformedObjectNameException e) {
      throw new IllegalArgumentException(pattern, e);
    }
  }

  private double sum(ObjectName pattern, String attribute) {
    double total = 0;
    try {
      for (ObjectName name : server.queryNames(pattern, null)) {
        if (name.getKeyProperty("topic") != null || name.getKeyProperty("partition") != null) {
          continue;
        }
        Object value = server.getAttribute(name, attribute);
        if (value instanceof Number) {
          total += ((Number) value).doubleValue();
        }
      }
    } catch (Exception e) {
      // No such client, or it closed while read: this sample counts nothing from it.
    }
    return total;
  }
}

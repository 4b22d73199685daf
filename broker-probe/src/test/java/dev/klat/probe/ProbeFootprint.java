package dev.klat.probe;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.Properties;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;

/**
 * Measures the probe's heap at a number of partitions, in a JVM of its own: the event ring as the
 * probe allocates it at start, then the partition state after a busy stretch in which every
 * partition is appended to and committed at every millisecond tick and exported every 200 ms, the
 * way the exporter thread runs it (drain into the timelines, encode every partition's ranges). What
 * it reports is the heap held by the probe's own structures; the broker's {@code TopicPartition}
 * objects the probe refers to are allocated before the first measurement. Each step runs in a
 * method of its own, so that no frame of it holds a reference when the heap is measured.
 *
 * <p>Prints one line: {@code ring=<bytes> requestBuffer=<bytes> partitions=<n>
 * perPartitionSteady=<bytes> perPartitionBeforeExport=<bytes>}, the request buffer being the
 * encoder's, which keeps the size of the largest request (at most {@link
 * ProbeExporter#MAX_REQUEST_BYTES} and one partition's record).
 */
public final class ProbeFootprint {

  private static final int EXPORTS = 25;
  private static final int TICKS_PER_EXPORT = 200;
  private static final int APPENDS_PER_TICK = 2;

  /** The probe's state, as {@link BrokerProbe} and {@link ProbeExporter} hold it. */
  private static final class Probe {
    final TopicPartition[] partitions;
    final long[] offsets;
    final ProbeSettings settings =
        ProbeSettings.load(new Properties(), Collections.<String, String>emptyMap());
    EventRing ring;
    PartitionTimelines timelines;
    LogsEncoder encoder;
    long nowMicros = 1_700_000_000_000_000L;

    Probe(int count) {
      partitions = new TopicPartition[count];
      offsets = new long[count];
      for (int p = 0; p < count; p++) {
        partitions[p] = new TopicPartition("footprint", p);
      }
    }
  }

  private ProbeFootprint() {}

  public static void main(String[] args) {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    Probe probe = new Probe(count);
    liveBytes(); // the first call sets up the diagnostic command's own objects
    long base = liveBytes();
    start(probe);
    long ring = liveBytes() - base;
    for (int export = 0; export < EXPORTS - 1; export++) {
      fill(probe);
      export(probe);
    }
    fill(probe);
    probe.encoder = null;
    long beforeExport = liveBytes() - base - ring;
    export(probe);
    long withEncoder = liveBytes() - base - ring;
    probe.encoder = null;
    long steady = liveBytes() - base - ring;
    if (probe.timelines.partitions() != count || probe.timelines.dropped() != 0) {
      throw new IllegalStateException(
          "tracked " + probe.timelines.partitions() + ", dropped " + probe.timelines.dropped());
    }
    System.out.println(
        "ring="
            + ring
            + " requestBuffer="
            + (withEncoder - steady)
            + " partitions="
            + count
            + " perPartitionSteady="
            + steady / count
            + " perPartitionBeforeExport="
            + beforeExport / count);
  }

  private static void start(Probe probe) {
    ProbeSettings s = probe.settings;
    probe.ring = new EventRing(s.queueSize);
    probe.timelines =
        new PartitionTimelines(s.maxPartitions, s.maxRangesPerPartition, s.resolutionMicros);
  }

  // One export interval of appends and commits, drained into the timelines.
  private static void fill(Probe probe) {
    for (int tick = 0; tick < TICKS_PER_EXPORT; tick++) {
      probe.nowMicros += probe.settings.resolutionMicros;
      for (int p = 0; p < probe.partitions.length; p++) {
        for (int a = 0; a < APPENDS_PER_TICK; a++) {
          long first = probe.offsets[p];
          probe.offsets[p] += 10;
          offer(probe, EventRing.APPEND, p, first, probe.offsets[p] - 1);
        }
        offer(probe, EventRing.HIGH_WATERMARK, p, 0, probe.offsets[p]);
      }
    }
    probe.ring.drain(probe.timelines);
  }

  private static void export(Probe probe) {
    if (probe.encoder == null) {
      probe.encoder = new LogsEncoder("footprint", 1L, "test");
    }
    LogsEncoder encoder = probe.encoder;
    encoder.begin(1, probe.nowMicros, 0, Long.MIN_VALUE, 0);
    probe.timelines.flushAll(
        (tp, epoch, appends, commits, stables, stableFrom) -> {
          TopicPartition t = (TopicPartition) tp;
          encoder.add(t.topic(), t.partition(), epoch, appends, commits, stables, stableFrom, 0);
          if (encoder.size() >= ProbeExporter.MAX_REQUEST_BYTES) {
            encoder.finish();
            encoder.begin(1, probe.nowMicros, 0, Long.MIN_VALUE, 0);
          }
        });
    encoder.finish();
  }

  // Drains when the ring is full, as the exporter thread does every 20 ms.
  private static void offer(Probe probe, byte kind, int p, long first, long last) {
    long nanos = probe.nowMicros * 1000;
    // Appends carry their request's times, as on a broker's request thread.
    long request = kind == EventRing.APPEND ? RequestTimes.pack(120, 340) : RequestTimes.UNKNOWN;
    if (!probe.ring.offer(kind, probe.partitions[p], 1, first, last, nanos, request)) {
      probe.ring.drain(probe.timelines);
      probe.ring.offer(kind, probe.partitions[p], 1, first, last, nanos, request);
    }
  }

  // The live heap as a class histogram counts it: the JVM collects first and then walks every live
  // object, so nothing unreachable is counted (the heap usage a memory bean reports after
  // System.gc() kept megabytes of garbage here).
  private static long liveBytes() {
    try {
      String histogram =
          (String)
              ManagementFactory.getPlatformMBeanServer()
                  .invoke(
                      new ObjectName("com.sun.management:type=DiagnosticCommand"),
                      "gcClassHistogram",
                      new Object[] {null},
                      new String[] {String[].class.getName()});
      String[] lines = histogram.trim().split("\n");
      String[] total = lines[lines.length - 1].trim().split("\\s+");
      return Long.parseLong(total[total.length - 1]);
    } catch (Exception e) {
      throw new IllegalStateException("no class histogram: " + e, e);
    }
  }
}

package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.Buckets;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.HopRecord;
import dev.klat.model.Segment;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pipeline histograms of {@code /metrics}: {@code klat_pipeline_latency_seconds{pipeline}}, a
 * chain's end to end, and {@code klat_pipeline_hop_latency_seconds{pipeline,hop,segment}}, each
 * hop's five segments and its processing. Pipelines are assembled on query, so {@link #update}
 * assembles the recent window's chains every few seconds and records the final records not yet
 * recorded (each once per pipeline, with the chain {@link Pipelines} keeps for it) and their hops'
 * records (each once per pipeline and hop). At most {@code pipeline.max-pipelines} pipelines have
 * series: a new one evicts the one updated longest ago, counted in {@code
 * klat_pipeline_evictions_total}; hops beyond {@link #MAX_HOPS} have no series. Thread-safe.
 */
public final class PipelineMetrics {
  /** The most hops of a pipeline with series of their own (six histograms each). */
  public static final int MAX_HOPS = 8;

  private static final String[] PARTS = parts();

  private final int maxPipelines;
  private final PipelineNames names;
  private final long windowNanos;
  // In access order: the eldest is the pipeline updated longest ago.
  private final LinkedHashMap<String, Series> pipelines = new LinkedHashMap<>(16, 0.75f, true);
  // What was recorded (final records and hop records), with when it was joined, so that nothing
  // is recorded twice while it is in the window.
  private final Map<List<Object>, Long> recorded = new LinkedHashMap<>();
  private long evictions;

  /**
   * @param maxPipelines {@code pipeline.max-pipelines}
   * @param names {@code pipeline.names}
   * @param windowNanos how far back chains are assembled: a chain whose hops took longer to join is
   *     not recorded
   */
  public PipelineMetrics(int maxPipelines, PipelineNames names, long windowNanos) {
    this.maxPipelines = maxPipelines;
    this.names = names;
    this.windowNanos = windowNanos;
  }

  /** Records the window's chains not recorded yet; {@code records} are the window's hop records. */
  public synchronized void update(List<HopRecord> records, long nowNanos) {
    for (Iterator<Long> it = recorded.values().iterator(); it.hasNext(); ) {
      if (nowNanos - it.next() > 2 * windowNanos) {
        it.remove();
      } else {
        break; // insertion order: the rest are younger
      }
    }
    for (Pipelines.Path p : Pipelines.assemble(records, names).paths()) {
      for (Chain c : p.finals.values()) {
        if (recorded.putIfAbsent(List.of(p.name, c.last().key(), c.last().group()), nowNanos)
            != null) {
          continue;
        }
        Series s = series(p.name);
        s.e2e.record(c.e2eNanos());
        for (int k = 0; k < Math.min(MAX_HOPS, c.hops().size()); k++) {
          HopRecord h = c.hops().get(k);
          if (recorded.putIfAbsent(List.of(p.name, k, h.key(), h.group()), nowNanos) != null) {
            continue;
          }
          for (Segment seg : Segment.values()) {
            long v = h.segment(seg.ordinal());
            if (v >= 0) {
              s.hop(k, seg.ordinal()).record(v);
            }
          }
          if (k < c.processingNanos().length && c.processingNanos()[k] >= 0) {
            s.hop(k, PARTS.length - 1).record(c.processingNanos()[k]);
          }
        }
      }
    }
  }

  private Series series(String name) {
    Series s = pipelines.get(name);
    if (s == null) {
      if (pipelines.size() >= maxPipelines) {
        Iterator<String> eldest = pipelines.keySet().iterator();
        eldest.next();
        eldest.remove();
        evictions++;
      }
      s = new Series();
      pipelines.put(name, s);
    }
    return s;
  }

  /** Pipelines whose series left to make room for a new one. */
  public synchronized long evictions() {
    return evictions;
  }

  /** The series of {@code klat_pipeline_latency_seconds}. */
  public synchronized List<Exposition.Series> latencySeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<String, Series> e : pipelines.entrySet()) {
      out.add(e.getValue().e2e.series(Map.of(TagKeys.PIPELINE, e.getKey())));
    }
    return out;
  }

  /** The series of {@code klat_pipeline_hop_latency_seconds}. */
  public synchronized List<Exposition.Series> hopSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (Map.Entry<String, Series> e : pipelines.entrySet()) {
      Histogram[][] hops = e.getValue().hops;
      for (int k = 0; k < hops.length; k++) {
        for (int part = 0; part < PARTS.length; part++) {
          Histogram h = hops[k][part];
          if (h != null) {
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put(TagKeys.PIPELINE, e.getKey());
            labels.put(TagKeys.HOP, Integer.toString(k + 1));
            labels.put(TagKeys.SEGMENT, PARTS[part]);
            out.add(h.series(labels));
          }
        }
      }
    }
    return out;
  }

  private static String[] parts() {
    String[] parts = new String[Segment.values().length + 1];
    for (Segment s : Segment.values()) {
      parts[s.ordinal()] = s.id();
    }
    parts[parts.length - 1] = Pipelines.PROCESSING;
    return parts;
  }

  private static final class Series {
    final Histogram e2e = new Histogram();
    final Histogram[][] hops = new Histogram[MAX_HOPS][PARTS.length];

    Histogram hop(int k, int part) {
      Histogram h = hops[k][part];
      if (h == null) {
        h = hops[k][part] = new Histogram();
      }
      return h;
    }
  }

  private static final class Histogram {
    final long[] counts = new long[Buckets.count()];
    long sumNanos;

    void record(long nanos) {
      counts[Buckets.indexOfNanos(nanos)]++;
      sumNanos += nanos;
    }

    Exposition.Series series(Map<String, String> labels) {
      return new Exposition.Series(labels, 0, counts.clone(), sumNanos / 1e9, null);
    }
  }
}

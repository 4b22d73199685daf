package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The diagnosis as a Prometheus gauge ({@code klat_diagnosis_tail_share}), for dashboards: one
 * series per finding of the latest diagnosis of each busy topic and consumer group. A diagnosis
 * reads every recent breakdown of its pair, so it is recomputed at most once per interval, on a
 * scrape, and only for the busiest pairs; a finding that no longer holds leaves the scrape.
 */
public final class DiagnosisGauges {

  /** The topic and group pairs with the most breakdowns in a window, most first. */
  public interface BusiestPairs {
    List<TopicGroup> busiest(long windowNanos, long nowNanos, int max);
  }

  /** Diagnoses one topic and group over a window. */
  public interface Diagnoser {
    DiagnosisReport diagnose(String topic, String group, long windowNanos);
  }

  private final BusiestPairs pairs;
  private final Diagnoser diagnoser;
  private final long windowNanos;
  private final long intervalNanos;
  private final int maxPairs;
  private final LongSupplier nanoTime;
  private List<Exposition.Series> latest = List.of();
  private long computedAtNanos;
  private boolean computed;

  /**
   * @param pairs the pairs to diagnose ({@code RecentBreakdowns::busiestPairs})
   * @param diagnoser the diagnosis of one pair
   * @param windowNanos the window each diagnosis reads
   * @param intervalNanos the least time between two computations
   * @param maxPairs the most topic and group pairs diagnosed, the busiest first
   * @param nanoTime the monotonic clock
   */
  public DiagnosisGauges(
      BusiestPairs pairs,
      Diagnoser diagnoser,
      long windowNanos,
      long intervalNanos,
      int maxPairs,
      LongSupplier nanoTime) {
    this.pairs = pairs;
    this.diagnoser = diagnoser;
    this.windowNanos = windowNanos;
    this.intervalNanos = intervalNanos;
    this.maxPairs = maxPairs;
    this.nanoTime = nanoTime;
  }

  /** The series of the latest diagnoses, recomputed first when the interval has passed. */
  public synchronized List<Exposition.Series> series() {
    long now = nanoTime.getAsLong();
    if (!computed || now - computedAtNanos >= intervalNanos) {
      latest = compute(now);
      computedAtNanos = now;
      computed = true;
    }
    return latest;
  }

  private List<Exposition.Series> compute(long nowNanos) {
    List<Exposition.Series> out = new ArrayList<>();
    for (TopicGroup pair : pairs.busiest(windowNanos, nowNanos, maxPairs)) {
      for (Finding f : diagnoser.diagnose(pair.topic(), pair.group(), windowNanos).findings()) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(TagKeys.TOPIC, pair.topic());
        labels.put(TagKeys.GROUP, pair.group());
        labels.put(TagKeys.SEGMENT, f.segment());
        labels.put(TagKeys.KNOB, f.knob());
        out.add(Exposition.Series.scalar(labels, f.tailShare()));
      }
    }
    return List.copyOf(out);
  }
}

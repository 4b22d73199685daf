package dev.klat.agent.export;

import dev.klat.agent.metrics.MetricFamily;
import dev.klat.agentcore.otlp.ExportFailures;
import dev.klat.agentcore.otlp.FailureReason;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The export pipeline's own health: spans dropped, spans exported, failed requests (by {@link
 * FailureReason}, as the sender counts them), and the registry's refused series, exported beside
 * the application's metrics under the names {@link MetricDef} gives them.
 */
final class ExportCounters {
  // Any application thread may drop a span; only the exporter thread counts the others.
  private final LongAdder droppedSpans = new LongAdder();
  private final AtomicLong exportedSpans = new AtomicLong();
  private final AtomicLong failedExports = new AtomicLong();

  void spanDropped() {
    droppedSpans.increment();
  }

  void spansDropped(int count) {
    droppedSpans.add(count);
  }

  void spansExported(int count) {
    exportedSpans.addAndGet(count);
  }

  void exportFailed() {
    failedExports.incrementAndGet();
  }

  long droppedSpans() {
    return droppedSpans.sum();
  }

  long exportedSpans() {
    return exportedSpans.get();
  }

  long failedExports() {
    return failedExports.get();
  }

  /**
   * The four health counters as metric families, cumulative since {@code startEpochNanos}. The
   * failed requests carry their {@code reason}: {@code unavailable} and {@code rejected} always, so
   * that their series exist from the start, the configuration problems once they happened.
   */
  List<MetricFamily> families(long seriesOverflow, long startEpochNanos, ExportFailures failures) {
    List<MetricFamily> health = new ArrayList<>(4);
    health.add(counter(MetricDef.AGENT_EXPORT_SPANS_DROPPED, droppedSpans(), startEpochNanos));
    health.add(counter(MetricDef.AGENT_EXPORT_SPANS_EXPORTED, exportedSpans(), startEpochNanos));
    MetricFamily failed = family(MetricDef.AGENT_EXPORT_REQUESTS_FAILED);
    String[] reasonKey = {TagKeys.REASON};
    for (FailureReason reason : FailureReason.values()) {
      long count = failures.count(reason);
      if (count > 0 || !reason.explained()) {
        failed.addLong(reasonKey, new String[] {reason.id}, startEpochNanos, count);
      }
    }
    health.add(failed);
    health.add(counter(MetricDef.AGENT_EXPORT_SERIES_OVERFLOW, seriesOverflow, startEpochNanos));
    return health;
  }

  private static MetricFamily counter(MetricDef def, long value, long startEpochNanos) {
    MetricFamily family = family(def);
    family.addLong(new String[0], new String[0], startEpochNanos, value);
    return family;
  }

  private static MetricFamily family(MetricDef def) {
    return new MetricFamily(
        def.name(), def.description(), def.unit().otelUnit(), MetricDef.Instrument.COUNTER);
  }
}

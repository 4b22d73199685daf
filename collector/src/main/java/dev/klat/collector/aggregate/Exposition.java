package dev.klat.collector.aggregate;

import java.util.List;
import java.util.Map;

/** A point-in-time view of metric families, independent of the exposition format. */
public final class Exposition {
  private Exposition() {}

  /** The kind of a family. */
  public enum Type {
    COUNTER,
    GAUGE,
    HISTOGRAM
  }

  /**
   * One metric family.
   *
   * @param name the Prometheus name (a counter's with its {@code _total} suffix)
   * @param help the description
   * @param unit the OpenMetrics unit ("seconds") or ""
   * @param type the kind
   * @param series the series, each with its own labels
   */
  public record Family(String name, String help, String unit, Type type, List<Series> series) {}

  /**
   * One series.
   *
   * @param labels label names to values, in output order
   * @param value the value of a counter or gauge
   * @param bucketCounts a histogram's counts per {@link Buckets} bucket, not cumulative
   * @param sum a histogram's sum, in seconds
   * @param exemplars a histogram's exemplar per bucket (entries may be null), or null
   */
  public record Series(
      Map<String, String> labels,
      double value,
      long[] bucketCounts,
      double sum,
      Exemplar[] exemplars) {

    /** A counter or gauge series. */
    public static Series scalar(Map<String, String> labels, double value) {
      return new Series(labels, value, null, 0, null);
    }

    /** The total count of a histogram series. */
    public long count() {
      long total = 0;
      for (long c : bucketCounts) {
        total += c;
      }
      return total;
    }
  }

  /**
   * An exemplar: one real observation in a bucket, with the trace it belongs to.
   *
   * @param traceIdHex 32 lowercase hex digits
   * @param valueSeconds the observed value
   * @param epochMillis when it was observed (the collector's wall clock)
   */
  public record Exemplar(String traceIdHex, double valueSeconds, long epochMillis) {}
}

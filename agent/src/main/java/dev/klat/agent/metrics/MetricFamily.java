package dev.klat.agent.metrics;

import dev.klat.model.MetricDef;
import java.util.ArrayList;
import java.util.List;

/**
 * One metric and its data points at one collection, as the encoder needs them. Separate from {@link
 * MetricDef} so that the exporter can report its own health under names model/ does not define.
 * Confined to the exporter thread.
 */
public final class MetricFamily {

  public final String name;
  public final String description;
  public final String unit;
  public final MetricDef.Instrument instrument;
  public final List<Point> points = new ArrayList<>();

  public MetricFamily(
      String name, String description, String unit, MetricDef.Instrument instrument) {
    this.name = name;
    this.description = description;
    this.unit = unit;
    this.instrument = instrument;
  }

  static MetricFamily of(MetricDef def) {
    return new MetricFamily(def.name(), def.description(), def.unit().otelUnit(), def.instrument());
  }

  void addHistogram(
      String[] tagKeys,
      String[] tagValues,
      long startEpochNanos,
      LatencyHistogram.Snapshot histogram) {
    points.add(new Point(tagKeys, tagValues, startEpochNanos, histogram, 0, 0));
  }

  public void addLong(String[] tagKeys, String[] tagValues, long startEpochNanos, long value) {
    points.add(new Point(tagKeys, tagValues, startEpochNanos, null, value, 0));
  }

  void addDouble(String[] tagKeys, String[] tagValues, long startEpochNanos, double value) {
    points.add(new Point(tagKeys, tagValues, startEpochNanos, null, 0, value));
  }

  /** Returns a family with the same metric and a sub-range of the points. */
  public MetricFamily slice(int fromIndex, int toIndex) {
    MetricFamily slice = new MetricFamily(name, description, unit, instrument);
    slice.points.addAll(points.subList(fromIndex, toIndex));
    return slice;
  }

  /** One series' value: a histogram, a long or a double, as the family's instrument says. */
  public static final class Point {
    public final String[] tagKeys;
    public final String[] tagValues;
    public final long startEpochNanos;
    public final LatencyHistogram.Snapshot histogram;
    public final long longValue;
    public final double doubleValue;

    Point(
        String[] tagKeys,
        String[] tagValues,
        long startEpochNanos,
        LatencyHistogram.Snapshot histogram,
        long longValue,
        double doubleValue) {
      this.tagKeys = tagKeys;
      this.tagValues = tagValues;
      this.startEpochNanos = startEpochNanos;
      this.histogram = histogram;
      this.longValue = longValue;
      this.doubleValue = doubleValue;
    }
  }
}

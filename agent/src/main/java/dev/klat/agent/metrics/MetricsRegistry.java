package dev.klat.agent.metrics;

import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.MetricDef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gets or creates the instruments of klat's metrics, one per {@link MetricDef} and tag values.
 *
 * <p>Callers look an instrument up once, at setup (when a producer or consumer is created, or a
 * topic first seen), and keep the handle; the hot path records into the handle and never calls the
 * registry. Thread-safe.
 *
 * <p>Bounded: at most {@code maxSeries} series are created. Past that, every new series request
 * gets the metric's shared overflow instrument, whose tags all have the value {@value
 * #OVERFLOW_TAG_VALUE}, and is counted in {@link #overflowCount()}; so an unexpected tag
 * cardinality (thousands of topics) costs bounded memory and still shows in the totals.
 */
public final class MetricsRegistry {

  /** The default maximum number of series, {@value}. */
  public static final int DEFAULT_MAX_SERIES = 2_000;

  /** {@value}: the value of every tag of an overflow instrument. */
  public static final String OVERFLOW_TAG_VALUE = "_other";

  private final int maxSeries;
  private final TimeSource time;
  private final ConcurrentHashMap<SeriesKey, Series> series = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<MetricDef, Series> overflowSeries = new ConcurrentHashMap<>();
  private final AtomicInteger seriesCount = new AtomicInteger();
  private final AtomicLong overflowCount = new AtomicLong();

  /** Creates a registry of at most {@value #DEFAULT_MAX_SERIES} series. */
  public MetricsRegistry() {
    this(DEFAULT_MAX_SERIES);
  }

  /**
   * Creates a registry.
   *
   * @param maxSeries the maximum number of series, not counting the overflow instruments; {@code >=
   *     0}
   * @throws IllegalArgumentException if {@code maxSeries} is negative
   */
  public MetricsRegistry(int maxSeries) {
    this(maxSeries, TimeSource.SYSTEM);
  }

  /** Creates a registry whose series start at {@code time}'s instants (the exporter's clock). */
  public MetricsRegistry(int maxSeries, TimeSource time) {
    if (maxSeries < 0) {
      throw new IllegalArgumentException("maxSeries must be >= 0, got " + maxSeries);
    }
    this.maxSeries = maxSeries;
    this.time = time;
  }

  /**
   * Returns the histogram of a latency metric for the given tag values, creating it on first use.
   *
   * @param def a metric whose instrument is {@link MetricDef.Instrument#HISTOGRAM} and unit {@link
   *     MetricDef.Unit#SECONDS}
   * @param tagValues one value per {@link MetricDef#tagKeys()} entry, in that order; null stands
   *     for the empty string
   * @return the histogram, the same instance for equal arguments
   * @throws IllegalArgumentException if {@code def} is null or not a latency histogram, or the
   *     number of tag values differs from the number of tag keys
   */
  public LatencyHistogram histogram(MetricDef def, String... tagValues) {
    if (def != null && def.unit() != MetricDef.Unit.SECONDS) {
      // The histogram records nanoseconds and exports seconds.
      throw new IllegalArgumentException(def.name() + " is not in seconds");
    }
    return (LatencyHistogram) instrument(def, MetricDef.Instrument.HISTOGRAM, tagValues);
  }

  /**
   * Returns the counter of a metric for the given tag values, creating it on first use.
   *
   * @param def a metric whose instrument is {@link MetricDef.Instrument#COUNTER}
   * @param tagValues one value per {@link MetricDef#tagKeys()} entry, in that order; null stands
   *     for the empty string
   * @return the counter, the same instance for equal arguments
   * @throws IllegalArgumentException if {@code def} is null or not a counter, or the number of tag
   *     values differs from the number of tag keys
   */
  public Counter counter(MetricDef def, String... tagValues) {
    return (Counter) instrument(def, MetricDef.Instrument.COUNTER, tagValues);
  }

  /**
   * Returns the gauge of a metric for the given tag values, creating it on first use.
   *
   * @param def a metric whose instrument is {@link MetricDef.Instrument#GAUGE}
   * @param tagValues one value per {@link MetricDef#tagKeys()} entry, in that order; null stands
   *     for the empty string
   * @return the gauge, the same instance for equal arguments
   * @throws IllegalArgumentException if {@code def} is null or not a gauge, or the number of tag
   *     values differs from the number of tag keys
   */
  public Gauge gauge(MetricDef def, String... tagValues) {
    return (Gauge) instrument(def, MetricDef.Instrument.GAUGE, tagValues);
  }

  /**
   * Returns how many series exist, not counting overflow instruments.
   *
   * @return at most the registry's {@code maxSeries}
   */
  public int seriesCount() {
    return seriesCount.get();
  }

  /**
   * Returns how many requests for a new series were answered with an overflow instrument because
   * the registry was full.
   *
   * @return the number of refused series requests
   */
  public long overflowCount() {
    return overflowCount.get();
  }

  private Object instrument(MetricDef def, MetricDef.Instrument expected, String[] tagValues) {
    if (def == null) {
      throw new IllegalArgumentException("def is null");
    }
    if (def.instrument() != expected) {
      throw new IllegalArgumentException(
          def.name() + " is a " + def.instrument() + ", not a " + expected);
    }
    int given = tagValues == null ? 0 : tagValues.length;
    if (given != def.tagKeys().size()) {
      throw new IllegalArgumentException(
          def.name() + " has tags " + def.tagKeys() + " but " + given + " values were given");
    }
    String[] values = new String[given];
    for (int i = 0; i < given; i++) {
      values[i] = tagValues[i] == null ? "" : tagValues[i];
    }
    SeriesKey key = new SeriesKey(def, values);
    Series existing = series.get(key);
    if (existing != null) {
      return existing.instrument;
    }
    if (!reserveSeries()) {
      overflowCount.incrementAndGet();
      return overflowSeries.computeIfAbsent(def, this::newOverflowSeries).instrument;
    }
    Series created = new Series(def, values, newInstrument(expected), time.epochNanos());
    Series raced = series.putIfAbsent(key, created);
    if (raced != null) {
      seriesCount.decrementAndGet();
      return raced.instrument;
    }
    return created.instrument;
  }

  private boolean reserveSeries() {
    while (true) {
      int current = seriesCount.get();
      if (current >= maxSeries) {
        return false;
      }
      if (seriesCount.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  private Series newOverflowSeries(MetricDef def) {
    String[] values = new String[def.tagKeys().size()];
    Arrays.fill(values, OVERFLOW_TAG_VALUE);
    return new Series(def, values, newInstrument(def.instrument()), time.epochNanos());
  }

  private static Object newInstrument(MetricDef.Instrument instrument) {
    switch (instrument) {
      case HISTOGRAM:
        return new LatencyHistogram();
      case COUNTER:
        return new Counter();
      case GAUGE:
        return new Gauge();
      default:
        throw new IllegalArgumentException("unknown instrument " + instrument);
    }
  }

  /**
   * Reads every series into families for the encoder, one per metric. Empty histograms and gauges
   * without a value are left out; counters at 0 are kept, so that a rate starts from 0.
   */
  public List<MetricFamily> collect() {
    Map<MetricDef, MetricFamily> families = new IdentityHashMap<>();
    List<MetricFamily> ordered = new ArrayList<>();
    List<Series> all = new ArrayList<>(series.values());
    all.addAll(overflowSeries.values());
    for (Series s : all) {
      MetricFamily family = families.get(s.def);
      if (family == null) {
        family = MetricFamily.of(s.def);
        families.put(s.def, family);
        ordered.add(family);
      }
      String[] keys = s.def.tagKeys().toArray(new String[0]);
      if (s.instrument instanceof LatencyHistogram) {
        LatencyHistogram.Snapshot snapshot = ((LatencyHistogram) s.instrument).snapshot();
        if (snapshot.count() > 0) {
          family.addHistogram(keys, s.tagValues, s.startEpochNanos, snapshot);
        }
      } else if (s.instrument instanceof Counter) {
        family.addLong(keys, s.tagValues, s.startEpochNanos, ((Counter) s.instrument).value());
      } else {
        double value = ((Gauge) s.instrument).value();
        if (!Double.isNaN(value)) {
          family.addDouble(keys, s.tagValues, s.startEpochNanos, value);
        }
      }
    }
    return ordered;
  }

  private static final class Series {
    final MetricDef def;
    final String[] tagValues;
    final Object instrument;
    final long startEpochNanos;

    Series(MetricDef def, String[] tagValues, Object instrument, long startEpochNanos) {
      this.def = def;
      this.tagValues = tagValues;
      this.instrument = instrument;
      this.startEpochNanos = startEpochNanos;
    }
  }

  private static final class SeriesKey {
    private final MetricDef def;
    private final String[] tagValues;
    private final int hash;

    SeriesKey(MetricDef def, String[] tagValues) {
      this.def = def;
      this.tagValues = tagValues;
      this.hash = 31 * System.identityHashCode(def) + Arrays.hashCode(tagValues);
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof SeriesKey)) {
        return false;
      }
      SeriesKey other = (SeriesKey) o;
      return def == other.def && Arrays.equals(tagValues, other.tagValues);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}

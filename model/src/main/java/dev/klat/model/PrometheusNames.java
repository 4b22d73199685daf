package dev.klat.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The names a Prometheus exporter gives klat's metrics: the OpenTelemetry-to-Prometheus conversion
 * (also what Micrometer's Prometheus registry does).
 */
final class PrometheusNames {

  private PrometheusNames() {}

  /**
   * Dots become underscores, then the unit suffix, then {@code _total} for counters; a suffix the
   * name already ends with is not repeated.
   */
  static String of(String name, MetricDef.Instrument instrument, MetricDef.Unit unit) {
    String base = name.replace('.', '_');
    String suffix = unit.prometheusSuffix();
    if (!suffix.isEmpty() && !base.endsWith("_" + suffix)) {
      base = base + "_" + suffix;
    }
    if (instrument == MetricDef.Instrument.COUNTER && !base.endsWith("_total")) {
      base = base + "_total";
    }
    return base;
  }

  /** Every series name of the metric in a scrape: a histogram's buckets, count and sum too. */
  static List<String> series(String prometheusName, MetricDef.Instrument instrument) {
    if (instrument != MetricDef.Instrument.HISTOGRAM) {
      return Collections.singletonList(prometheusName);
    }
    return Collections.unmodifiableList(
        Arrays.asList(
            prometheusName,
            prometheusName + "_bucket",
            prometheusName + "_count",
            prometheusName + "_sum"));
  }
}

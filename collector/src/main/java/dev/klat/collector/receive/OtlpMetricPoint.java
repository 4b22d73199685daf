package dev.klat.collector.receive;

import java.util.Map;

/** One OTLP data point the collector reads, from protobuf or JSON. */
final class OtlpMetricPoint {
  enum Type {
    GAUGE,
    SUM,
    HISTOGRAM
  }

  static final int TEMPORALITY_DELTA = 1;
  static final int TEMPORALITY_CUMULATIVE = 2;

  String name = "";
  Type type;
  int temporality;
  boolean monotonic;
  Map<String, String> attributes = Map.of();
  Map<String, Object> resource = Map.of();
  long startNanos;
  long timeNanos;
  double value;
  long count;
  double sum;
  double[] bounds = new double[0];
  long[] bucketCounts = new long[0];
}

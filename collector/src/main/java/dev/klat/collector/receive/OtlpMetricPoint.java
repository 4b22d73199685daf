package dev.klat.collector.receive;

import java.util.Map;

/** One OTLP data point the collector reads, from protobuf or JSON. */
final class OtlpMetricPoint {
  enum Type {
    GAUGE,
    SUM,
    HISTOGRAM
  }

  /**
   * The most data points one request may carry, so that what its decoding holds is bounded in count
   * as well as by the body's bytes: an empty data point is 2 bytes of protobuf or 3 of JSON and
   * costs about 100 bytes decoded. An agent exports a few hundred per request; the merger keeps at
   * most {@code metrics.max-streams} streams in all.
   */
  static final int MAX_PER_REQUEST = 65_536;

  static final int TEMPORALITY_DELTA = 1;
  static final int TEMPORALITY_CUMULATIVE = 2;

  /** Why a request with more than {@link #MAX_PER_REQUEST} points is refused. */
  static MalformedException tooMany() {
    return new MalformedException(
        "more than " + MAX_PER_REQUEST + " data points in one request: split it");
  }

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

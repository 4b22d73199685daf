package dev.klat.collector.receive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes {@code ExportMetricsServiceRequest} (field numbers of opentelemetry-proto 1.x) into the
 * agents' data points, reading only the fields the collector uses and skipping the rest, like
 * {@link OtlpProtobuf} for traces.
 */
final class OtlpMetricsProtobuf {
  private OtlpMetricsProtobuf() {}

  static List<OtlpMetricPoint> decodeMetrics(byte[] body, int length) throws MalformedException {
    List<OtlpMetricPoint> points = new ArrayList<>();
    ProtoReader r = new ProtoReader(body, length);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        resourceMetrics(r, points);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return points;
  }

  private static void resourceMetrics(ProtoReader r, List<OtlpMetricPoint> out)
      throws MalformedException {
    Map<String, Object> resource = Map.of();
    int first = out.size();
    while (r.hasMore()) {
      int tag = r.tag();
      int field = tag >>> 3;
      if (field == 1 && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
        int outer = r.push();
        resource = merged(resource, OtlpProtobuf.resource(r));
        r.pop(outer);
      } else if (field == 2 && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
        int outer = r.push();
        scopeMetrics(r, out);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    for (int i = first; i < out.size(); i++) {
      out.get(i).resource = resource;
    }
  }

  /**
   * A second {@code resource} field of one {@code ResourceMetrics} merges into the first, as
   * protobuf merges a repeated message field: its attributes add to the first's, a repeated key
   * taking the later value. The broker probe's forwarder appends its attributes to a client's
   * payload this way (KIP-714, docs/client-telemetry.md).
   */
  static Map<String, Object> merged(Map<String, Object> first, Map<String, Object> second) {
    if (first.isEmpty()) {
      return second;
    }
    Map<String, Object> out = new java.util.LinkedHashMap<>(first);
    out.putAll(second);
    return out;
  }

  private static void scopeMetrics(ProtoReader r, List<OtlpMetricPoint> out)
      throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        metric(r, out);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  private static void metric(ProtoReader r, List<OtlpMetricPoint> out) throws MalformedException {
    String name = "";
    int first = out.size();
    while (r.hasMore()) {
      int tag = r.tag();
      int field = tag >>> 3;
      boolean message = (tag & 7) == ProtoReader.LENGTH_DELIMITED;
      if (field == 1 && message) {
        name = r.string();
      } else if (message && (field == 5 || field == 7 || field == 9)) {
        OtlpMetricPoint.Type type =
            field == 5
                ? OtlpMetricPoint.Type.GAUGE
                : field == 7 ? OtlpMetricPoint.Type.SUM : OtlpMetricPoint.Type.HISTOGRAM;
        int outer = r.push();
        data(r, type, out);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    for (int i = first; i < out.size(); i++) {
      out.get(i).name = name;
    }
  }

  private static void data(ProtoReader r, OtlpMetricPoint.Type type, List<OtlpMetricPoint> out)
      throws MalformedException {
    int first = out.size();
    int temporality = 0;
    boolean monotonic = false;
    while (r.hasMore()) {
      int tag = r.tag();
      int field = tag >>> 3;
      if (field == 1 && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
        if (out.size() >= OtlpMetricPoint.MAX_PER_REQUEST) {
          throw OtlpMetricPoint.tooMany();
        }
        int outer = r.push();
        OtlpMetricPoint point = point(r, type == OtlpMetricPoint.Type.HISTOGRAM);
        point.type = type;
        out.add(point);
        r.pop(outer);
      } else if (field == 2
          && (tag & 7) == ProtoReader.VARINT
          && type != OtlpMetricPoint.Type.GAUGE) {
        temporality = (int) r.varint();
      } else if (field == 3
          && (tag & 7) == ProtoReader.VARINT
          && type == OtlpMetricPoint.Type.SUM) {
        monotonic = r.varint() != 0;
      } else {
        r.skip(tag);
      }
    }
    for (int i = first; i < out.size(); i++) {
      out.get(i).temporality = temporality;
      out.get(i).monotonic = monotonic;
    }
  }

  // NumberDataPoint and HistogramDataPoint share the times; their attributes have different
  // field numbers.
  private static OtlpMetricPoint point(ProtoReader r, boolean histogram) throws MalformedException {
    OtlpMetricPoint p = new OtlpMetricPoint();
    Map<String, Object> attributes = new HashMap<>();
    LongList counts = new LongList();
    LongList boundBits = new LongList();
    int attributesField = histogram ? 9 : 7;
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      int field = tag >>> 3;
      if (field == attributesField) {
        OtlpProtobuf.expect(wire, ProtoReader.LENGTH_DELIMITED, "attributes");
        int outer = r.push();
        OtlpProtobuf.keyValue(r, attributes);
        r.pop(outer);
      } else if (field == 2) {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "start_time_unix_nano");
        p.startNanos = r.fixed64();
      } else if (field == 3) {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "time_unix_nano");
        p.timeNanos = r.fixed64();
      } else if (histogram) {
        histogramField(r, tag, p, counts, boundBits);
      } else {
        numberField(r, tag, p);
      }
    }
    p.attributes = OtlpProtobuf.strings(attributes);
    if (histogram) {
      p.bucketCounts = counts.toArray();
      long[] bits = boundBits.toArray();
      p.bounds = new double[bits.length];
      for (int i = 0; i < bits.length; i++) {
        p.bounds[i] = Double.longBitsToDouble(bits[i]);
      }
    }
    return p;
  }

  private static void numberField(ProtoReader r, int tag, OtlpMetricPoint p)
      throws MalformedException {
    int wire = tag & 7;
    switch (tag >>> 3) {
      case 4 -> {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "as_double");
        p.value = r.doubleValue();
      }
      case 6 -> {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "as_int");
        p.value = r.fixed64();
      }
      default -> r.skip(tag);
    }
  }

  private static void histogramField(
      ProtoReader r, int tag, OtlpMetricPoint p, LongList counts, LongList boundBits)
      throws MalformedException {
    int wire = tag & 7;
    switch (tag >>> 3) {
      case 4 -> {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "count");
        p.count = r.fixed64();
      }
      case 5 -> {
        OtlpProtobuf.expect(wire, ProtoReader.FIXED64, "sum");
        p.sum = r.doubleValue();
      }
      case 6 -> repeatedFixed64(r, wire, "bucket_counts", counts);
      case 7 -> repeatedFixed64(r, wire, "explicit_bounds", boundBits);
      default -> r.skip(tag);
    }
  }

  // Packed (the proto3 default) or one value per tag, as a decoder must accept both.
  private static void repeatedFixed64(ProtoReader r, int wire, String field, LongList into)
      throws MalformedException {
    if (wire == ProtoReader.LENGTH_DELIMITED) {
      int outer = r.push();
      while (r.hasMore()) {
        into.add(r.fixed64());
      }
      r.pop(outer);
    } else {
      OtlpProtobuf.expect(wire, ProtoReader.FIXED64, field);
      into.add(r.fixed64());
    }
  }

  private static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = java.util.Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    long[] toArray() {
      return java.util.Arrays.copyOf(values, size);
    }
  }
}

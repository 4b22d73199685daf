package dev.klat.collector.receive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes {@code ExportTraceServiceRequest} and {@code ExportMetricsServiceRequest} (field numbers
 * of opentelemetry-proto 1.x), reading only the fields the collector uses and skipping the rest, so
 * that fields added by newer senders are ignored as protobuf intends.
 */
final class OtlpProtobuf {
  private OtlpProtobuf() {}

  static List<OtlpSpan> decodeTraces(byte[] body, int length) throws MalformedException {
    List<OtlpSpan> spans = new ArrayList<>();
    ProtoReader r = new ProtoReader(body, length);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        resourceSpans(r, spans);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return spans;
  }

  private static void resourceSpans(ProtoReader r, List<OtlpSpan> out) throws MalformedException {
    Map<String, Object> resource = Map.of();
    int first = out.size();
    while (r.hasMore()) {
      int tag = r.tag();
      int field = tag >>> 3;
      if (field == 1 && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
        int outer = r.push();
        resource = resource(r);
        r.pop(outer);
      } else if (field == 2 && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
        int outer = r.push();
        scopeSpans(r, out);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    // The resource may come after the scopes on the wire.
    for (int i = first; i < out.size(); i++) {
      out.get(i).resource = resource;
    }
  }

  private static Map<String, Object> resource(ProtoReader r) throws MalformedException {
    Map<String, Object> attributes = new LinkedHashMap<>();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        keyValue(r, attributes);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return attributes;
  }

  private static void scopeSpans(ProtoReader r, List<OtlpSpan> out) throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        out.add(span(r));
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  private static OtlpSpan span(ProtoReader r) throws MalformedException {
    OtlpSpan span = new OtlpSpan();
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 1 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "trace_id");
          long[] id = r.id(2);
          span.traceIdHigh = id[0];
          span.traceIdLow = id[1];
        }
        case 2 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "span_id");
          span.spanId = r.id(1)[0];
        }
        case 4 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "parent_span_id");
          span.parentSpanId = r.id(1)[0];
        }
        case 5 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "name");
          span.name = r.string();
        }
        case 6 -> {
          expect(wire, ProtoReader.VARINT, "kind");
          span.kind = (int) r.varint();
        }
        case 7 -> {
          expect(wire, ProtoReader.FIXED64, "start_time_unix_nano");
          span.startNanos = r.fixed64();
        }
        case 8 -> {
          expect(wire, ProtoReader.FIXED64, "end_time_unix_nano");
          span.endNanos = r.fixed64();
        }
        case 9 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "attributes");
          int outer = r.push();
          keyValue(r, span.attributes);
          r.pop(outer);
        }
        default -> r.skip(tag);
      }
    }
    return span;
  }

  private static void keyValue(ProtoReader r, Map<String, Object> into) throws MalformedException {
    String key = null;
    Object value = null;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        key = r.key();
      } else if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        value = anyValue(r);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    if (key != null && value != null) {
      into.put(key, value);
    }
  }

  private static Object anyValue(ProtoReader r) throws MalformedException {
    Object value = null;
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 1 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "string_value");
          value = r.string();
        }
        case 2 -> {
          expect(wire, ProtoReader.VARINT, "bool_value");
          value = r.varint() != 0;
        }
        case 3 -> {
          expect(wire, ProtoReader.VARINT, "int_value");
          value = r.varint();
        }
        case 4 -> {
          expect(wire, ProtoReader.FIXED64, "double_value");
          value = r.doubleValue();
        }
        default -> r.skip(tag);
      }
    }
    return value;
  }

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
        resource = resource(r);
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
        int outer = r.push();
        OtlpMetricPoint point =
            type == OtlpMetricPoint.Type.HISTOGRAM ? histogramPoint(r) : numberPoint(r);
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

  private static OtlpMetricPoint numberPoint(ProtoReader r) throws MalformedException {
    OtlpMetricPoint p = new OtlpMetricPoint();
    Map<String, Object> attributes = new HashMap<>();
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 7 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "attributes");
          int outer = r.push();
          keyValue(r, attributes);
          r.pop(outer);
        }
        case 2 -> {
          expect(wire, ProtoReader.FIXED64, "start_time_unix_nano");
          p.startNanos = r.fixed64();
        }
        case 3 -> {
          expect(wire, ProtoReader.FIXED64, "time_unix_nano");
          p.timeNanos = r.fixed64();
        }
        case 4 -> {
          expect(wire, ProtoReader.FIXED64, "as_double");
          p.value = r.doubleValue();
        }
        case 6 -> {
          expect(wire, ProtoReader.FIXED64, "as_int");
          p.value = r.fixed64();
        }
        default -> r.skip(tag);
      }
    }
    p.attributes = strings(attributes);
    return p;
  }

  private static OtlpMetricPoint histogramPoint(ProtoReader r) throws MalformedException {
    OtlpMetricPoint p = new OtlpMetricPoint();
    Map<String, Object> attributes = new HashMap<>();
    LongList counts = new LongList();
    List<Double> bounds = new ArrayList<>();
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 9 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "attributes");
          int outer = r.push();
          keyValue(r, attributes);
          r.pop(outer);
        }
        case 2 -> {
          expect(wire, ProtoReader.FIXED64, "start_time_unix_nano");
          p.startNanos = r.fixed64();
        }
        case 3 -> {
          expect(wire, ProtoReader.FIXED64, "time_unix_nano");
          p.timeNanos = r.fixed64();
        }
        case 4 -> {
          expect(wire, ProtoReader.FIXED64, "count");
          p.count = r.fixed64();
        }
        case 5 -> {
          expect(wire, ProtoReader.FIXED64, "sum");
          p.sum = r.doubleValue();
        }
        case 6 -> {
          if (wire == ProtoReader.LENGTH_DELIMITED) {
            int outer = r.push();
            while (r.hasMore()) {
              counts.add(r.fixed64());
            }
            r.pop(outer);
          } else {
            expect(wire, ProtoReader.FIXED64, "bucket_counts");
            counts.add(r.fixed64());
          }
        }
        case 7 -> {
          if (wire == ProtoReader.LENGTH_DELIMITED) {
            int outer = r.push();
            while (r.hasMore()) {
              bounds.add(r.doubleValue());
            }
            r.pop(outer);
          } else {
            expect(wire, ProtoReader.FIXED64, "explicit_bounds");
            bounds.add(r.doubleValue());
          }
        }
        default -> r.skip(tag);
      }
    }
    p.attributes = strings(attributes);
    p.bucketCounts = counts.toArray();
    p.bounds = new double[bounds.size()];
    for (int i = 0; i < p.bounds.length; i++) {
      p.bounds[i] = bounds.get(i);
    }
    return p;
  }

  static Map<String, String> strings(Map<String, Object> attributes) {
    if (attributes.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>(attributes.size() * 2);
    attributes.forEach((k, v) -> out.put(k, String.valueOf(v)));
    return out;
  }

  private static void expect(int wire, int expected, String field) throws MalformedException {
    if (wire != expected) {
      throw new MalformedException("field " + field + " has wire type " + wire);
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

package dev.klat.collector.receive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Decodes OTLP/JSON: the protobuf JSON mapping with OTLP's exceptions (trace and span ids as hex
 * strings, enums as integers). 64-bit integers may be strings or numbers, as the mapping allows;
 * keys are lowerCamelCase, and the original snake_case names are accepted too. Jackson parses the
 * body into maps and lists (integers as {@link Long}, or {@link BigInteger} beyond it), strictly:
 * nothing may follow the value, and nesting is limited so that a hostile body cannot exhaust the
 * stack.
 */
final class OtlpJson {
  static final int MAX_DEPTH = 64;

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_LONG_FOR_INTS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  static {
    JSON.getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build());
  }

  private OtlpJson() {}

  private static Object parse(byte[] body, int length) throws MalformedException {
    try {
      return JSON.readValue(body, 0, length, Object.class);
    } catch (JsonProcessingException e) {
      throw new MalformedException("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new MalformedException("invalid JSON: " + e.getMessage());
    }
  }

  static List<OtlpSpan> decodeTraces(byte[] body, int length) throws MalformedException {
    List<OtlpSpan> out = new ArrayList<>();
    Map<String, Object> root = object(parse(body, length), "request");
    for (Object rs : list(root, "resourceSpans", "resource_spans")) {
      Map<String, Object> resourceSpans = object(rs, "resourceSpans");
      Map<String, Object> resource = resource(resourceSpans);
      for (Object ss : list(resourceSpans, "scopeSpans", "scope_spans")) {
        for (Object s : list(object(ss, "scopeSpans"), "spans", "spans")) {
          OtlpSpan span = span(object(s, "span"));
          span.resource = resource;
          out.add(span);
        }
      }
    }
    return out;
  }

  private static OtlpSpan span(Map<String, Object> json) throws MalformedException {
    OtlpSpan span = new OtlpSpan();
    long[] traceId = hexId(get(json, "traceId", "trace_id"), 2, "traceId");
    span.traceIdHigh = traceId[0];
    span.traceIdLow = traceId[1];
    span.spanId = hexId(get(json, "spanId", "span_id"), 1, "spanId")[0];
    span.parentSpanId = hexId(get(json, "parentSpanId", "parent_span_id"), 1, "parentSpanId")[0];
    span.kind = kind(json.get("kind"));
    span.startNanos = int64(get(json, "startTimeUnixNano", "start_time_unix_nano"), "startTime");
    span.endNanos = int64(get(json, "endTimeUnixNano", "end_time_unix_nano"), "endTime");
    attributes(json, span.attributes::put);
    return span;
  }

  private static int kind(Object value) throws MalformedException {
    if (value == null) {
      return 0;
    }
    if (value instanceof Long l) {
      return (int) (long) l;
    }
    if (value instanceof String s) {
      return switch (s) {
        case "SPAN_KIND_INTERNAL" -> 1;
        case "SPAN_KIND_SERVER" -> 2;
        case "SPAN_KIND_CLIENT" -> 3;
        case "SPAN_KIND_PRODUCER" -> 4;
        case "SPAN_KIND_CONSUMER" -> 5;
        default -> 0;
      };
    }
    throw new MalformedException("kind is not an integer");
  }

  static List<OtlpMetricPoint> decodeMetrics(byte[] body, int length) throws MalformedException {
    List<OtlpMetricPoint> out = new ArrayList<>();
    Map<String, Object> root = object(parse(body, length), "request");
    for (Object rm : list(root, "resourceMetrics", "resource_metrics")) {
      Map<String, Object> resourceMetrics = object(rm, "resourceMetrics");
      Map<String, Object> resource = resource(resourceMetrics);
      for (Object sm : list(resourceMetrics, "scopeMetrics", "scope_metrics")) {
        for (Object m : list(object(sm, "scopeMetrics"), "metrics", "metrics")) {
          Map<String, Object> metric = object(m, "metric");
          Object name = metric.get("name");
          int first = out.size();
          data(metric.get("gauge"), OtlpMetricPoint.Type.GAUGE, out);
          data(metric.get("sum"), OtlpMetricPoint.Type.SUM, out);
          data(metric.get("histogram"), OtlpMetricPoint.Type.HISTOGRAM, out);
          for (int i = first; i < out.size(); i++) {
            out.get(i).name = name instanceof String n ? n : "";
            out.get(i).resource = resource;
          }
        }
      }
    }
    return out;
  }

  private static void data(Object value, OtlpMetricPoint.Type type, List<OtlpMetricPoint> out)
      throws MalformedException {
    if (value == null) {
      return;
    }
    Map<String, Object> data = object(value, type.name().toLowerCase());
    Object temporality = get(data, "aggregationTemporality", "aggregation_temporality");
    Object monotonic = get(data, "isMonotonic", "is_monotonic");
    for (Object dp : list(data, "dataPoints", "data_points")) {
      Map<String, Object> json = object(dp, "dataPoint");
      OtlpMetricPoint p = new OtlpMetricPoint();
      p.type = type;
      p.temporality = temporality == null ? 0 : temporality(temporality);
      p.monotonic = Boolean.TRUE.equals(monotonic);
      p.startNanos = int64(get(json, "startTimeUnixNano", "start_time_unix_nano"), "startTime");
      p.timeNanos = int64(get(json, "timeUnixNano", "time_unix_nano"), "time");
      Map<String, Object> attributes = new HashMap<>();
      attributes(json, attributes::put);
      p.attributes = OtlpProtobuf.strings(attributes);
      if (type == OtlpMetricPoint.Type.HISTOGRAM) {
        p.count = int64(json.get("count"), "count");
        p.sum = number(json.get("sum"), "sum");
        List<Object> counts = list(json, "bucketCounts", "bucket_counts");
        p.bucketCounts = new long[counts.size()];
        for (int i = 0; i < counts.size(); i++) {
          p.bucketCounts[i] = int64(counts.get(i), "bucketCounts");
        }
        List<Object> bounds = list(json, "explicitBounds", "explicit_bounds");
        p.bounds = new double[bounds.size()];
        for (int i = 0; i < bounds.size(); i++) {
          p.bounds[i] = number(bounds.get(i), "explicitBounds");
        }
      } else {
        Object asInt = get(json, "asInt", "as_int");
        p.value =
            asInt != null ? int64(asInt, "asInt") : number(get(json, "asDouble", "as_double"), "v");
      }
      out.add(p);
    }
  }

  private static int temporality(Object value) throws MalformedException {
    if (value instanceof Long l) {
      return (int) (long) l;
    }
    if ("AGGREGATION_TEMPORALITY_DELTA".equals(value)) {
      return OtlpMetricPoint.TEMPORALITY_DELTA;
    }
    if ("AGGREGATION_TEMPORALITY_CUMULATIVE".equals(value)) {
      return OtlpMetricPoint.TEMPORALITY_CUMULATIVE;
    }
    throw new MalformedException("bad aggregationTemporality");
  }

  private static Map<String, Object> resource(Map<String, Object> parent)
      throws MalformedException {
    Object resource = parent.get("resource");
    if (resource == null) {
      return Map.of();
    }
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes(object(resource, "resource"), attributes::put);
    return attributes;
  }

  private static void attributes(Map<String, Object> json, BiConsumer<String, Object> into)
      throws MalformedException {
    for (Object kv : list(json, "attributes", "attributes")) {
      Map<String, Object> keyValue = object(kv, "attribute");
      Object key = keyValue.get("key");
      Object value = keyValue.get("value");
      if (!(key instanceof String k) || value == null) {
        continue;
      }
      Map<String, Object> any = object(value, "value");
      Object v;
      if ((v = get(any, "stringValue", "string_value")) != null) {
        into.accept(k, String.valueOf(v));
      } else if ((v = get(any, "intValue", "int_value")) != null) {
        into.accept(k, int64(v, k));
      } else if ((v = get(any, "doubleValue", "double_value")) != null) {
        into.accept(k, number(v, k));
      } else if ((v = get(any, "boolValue", "bool_value")) != null) {
        into.accept(k, Boolean.TRUE.equals(v));
      }
    }
  }

  private static Object get(Map<String, Object> json, String camel, String snake) {
    Object v = json.get(camel);
    return v != null ? v : json.get(snake);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object value, String what) throws MalformedException {
    if (value instanceof Map<?, ?> map) {
      return (Map<String, Object>) map;
    }
    throw new MalformedException(what + " is not a JSON object");
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Map<String, Object> json, String camel, String snake)
      throws MalformedException {
    Object value = get(json, camel, snake);
    if (value == null) {
      return List.of();
    }
    if (value instanceof List<?> list) {
      return (List<Object>) list;
    }
    throw new MalformedException(camel + " is not a JSON array");
  }

  private static long int64(Object value, String what) throws MalformedException {
    if (value == null) {
      return 0;
    }
    if (value instanceof Long l) {
      return l;
    }
    if (value instanceof String s) {
      try {
        // fixed64 fields are unsigned.
        return s.startsWith("-") ? Long.parseLong(s) : Long.parseUnsignedLong(s);
      } catch (NumberFormatException e) {
        throw new MalformedException(what + " is not an integer: " + s);
      }
    }
    // A fixed64 above Long.MAX_VALUE, written as a number: kept as its unsigned bits.
    if (value instanceof BigInteger b && b.signum() > 0 && b.bitLength() <= 64) {
      return b.longValue();
    }
    if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) < 0x1p63) {
      return (long) (double) d;
    }
    throw new MalformedException(what + " is not an integer");
  }

  private static double number(Object value, String what) throws MalformedException {
    if (value == null) {
      return 0;
    }
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    if (value instanceof String s) {
      switch (s) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
          try {
            return Double.parseDouble(s);
          } catch (NumberFormatException e) {
            throw new MalformedException(what + " is not a number: " + s);
          }
      }
    }
    throw new MalformedException(what + " is not a number");
  }

  private static long[] hexId(Object value, int words, String what) throws MalformedException {
    long[] out = new long[words];
    if (value == null || "".equals(value)) {
      return out;
    }
    if (!(value instanceof String s) || s.length() != 16 * words) {
      throw new MalformedException(what + " is not " + 16 * words + " hex digits");
    }
    for (int w = 0; w < words; w++) {
      try {
        out[w] = Long.parseUnsignedLong(s.substring(16 * w, 16 * w + 16), 16);
      } catch (NumberFormatException e) {
        throw new MalformedException(what + " is not hex");
      }
    }
    return out;
  }
}

package dev.klat.collector.receive;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Decodes OTLP/JSON: the protobuf JSON mapping with OTLP's exceptions (trace and span ids as hex
 * strings, enums as integers). 64-bit integers may be strings or numbers, as the mapping allows;
 * keys are lowerCamelCase, and the original snake_case names are accepted too. Strictly: nothing
 * may follow the value, and nesting is limited so that a hostile body cannot exhaust the stack.
 *
 * <p>Memory: the body is read token by token with Jackson's streaming parser, never built as a
 * tree, so that what a body costs beyond its own bytes is what the collector keeps of it: one
 * reused span (like {@link OtlpProtobuf}), each resource's attributes, and at most {@link
 * OtlpMetricPoint#MAX_PER_REQUEST} data points. Unknown fields and values the collector does not
 * read (array and key-list attribute values, say) are skipped without being materialised. Trace
 * bodies are read twice: first for the resources, which may follow their spans in the body, so that
 * every span leaves complete as soon as it is read.
 */
final class OtlpJson {
  static final int MAX_DEPTH = 64;

  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
          .build();

  // What scalar() returns for an object or array where a scalar was expected: skipped, and refused
  // by the conversion that wanted the scalar, with its own message.
  private static final Object STRUCTURE = new Object();

  private OtlpJson() {}

  /**
   * Decodes every span of an {@code ExportTraceServiceRequest} into {@code sink}, in order, like
   * {@link OtlpProtobuf#decodeTraces}: a malformed body throws after the spans before the fault
   * went to the sink.
   */
  static void decodeTraces(byte[] body, int length, OtlpProtobuf.SpanSink sink)
      throws MalformedException {
    // Plain loops, no lambdas per element: a body of empty objects then allocates nothing per
    // element (JsonBodyMemoryTest measures it).
    OtlpSpan span = new OtlpSpan();
    try (JsonParser p = open(body, length)) {
      object(p, "request");
      while (nextField(p)) {
        if (!is(p.currentName(), "resourceSpans", "resource_spans") || !array(p, "resourceSpans")) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
          resourceSpans(p, body, span, sink);
        }
      }
      end(p);
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  /**
   * One {@code ResourceSpans}. Its spans leave complete as soon as they are read, so they need
   * their resource first: when the resource comes first (as OpenTelemetry's SDKs write it) the
   * spans are read in the same pass; a scope list before the resource is skipped, its bytes read
   * again once the resource is known. Only one resource is held at a time.
   */
  private static void resourceSpans(
      JsonParser p, byte[] body, OtlpSpan span, OtlpProtobuf.SpanSink sink)
      throws IOException, MalformedException {
    object(p, "resourceSpans");
    Map<String, Object> resource = Map.of();
    boolean resourceRead = false;
    long[] later = null; // start and end offsets of scope lists that came before the resource
    int laterCount = 0;
    while (nextField(p)) {
      String name = p.currentName();
      if (name.equals("resource")) {
        resource = resource(p);
        resourceRead = true;
      } else if (!is(name, "scopeSpans", "scope_spans") || !array(p, "scopeSpans")) {
        p.skipChildren();
      } else if (resourceRead) {
        scopeSpansList(p, body, 0, span, resource, sink);
      } else {
        long start = p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        long end = p.currentTokenLocation().getByteOffset() + 1;
        if (later == null) {
          later = new long[2];
        } else if (laterCount * 2 == later.length) {
          later = Arrays.copyOf(later, later.length * 2);
        }
        later[laterCount * 2] = start;
        later[laterCount * 2 + 1] = end;
        laterCount++;
      }
    }
    for (int i = 0; i < laterCount; i++) {
      int start = (int) later[2 * i];
      try (JsonParser again = JSON.createParser(body, start, (int) later[2 * i + 1] - start)) {
        again.nextToken();
        // Jackson counts a sub-range's offsets from its start.
        scopeSpansList(again, body, start, span, resource, sink);
      }
    }
  }

  // The elements of a scopeSpans array, the parser on its start.
  private static void scopeSpansList(
      JsonParser p,
      byte[] body,
      int base,
      OtlpSpan span,
      Map<String, Object> resource,
      OtlpProtobuf.SpanSink sink)
      throws IOException, MalformedException {
    while (p.nextToken() != JsonToken.END_ARRAY) {
      scopeSpans(p, body, base, span, resource, sink);
    }
  }

  /**
   * One {@code ScopeSpans}: its spans need their scope, so a spans array before the scope is
   * skipped and read again once the object has ended, as {@link #resourceSpans} does for the
   * resource; {@code base} is where the parser's input starts in {@code body}.
   */
  private static void scopeSpans(
      JsonParser p,
      byte[] body,
      int base,
      OtlpSpan span,
      Map<String, Object> resource,
      OtlpProtobuf.SpanSink sink)
      throws IOException, MalformedException {
    object(p, "scopeSpans");
    span.scope("", 0, "");
    boolean scopeRead = false;
    long[] later = null; // start and end offsets of spans arrays that came before the scope
    int laterCount = 0;
    while (nextField(p)) {
      String name = p.currentName();
      if (name.equals("scope")) {
        scope(p, span);
        scopeRead = true;
      } else if (!name.equals("spans") || !array(p, "spans")) {
        p.skipChildren();
      } else if (scopeRead) {
        spans(p, span, resource, sink);
      } else {
        long start = base + p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        long end = base + p.currentTokenLocation().getByteOffset() + 1;
        if (later == null) {
          later = new long[2];
        } else if (laterCount * 2 == later.length) {
          later = Arrays.copyOf(later, later.length * 2);
        }
        later[laterCount * 2] = start;
        later[laterCount * 2 + 1] = end;
        laterCount++;
      }
    }
    for (int i = 0; i < laterCount; i++) {
      int start = (int) later[2 * i];
      try (JsonParser again = JSON.createParser(body, start, (int) later[2 * i + 1] - start)) {
        again.nextToken();
        spans(again, span, resource, sink);
      }
    }
  }

  // The elements of a spans array, the parser on its start.
  private static void spans(
      JsonParser p, OtlpSpan span, Map<String, Object> resource, OtlpProtobuf.SpanSink sink)
      throws IOException, MalformedException {
    while (p.nextToken() != JsonToken.END_ARRAY) {
      span.clear();
      span(p, span);
      span.resource = resource;
      sink.accept(span);
    }
  }

  // InstrumentationScope: name and version; a name longer than OtlpSpan.MAX_SCOPE_BYTES in UTF-8
  // is kept as its length only, a version that long is dropped. A null scope has neither.
  private static void scope(JsonParser p, OtlpSpan span) throws IOException, MalformedException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      span.scope("", 0, "");
      return;
    }
    object(p, "scope");
    String name = "";
    int nameBytes = 0;
    String version = "";
    while (nextField(p)) {
      switch (p.currentName()) {
        case "name" -> {
          Object value = scalar(p);
          String text = value instanceof String t ? t : "";
          nameBytes = utf8Length(text);
          name = nameBytes <= OtlpSpan.MAX_SCOPE_BYTES ? text : null;
        }
        case "version" -> {
          Object value = scalar(p);
          String text = value instanceof String t ? t : "";
          version = utf8Length(text) <= OtlpSpan.MAX_SCOPE_BYTES ? text : "";
        }
        default -> p.skipChildren();
      }
    }
    span.scope(name, nameBytes, version);
  }

  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
    }
    return bytes;
  }

  private static void span(JsonParser p, OtlpSpan span) throws IOException, MalformedException {
    object(p, "span");
    while (nextField(p)) {
      switch (p.currentName()) {
        case "traceId", "trace_id" -> {
          long[] traceId = hexId(scalar(p), 2, "traceId");
          span.traceIdHigh = traceId[0];
          span.traceIdLow = traceId[1];
        }
        case "spanId", "span_id" -> span.spanId = hexId(scalar(p), 1, "spanId")[0];
        case "parentSpanId", "parent_span_id" ->
            span.parentSpanId = hexId(scalar(p), 1, "parentSpanId")[0];
        case "kind" -> span.kind = kind(scalar(p));
        case "startTimeUnixNano", "start_time_unix_nano" ->
            span.startNanos = int64(scalar(p), "startTime");
        case "endTimeUnixNano", "end_time_unix_nano" -> span.endNanos = int64(scalar(p), "endTime");
        case "attributes" -> attributes(p, span.attributes::put);
        case "links" -> links(p, span);
        case "status" -> span.statusCode = statusCode(p);
        default -> p.skipChildren();
      }
    }
  }

  // Span.links: at most RecordLinks.MAX_LINKS read, the rest checked as JSON, skipped and counted.
  private static void links(JsonParser p, OtlpSpan span) throws IOException, MalformedException {
    if (!array(p, "links")) {
      return;
    }
    while (p.nextToken() != JsonToken.END_ARRAY) {
      object(p, "link");
      KlatAttributes into = span.nextLink();
      if (into == null) {
        p.skipChildren();
        continue;
      }
      int index = span.linkCount - 1;
      while (nextField(p)) {
        switch (p.currentName()) {
          case "traceId", "trace_id" -> {
            long[] traceId = hexId(scalar(p), 2, "link traceId");
            span.linkTraceIdHigh[index] = traceId[0];
            span.linkTraceIdLow[index] = traceId[1];
          }
          case "spanId", "span_id" ->
              span.linkSpanId[index] = hexId(scalar(p), 1, "link spanId")[0];
          case "attributes" -> attributes(p, into::put);
          default -> p.skipChildren();
        }
      }
    }
  }

  // Status.code, as an integer or its enum name; the message skipped. A null status has no code.
  private static int statusCode(JsonParser p) throws IOException, MalformedException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      return 0;
    }
    object(p, "status");
    int code = 0;
    while (nextField(p)) {
      if (!p.currentName().equals("code")) {
        p.skipChildren();
        continue;
      }
      Object value = scalar(p);
      if (value instanceof Long l) {
        code = (int) (long) l;
      } else if (value instanceof String s) {
        code =
            switch (s) {
              case "STATUS_CODE_OK" -> 1;
              case "STATUS_CODE_ERROR" -> OtlpSpan.STATUS_ERROR;
              default -> 0;
            };
      } else if (value != null) {
        throw new MalformedException("status code is not an integer");
      }
    }
    return code;
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

  /**
   * Decodes the data points of an {@code ExportMetricsServiceRequest}, at most {@link
   * OtlpMetricPoint#MAX_PER_REQUEST} of them.
   */
  static List<OtlpMetricPoint> decodeMetrics(byte[] body, int length) throws MalformedException {
    List<OtlpMetricPoint> out = new ArrayList<>();
    try (JsonParser p = open(body, length)) {
      object(p, "request");
      while (nextField(p)) {
        if (!is(p.currentName(), "resourceMetrics", "resource_metrics")
            || !array(p, "resourceMetrics")) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
          resourceMetrics(p, out);
        }
      }
      end(p);
    } catch (IOException e) {
      throw malformed(e);
    }
    return out;
  }

  private static void resourceMetrics(JsonParser p, List<OtlpMetricPoint> out)
      throws IOException, MalformedException {
    int first = out.size();
    Map<String, Object> resource = Map.of();
    object(p, "resourceMetrics");
    while (nextField(p)) {
      String name = p.currentName();
      if (name.equals("resource")) {
        // A repeated key merges like protobuf's repeated message field (OtlpMetricsProtobuf).
        resource = OtlpMetricsProtobuf.merged(resource, resource(p));
      } else if (is(name, "scopeMetrics", "scope_metrics") && array(p, "scopeMetrics")) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
          object(p, "scopeMetrics");
          while (nextField(p)) {
            if (p.currentName().equals("metrics") && array(p, "metrics")) {
              while (p.nextToken() != JsonToken.END_ARRAY) {
                metric(p, out);
              }
            } else {
              p.skipChildren();
            }
          }
        }
      } else {
        p.skipChildren();
      }
    }
    for (int i = first; i < out.size(); i++) {
      out.get(i).resource = resource;
    }
  }

  private static void metric(JsonParser p, List<OtlpMetricPoint> out)
      throws IOException, MalformedException {
    int first = out.size();
    String metricName = "";
    object(p, "metric");
    while (nextField(p)) {
      switch (p.currentName()) {
        case "name" -> metricName = scalar(p) instanceof String n ? n : "";
        case "gauge" -> data(p, OtlpMetricPoint.Type.GAUGE, out);
        case "sum" -> data(p, OtlpMetricPoint.Type.SUM, out);
        case "histogram" -> data(p, OtlpMetricPoint.Type.HISTOGRAM, out);
        default -> p.skipChildren();
      }
    }
    for (int i = first; i < out.size(); i++) {
      out.get(i).name = metricName;
    }
  }

  private static void data(JsonParser p, OtlpMetricPoint.Type type, List<OtlpMetricPoint> out)
      throws IOException, MalformedException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      return;
    }
    int first = out.size();
    Object temporality = null;
    Object monotonic = null;
    object(p, type.name().toLowerCase(Locale.ROOT));
    while (nextField(p)) {
      switch (p.currentName()) {
        case "aggregationTemporality", "aggregation_temporality" -> temporality = scalar(p);
        case "isMonotonic", "is_monotonic" -> monotonic = scalar(p);
        case "dataPoints", "data_points" -> {
          if (array(p, "dataPoints")) {
            while (p.nextToken() != JsonToken.END_ARRAY) {
              if (out.size() >= OtlpMetricPoint.MAX_PER_REQUEST) {
                throw OtlpMetricPoint.tooMany();
              }
              out.add(point(p, type));
            }
          }
        }
        default -> p.skipChildren();
      }
    }
    if (out.size() > first) {
      int t = temporality == null ? 0 : temporality(temporality);
      boolean m = Boolean.TRUE.equals(monotonic);
      for (int i = first; i < out.size(); i++) {
        out.get(i).temporality = t;
        out.get(i).monotonic = m;
      }
    }
  }

  private static OtlpMetricPoint point(JsonParser p, OtlpMetricPoint.Type type)
      throws IOException, MalformedException {
    OtlpMetricPoint point = new OtlpMetricPoint();
    point.type = type;
    boolean histogram = type == OtlpMetricPoint.Type.HISTOGRAM;
    Map<String, Object> attributes = new HashMap<>();
    Object asInt = null;
    Object asDouble = null;
    object(p, "dataPoint");
    while (nextField(p)) {
      String name = p.currentName();
      switch (name) {
        case "startTimeUnixNano", "start_time_unix_nano" ->
            point.startNanos = int64(scalar(p), "startTime");
        case "timeUnixNano", "time_unix_nano" -> point.timeNanos = int64(scalar(p), "time");
        case "attributes" -> attributes(p, attributes::put);
        case "asInt", "as_int" -> asInt = scalar(p);
        case "asDouble", "as_double" -> asDouble = scalar(p);
        default -> {
          if (histogram) {
            histogramField(p, name, point);
          } else {
            p.skipChildren();
          }
        }
      }
    }
    point.attributes = OtlpProtobuf.strings(attributes);
    if (!histogram) {
      point.value = asInt != null ? int64(asInt, "asInt") : number(asDouble, "v");
    }
    return point;
  }

  private static void histogramField(JsonParser p, String name, OtlpMetricPoint point)
      throws IOException, MalformedException {
    switch (name) {
      case "count" -> point.count = int64(scalar(p), "count");
      case "sum" -> point.sum = number(scalar(p), "sum");
      case "bucketCounts", "bucket_counts" -> point.bucketCounts = longs(p, "bucketCounts");
      case "explicitBounds", "explicit_bounds" -> point.bounds = doubles(p, "explicitBounds");
      default -> p.skipChildren();
    }
  }

  private static long[] longs(JsonParser p, String what) throws IOException, MalformedException {
    long[] values = new long[8];
    int size = 0;
    if (array(p, what)) {
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (size == values.length) {
          values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = int64(scalar(p), what);
      }
    }
    return Arrays.copyOf(values, size);
  }

  private static double[] doubles(JsonParser p, String what)
      throws IOException, MalformedException {
    double[] values = new double[8];
    int size = 0;
    if (array(p, what)) {
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (size == values.length) {
          values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = number(scalar(p), what);
      }
    }
    return Arrays.copyOf(values, size);
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

  // A resource's attributes; a null resource has none.
  private static Map<String, Object> resource(JsonParser p) throws IOException, MalformedException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      return Map.of();
    }
    object(p, "resource");
    Map<String, Object> attributes = null;
    while (nextField(p)) {
      if (!p.currentName().equals("attributes")) {
        p.skipChildren();
        continue;
      }
      // Made at the first attribute: a resource without any shares the empty map.
      Map<String, Object> into = attributes == null ? new LinkedHashMap<>() : attributes;
      attributes(p, into::put);
      if (!into.isEmpty()) {
        attributes = into;
      }
    }
    return attributes == null ? Map.of() : attributes;
  }

  /**
   * The attributes' scalar values (string, integer, double, boolean, the first present in that
   * order); the key may come before or after the value, so the raw scalars wait for the end of the
   * key-value.
   */
  private static void attributes(JsonParser p, BiConsumer<String, Object> into)
      throws IOException, MalformedException {
    if (!array(p, "attributes")) {
      return;
    }
    while (p.nextToken() != JsonToken.END_ARRAY) {
      object(p, "attribute");
      Object key = null;
      boolean present = false;
      Object string = null;
      Object integer = null;
      Object real = null;
      Object bool = null;
      while (nextField(p)) {
        String name = p.currentName();
        if (name.equals("key")) {
          key = scalar(p);
        } else if (!name.equals("value")) {
          p.skipChildren();
        } else if (p.currentToken() == JsonToken.VALUE_NULL) {
          present = false;
        } else {
          present = true;
          string = null;
          integer = null;
          real = null;
          bool = null;
          object(p, "value");
          while (nextField(p)) {
            switch (p.currentName()) {
              case "stringValue", "string_value" -> string = scalar(p);
              case "intValue", "int_value" -> integer = scalar(p);
              case "doubleValue", "double_value" -> real = scalar(p);
              case "boolValue", "bool_value" -> bool = scalar(p);
              default -> p.skipChildren(); // arrayValue, kvlistValue, bytesValue: not read
            }
          }
        }
      }
      if (!(key instanceof String k) || !present) {
        continue;
      }
      if (string != null && string != STRUCTURE) {
        into.accept(k, String.valueOf(string));
      } else if (integer != null) {
        into.accept(k, int64(integer, k));
      } else if (real != null) {
        into.accept(k, number(real, k));
      } else if (bool != null) {
        into.accept(k, Boolean.TRUE.equals(bool));
      }
    }
  }

  // --- the streaming skeleton: each reader leaves the parser on the last token of its value ---

  private static JsonParser open(byte[] body, int length) throws MalformedException {
    try {
      JsonParser p = JSON.createParser(body, 0, length);
      if (p.nextToken() == null) {
        throw new MalformedException("invalid JSON: no content");
      }
      return p;
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  private static void end(JsonParser p) throws IOException, MalformedException {
    if (p.nextToken() != null) {
      throw new MalformedException("invalid JSON: trailing content after the request");
    }
  }

  private static MalformedException malformed(IOException e) {
    return new MalformedException(
        "invalid JSON: "
            + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
  }

  /** Checks that the current token starts an object, whose fields {@link #nextField} reads. */
  private static void object(JsonParser p, String what) throws MalformedException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      throw new MalformedException(what + " is not a JSON object");
    }
  }

  /**
   * Moves to the next field's value (its name is {@link JsonParser#currentName()}), or returns
   * false at the end of the object. The caller reads the value whole or skips it.
   */
  private static boolean nextField(JsonParser p) throws IOException {
    if (p.nextToken() != JsonToken.FIELD_NAME) {
      return false;
    }
    p.nextToken();
    return true;
  }

  /**
   * Whether the current token starts an array, whose elements follow; false for null (no elements,
   * nothing to skip).
   */
  private static boolean array(JsonParser p, String what) throws MalformedException {
    JsonToken token = p.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return false;
    }
    if (token != JsonToken.START_ARRAY) {
      throw new MalformedException(what + " is not a JSON array");
    }
    return true;
  }

  /**
   * The scalar at the current token: integers as {@link Long} ({@link BigInteger} beyond it), other
   * numbers as {@link Double}; {@link #STRUCTURE} for an object or array, which is skipped.
   */
  private static Object scalar(JsonParser p) throws IOException {
    return switch (p.currentToken()) {
      case VALUE_STRING -> p.getText();
      case VALUE_NUMBER_INT ->
          p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              ? p.getBigIntegerValue()
              : (Object) p.getLongValue();
      case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> {
        p.skipChildren();
        yield STRUCTURE;
      }
    };
  }

  private static boolean is(String name, String camel, String snake) {
    return name.equals(camel) || name.equals(snake);
  }

  // --- conversions of scalars, as the protobuf JSON mapping allows them ---

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

package dev.klat.agent.export;

import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.metrics.MetricFamily;
import dev.klat.agentcore.otlp.ClockSync;
import dev.klat.agentcore.otlp.ProtoWriter;
import dev.klat.model.AttributeDef;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes spans and metrics as OTLP protobuf {@code ExportTraceServiceRequest} and {@code
 * ExportMetricsServiceRequest} messages, by hand, with the field numbers of opentelemetry-proto 1.x
 * (the tests parse the output with the generated classes). Confined to the exporter thread: it
 * reuses one buffer.
 */
final class OtlpEncoder {

  /** The instrumentation scope name of everything the agent emits, {@value}. */
  static final String SCOPE_NAME = "dev.klat.agent";

  /**
   * Longer strings are cut, so that one exception message or client id cannot blow up a request;
   * topics (at most 249 characters) and the ids klat emits stay far below it.
   */
  static final int MAX_STRING_CHARS = 4096;

  static final int AGGREGATION_TEMPORALITY_CUMULATIVE = 2;
  static final int STATUS_CODE_ERROR = 2;

  // A buffer that grew past this for one large request is dropped before the next, not kept.
  private static final int KEEP_BUFFER_BYTES = 1 << 20;
  private static final int INITIAL_BUFFER_BYTES = 64 * 1024;

  // ExportXServiceRequest.resource_x = 1; ResourceX.resource = 1, .scope_x = 2;
  // ScopeX.scope = 1, .spans/.metrics = 2.
  private static final int REQUEST_RESOURCE_DATA = 1;
  private static final int RESOURCE_DATA_RESOURCE = 1;
  private static final int RESOURCE_DATA_SCOPE_DATA = 2;
  private static final int SCOPE_DATA_SCOPE = 1;
  private static final int SCOPE_DATA_ITEMS = 2;
  private static final int SPAN_ATTRIBUTES = 9;
  private static final int LINK_ATTRIBUTES = 4;

  private static final byte[] EXPLICIT_BOUNDS_FIELD;

  static {
    ProtoWriter w = new ProtoWriter(8 * LatencyHistogram.BUCKET_COUNT + 8);
    w.packedDoubleField(7, LatencyHistogram.boundsSecondsShared());
    EXPLICIT_BOUNDS_FIELD = w.toByteArray();
  }

  private static final byte[] CLOCK_OFFSET_KEY =
      SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name().getBytes(StandardCharsets.UTF_8);
  private static final byte[] CLOCK_UNCERTAINTY_KEY =
      SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name().getBytes(StandardCharsets.UTF_8);

  private final byte[] resourceMessage;
  private final byte[] scopeMessage;
  // Each attribute's key field, encoded once per attribute definition (the model defines a few
  // dozen): encoding every key's UTF-8 for every span was a string copy per attribute. By id, an
  // array index, below KEY_FIELDS_BY_ID; an identity map lookup per attribute was 3% of the CPU of
  // a producer sampling every record (JFR).
  private static final int KEY_FIELDS_BY_ID = 256;
  private final byte[][] keyFieldsById = new byte[KEY_FIELDS_BY_ID][];
  private final IdentityHashMap<AttributeDef, byte[]> keyFields = new IdentityHashMap<>();
  private final ClockSync clockSync;
  private ProtoWriter out = new ProtoWriter(INITIAL_BUFFER_BYTES);

  /**
   * @param resourceAttributes resource attributes in order; values are String, Long, Boolean or
   *     Double (anything else is written as its string form)
   * @param scopeVersion the agent version, for the instrumentation scope
   */
  OtlpEncoder(Map<String, Object> resourceAttributes, String scopeVersion) {
    this(resourceAttributes, scopeVersion, null);
  }

  /**
   * @param resourceAttributes resource attributes in order; values are String, Long, Boolean or
   *     Double (anything else is written as its string form)
   * @param scopeVersion the agent version, for the instrumentation scope
   * @param clockSync whose best sample, when there is one, is added to the resource of every
   *     request; null for none
   */
  OtlpEncoder(Map<String, Object> resourceAttributes, String scopeVersion, ClockSync clockSync) {
    this.clockSync = clockSync;
    ProtoWriter w = new ProtoWriter(1024);
    for (Map.Entry<String, Object> attribute : resourceAttributes.entrySet()) {
      // Resource.attributes = 1
      int kv = w.beginMessage(1);
      w.stringField(1, attribute.getKey());
      writeAnyValue(w, attribute.getValue());
      w.endMessage(kv);
    }
    resourceMessage = w.toByteArray();
    w.reset();
    // InstrumentationScope.name = 1, .version = 2
    w.stringField(1, SCOPE_NAME);
    w.stringField(2, scopeVersion);
    scopeMessage = w.toByteArray();
  }

  /**
   * Encodes an {@code ExportTraceServiceRequest}. Spans with a zero trace id or span id are left
   * out; callers filter and count them first.
   */
  byte[] encodeSpans(List<SpanRecord> spans) {
    return writeSpans(spans).toByteArray();
  }

  /**
   * Encodes an {@code ExportTraceServiceRequest} as {@link #encodeSpans} does, into this encoder's
   * buffer, which is returned and valid until the next call: the exporter compresses straight from
   * it, rather than from a copy of every request.
   */
  ProtoWriter writeSpans(List<SpanRecord> spans) {
    ProtoWriter w = start();
    int resourceSpans = w.beginMessage(REQUEST_RESOURCE_DATA);
    writeResource(w);
    int scopeSpans = w.beginMessage(RESOURCE_DATA_SCOPE_DATA);
    w.bytesField(SCOPE_DATA_SCOPE, scopeMessage);
    for (SpanRecord span : spans) {
      if (span.hasValidIds()) {
        writeSpan(w, span);
      }
    }
    w.endMessage(scopeSpans);
    w.endMessage(resourceSpans);
    return w;
  }

  private void writeResource(ProtoWriter w) {
    if (clockSync == null || !clockSync.hasSample()) {
      w.bytesField(RESOURCE_DATA_RESOURCE, resourceMessage);
      return;
    }
    int resource = w.beginMessage(RESOURCE_DATA_RESOURCE);
    w.raw(resourceMessage, 0, resourceMessage.length);
    writeLongAttribute(w, CLOCK_OFFSET_KEY, clockSync.offsetNanos());
    writeLongAttribute(w, CLOCK_UNCERTAINTY_KEY, clockSync.uncertaintyNanos());
    w.endMessage(resource);
  }

  private static void writeLongAttribute(ProtoWriter w, byte[] key, long value) {
    // Resource.attributes = 1; KeyValue.key = 1, .value = 2; AnyValue.int_value = 3.
    int kv = w.beginMessage(1);
    w.bytesField(1, key);
    int any = w.beginMessage(2);
    w.varintField(3, value);
    w.endMessage(any);
    w.endMessage(kv);
  }

  private void writeSpan(ProtoWriter w, SpanRecord span) {
    int mark = w.beginMessage(SCOPE_DATA_ITEMS);
    w.traceIdField(1, span.traceIdHigh(), span.traceIdLow());
    w.spanIdField(2, span.spanId());
    if (span.parentSpanId() != 0) {
      w.spanIdField(4, span.parentSpanId());
    }
    w.stringField(5, truncate(span.name()));
    if (span.kind() != 0) {
      w.varintField(6, span.kind());
    }
    w.fixed64Field(7, span.startEpochNanos());
    w.fixed64Field(8, span.endEpochNanos());
    for (int i = 0; i < span.attributeCount(); i++) {
      writeAttribute(w, keyField(span.attributeKey(i)), span, i);
    }
    if (span.droppedAttributeCount() > 0) {
      w.varintField(10, span.droppedAttributeCount());
    }
    for (int i = 0; i < span.linkCount(); i++) {
      writeLink(w, span, i);
    }
    if (span.droppedLinkCount() > 0) {
      w.varintField(14, span.droppedLinkCount());
    }
    if (span.statusError()) {
      int status = w.beginMessage(15);
      if (!span.statusMessage().isEmpty()) {
        w.stringField(2, truncate(span.statusMessage()));
      }
      w.varintField(3, STATUS_CODE_ERROR);
      w.endMessage(status);
    }
    w.endMessage(mark);
  }

  /**
   * Span.links = 13: Link {trace_id = 1, span_id = 2, trace_state = 3 (none), attributes = 4,
   * dropped_attributes_count = 5, flags = 6 (none: the W3C flags of a linked span are sampled,
   * which every linked klat span is)}; opentelemetry-proto 1.x, {@code trace/v1/trace.proto}.
   */
  private void writeLink(ProtoWriter w, SpanRecord span, int i) {
    int link = w.beginMessage(13);
    w.traceIdField(1, span.linkTraceIdHigh(i), span.linkTraceIdLow(i));
    w.spanIdField(2, span.linkSpanId(i));
    SpanRecord attributes = span.linkAttributes(i);
    if (attributes != null) {
      for (int k = 0; k < attributes.attributeCount(); k++) {
        writeAttribute(w, LINK_ATTRIBUTES, keyField(attributes.attributeKey(k)), attributes, k);
      }
      if (attributes.droppedAttributeCount() > 0) {
        w.varintField(5, attributes.droppedAttributeCount());
      }
    }
    w.endMessage(link);
  }

  /**
   * Span.attributes = 9: KeyValue {key = 1, value = 2}, AnyValue {string = 1, bool = 2, int = 3,
   * double = 4}. The two lengths are computed before writing: beginMessage and endMessage would
   * reserve five bytes for each and then shift the small message back over four of them, two copies
   * per attribute of every span.
   */
  private static void writeAttribute(ProtoWriter w, byte[] keyField, SpanRecord span, int i) {
    writeAttribute(w, SPAN_ATTRIBUTES, keyField, span, i);
  }

  /** One KeyValue as field {@code fieldNumber}: Span.attributes = 9, Link.attributes = 4. */
  private static void writeAttribute(
      ProtoWriter w, int fieldNumber, byte[] keyField, SpanRecord span, int i) {
    byte type = span.attributeType(i);
    long bits = span.attributeBits(i);
    String string = null;
    byte[] utf8 = null;
    int valueLength;
    switch (type) {
      case SpanRecord.TYPE_STRING:
        string = truncate(span.attributeString(i));
        int stringLength = ProtoWriter.asciiLength(string);
        if (stringLength < 0) {
          utf8 = string.getBytes(StandardCharsets.UTF_8);
          stringLength = utf8.length;
        }
        valueLength = 1 + ProtoWriter.varintSize(stringLength) + stringLength;
        break;
      case SpanRecord.TYPE_BOOLEAN:
        valueLength = 2;
        break;
      case SpanRecord.TYPE_LONG:
        valueLength = 1 + ProtoWriter.varintSize(bits);
        break;
      default:
        valueLength = 9;
        break;
    }
    w.tag(fieldNumber, ProtoWriter.WIRE_LENGTH_DELIMITED);
    w.varint(keyField.length + 1 + ProtoWriter.varintSize(valueLength) + valueLength);
    w.raw(keyField, 0, keyField.length);
    w.tag(2, ProtoWriter.WIRE_LENGTH_DELIMITED);
    w.varint(valueLength);
    switch (type) {
      case SpanRecord.TYPE_STRING:
        if (utf8 != null) {
          w.bytesField(1, utf8);
        } else {
          w.tag(1, ProtoWriter.WIRE_LENGTH_DELIMITED);
          w.varint(string.length());
          w.ascii(string);
        }
        break;
      case SpanRecord.TYPE_BOOLEAN:
        w.boolField(2, bits != 0);
        break;
      case SpanRecord.TYPE_LONG:
        w.varintField(3, bits);
        break;
      default:
        w.fixed64Field(4, bits);
        break;
    }
  }

  // KeyValue.key = 1.
  private byte[] keyField(AttributeDef key) {
    int id = key.id();
    boolean byId = id >= 0 && id < KEY_FIELDS_BY_ID;
    byte[] field = byId ? keyFieldsById[id] : keyFields.get(key);
    if (field == null) {
      ProtoWriter w = new ProtoWriter(16 + key.name().length() * 3);
      w.stringField(1, key.name());
      field = w.toByteArray();
      if (byId) {
        keyFieldsById[id] = field;
      } else {
        keyFields.put(key, field);
      }
    }
    return field;
  }

  /**
   * Encodes an {@code ExportMetricsServiceRequest} of every family that has points.
   *
   * @return the request, or null if no family has a point
   */
  byte[] encodeMetrics(List<MetricFamily> families, long timeEpochNanos) {
    ProtoWriter w = writeMetrics(families, timeEpochNanos);
    return w == null ? null : w.toByteArray();
  }

  /**
   * Encodes as {@link #encodeMetrics} does, into this encoder's buffer, which is returned and valid
   * until the next call; null if no family has a point.
   */
  ProtoWriter writeMetrics(List<MetricFamily> families, long timeEpochNanos) {
    boolean any = false;
    for (MetricFamily family : families) {
      any |= !family.points.isEmpty();
    }
    if (!any) {
      return null;
    }
    ProtoWriter w = start();
    int resourceMetrics = w.beginMessage(REQUEST_RESOURCE_DATA);
    writeResource(w);
    int scopeMetrics = w.beginMessage(RESOURCE_DATA_SCOPE_DATA);
    w.bytesField(SCOPE_DATA_SCOPE, scopeMessage);
    for (MetricFamily family : families) {
      if (!family.points.isEmpty()) {
        writeMetric(w, family, timeEpochNanos);
      }
    }
    w.endMessage(scopeMetrics);
    w.endMessage(resourceMetrics);
    return w;
  }

  private static void writeMetric(ProtoWriter w, MetricFamily family, long timeEpochNanos) {
    int metric = w.beginMessage(SCOPE_DATA_ITEMS);
    w.stringField(1, family.name);
    w.stringField(2, family.description);
    w.stringField(3, family.unit);
    if (family.instrument == MetricDef.Instrument.HISTOGRAM) {
      int histogram = w.beginMessage(9);
      for (MetricFamily.Point point : family.points) {
        writeHistogramPoint(w, point, timeEpochNanos);
      }
      w.varintField(2, AGGREGATION_TEMPORALITY_CUMULATIVE);
      w.endMessage(histogram);
    } else if (family.instrument == MetricDef.Instrument.COUNTER) {
      int sum = w.beginMessage(7);
      for (MetricFamily.Point point : family.points) {
        writeNumberPoint(w, point, timeEpochNanos, true);
      }
      w.varintField(2, AGGREGATION_TEMPORALITY_CUMULATIVE);
      w.boolField(3, true);
      w.endMessage(sum);
    } else {
      int gauge = w.beginMessage(5);
      for (MetricFamily.Point point : family.points) {
        writeNumberPoint(w, point, timeEpochNanos, false);
      }
      w.endMessage(gauge);
    }
    w.endMessage(metric);
  }

  private static void writeHistogramPoint(
      ProtoWriter w, MetricFamily.Point point, long timeEpochNanos) {
    LatencyHistogram.Snapshot snapshot = point.histogram;
    int mark = w.beginMessage(1);
    writeTags(w, 9, point);
    w.fixed64Field(2, point.startEpochNanos);
    w.fixed64Field(3, timeEpochNanos);
    w.fixed64Field(4, snapshot.count());
    w.doubleField(5, snapshot.sumSeconds());
    long[] counts = snapshot.bucketCountsShared();
    w.packedFixed64Field(6, counts, counts.length);
    w.raw(EXPLICIT_BOUNDS_FIELD, 0, EXPLICIT_BOUNDS_FIELD.length);
    w.endMessage(mark);
  }

  private static void writeNumberPoint(
      ProtoWriter w, MetricFamily.Point point, long timeEpochNanos, boolean cumulative) {
    int mark = w.beginMessage(1);
    writeTags(w, 7, point);
    // A gauge has no start: its value is not accumulated over an interval.
    if (cumulative) {
      w.fixed64Field(2, point.startEpochNanos);
    }
    w.fixed64Field(3, timeEpochNanos);
    // as_int and as_double are a oneof: written even when 0, so that the receiver sees which.
    if (cumulative) {
      w.fixed64Field(6, point.longValue);
    } else {
      w.doubleField(4, point.doubleValue);
    }
    w.endMessage(mark);
  }

  private static void writeTags(ProtoWriter w, int fieldNumber, MetricFamily.Point point) {
    for (int i = 0; i < point.tagKeys.length; i++) {
      int kv = w.beginMessage(fieldNumber);
      w.stringField(1, point.tagKeys[i]);
      int any = w.beginMessage(2);
      w.stringField(1, truncate(point.tagValues[i]));
      w.endMessage(any);
      w.endMessage(kv);
    }
  }

  private static void writeAnyValue(ProtoWriter w, Object value) {
    // KeyValue.value = 2; AnyValue string = 1, bool = 2, int = 3, double = 4.
    int any = w.beginMessage(2);
    if (value instanceof Long || value instanceof Integer) {
      w.varintField(3, ((Number) value).longValue());
    } else if (value instanceof Boolean) {
      w.boolField(2, (Boolean) value);
    } else if (value instanceof Double) {
      w.doubleField(4, (Double) value);
    } else {
      w.stringField(1, truncate(String.valueOf(value)));
    }
    w.endMessage(any);
  }

  /** Splits families so that no request carries more than {@code maxPoints} data points. */
  static List<List<MetricFamily>> chunk(List<MetricFamily> families, int maxPoints) {
    List<List<MetricFamily>> chunks = new ArrayList<>();
    List<MetricFamily> current = new ArrayList<>();
    int points = 0;
    for (MetricFamily family : families) {
      int from = 0;
      int size = family.points.size();
      while (from < size) {
        int take = Math.min(size - from, maxPoints - points);
        current.add(from == 0 && take == size ? family : family.slice(from, from + take));
        from += take;
        points += take;
        if (points == maxPoints) {
          chunks.add(current);
          current = new ArrayList<>();
          points = 0;
        }
      }
    }
    if (points > 0) {
      chunks.add(current);
    }
    return chunks;
  }

  static String truncate(String value) {
    if (value.length() <= MAX_STRING_CHARS) {
      return value;
    }
    int end = MAX_STRING_CHARS;
    // Never split a surrogate pair: half of one would be encoded as '?'.
    if (Character.isHighSurrogate(value.charAt(end - 1))) {
      end--;
    }
    return value.substring(0, end);
  }

  private ProtoWriter start() {
    // A buffer that one large request grew is kept until the next request only.
    if (out.capacity() > KEEP_BUFFER_BYTES) {
      out = new ProtoWriter(INITIAL_BUFFER_BYTES);
    }
    out.reset();
    return out;
  }
}

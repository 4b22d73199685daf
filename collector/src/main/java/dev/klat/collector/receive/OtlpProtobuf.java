package dev.klat.collector.receive;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decodes {@code ExportTraceServiceRequest} ({@link OtlpMetricsProtobuf}: the metrics) (field
 * numbers of opentelemetry-proto 1.x), reading only the fields the collector uses and skipping the
 * rest, so that fields added by newer senders are ignored as protobuf intends.
 */
final class OtlpProtobuf {
  private OtlpProtobuf() {}

  /** Receives the spans of a request as they are decoded. */
  interface SpanSink {
    /**
     * Takes one span; {@code span} is reused for the next one, so read it now and keep nothing of
     * it but its strings and its resource.
     */
    void accept(OtlpSpan span);
  }

  /**
   * Decodes every span of the request into {@code sink}, in order. A malformed body throws after
   * the spans before the fault went to the sink: a sink that acts on spans must hold its actions
   * until this returns.
   */
  static void decodeTraces(byte[] body, int length, SpanSink sink) throws MalformedException {
    ProtoReader r = new ProtoReader(body, length);
    Scratch scratch = new Scratch();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        resourceSpans(r, sink, scratch);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  private static void resourceSpans(ProtoReader r, SpanSink sink, Scratch scratch)
      throws MalformedException {
    // The resource may come after the scopes on the wire: find it first (the last one wins), so
    // that every span leaves complete as soon as it is read.
    Map<String, Object> resource = Map.of();
    int start = r.position();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        resource = resource(r);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    r.rewind(start);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        scopeSpans(r, sink, scratch, resource);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  static Map<String, Object> resource(ProtoReader r) throws MalformedException {
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

  private static void scopeSpans(
      ProtoReader r, SpanSink sink, Scratch scratch, Map<String, Object> resource)
      throws MalformedException {
    OtlpSpan span = scratch.span;
    // The scope may come after the spans on the wire, like the resource: read it first.
    span.scope("", 0, "");
    int start = r.position();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        scope(r, span);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    r.rewind(start);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        span.clear();
        span(r, span, scratch);
        span.resource = resource;
        sink.accept(span);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  // InstrumentationScope: name = 1, version = 2; attributes skipped. A name longer than
  // MAX_SCOPE_BYTES is not decoded (its length is kept for the reason), a version that long is
  // dropped.
  private static void scope(ProtoReader r, OtlpSpan span) throws MalformedException {
    String name = "";
    int nameBytes = 0;
    String version = "";
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)
          || tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        int length = r.remaining();
        String value = length <= OtlpSpan.MAX_SCOPE_BYTES ? r.utf8(r.position(), length) : null;
        r.pop(outer);
        if (tag >>> 3 == 1) {
          name = value;
          nameBytes = length;
        } else {
          version = value == null ? "" : value;
        }
      } else {
        r.skip(tag);
      }
    }
    span.scope(name, nameBytes, version);
  }

  // Status: code = 3; the message skipped.
  private static int statusCode(ProtoReader r) throws MalformedException {
    int code = 0;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (3 << 3 | ProtoReader.VARINT)) {
        code = (int) r.varint();
      } else {
        r.skip(tag);
      }
    }
    return code;
  }

  private static void span(ProtoReader r, OtlpSpan span, Scratch scratch)
      throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 1 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "trace_id");
          int outer = r.pushId(2);
          span.traceIdHigh = r.idWord();
          span.traceIdLow = r.idWord();
          r.pop(outer);
        }
        case 2 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "span_id");
          int outer = r.pushId(1);
          span.spanId = r.idWord();
          r.pop(outer);
        }
        case 4 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "parent_span_id");
          int outer = r.pushId(1);
          span.parentSpanId = r.idWord();
          r.pop(outer);
        }
        case 5 -> {
          // The name is not read: checked and skipped, never decoded.
          expect(wire, ProtoReader.LENGTH_DELIMITED, "name");
          r.skip(tag);
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
          spanKeyValue(r, span.attributes, scratch);
          r.pop(outer);
        }
        case 15 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "status");
          int outer = r.push();
          span.statusCode = statusCode(r);
          r.pop(outer);
        }
        case 13 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "links");
          int outer = r.push();
          KlatAttributes into = span.nextLink();
          if (into == null) {
            r.pop(outer); // beyond the links read: counted, its bytes skipped
          } else {
            link(r, span, span.linkCount - 1, into, scratch);
            r.pop(outer);
          }
        }
        default -> r.skip(tag);
      }
    }
  }

  // One Span.Link: trace_id = 1, span_id = 2, attributes = 4; trace_state and flags skipped.
  private static void link(
      ProtoReader r, OtlpSpan span, int index, KlatAttributes into, Scratch scratch)
      throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 1 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "link trace_id");
          int outer = r.pushId(2);
          span.linkTraceIdHigh[index] = r.idWord();
          span.linkTraceIdLow[index] = r.idWord();
          r.pop(outer);
        }
        case 2 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "link span_id");
          int outer = r.pushId(1);
          span.linkSpanId[index] = r.idWord();
          r.pop(outer);
        }
        case 4 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "link attributes");
          int outer = r.push();
          spanKeyValue(r, into, scratch);
          r.pop(outer);
        }
        default -> r.skip(tag);
      }
    }
  }

  // A span's attribute: the value is checked whatever the key (a malformed value is a malformed
  // body), but only a key klat reads gets it, and only a string gets a String.
  private static void spanKeyValue(ProtoReader r, KlatAttributes into, Scratch scratch)
      throws MalformedException {
    int keyFrom = -1;
    int keyLength = 0;
    Value value = scratch.value;
    value.type = KlatAttributes.ABSENT;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        keyFrom = r.position();
        keyLength = r.remaining();
        r.pop(outer);
      } else if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        anyValue(r, value);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    if (keyFrom < 0 || value.type == KlatAttributes.ABSENT) {
      return;
    }
    int slot = KlatAttributes.slotOfKnownKey(r.knownKey(keyFrom, keyLength));
    if (slot < 0) {
      return;
    }
    switch (value.type) {
      case KlatAttributes.STRING ->
          into.setString(slot, scratch.string(r, slot, value.from, value.length));
      case KlatAttributes.LONG -> into.setLong(slot, value.bits);
      case KlatAttributes.DOUBLE -> into.setDouble(slot, Double.longBitsToDouble(value.bits));
      default -> into.setBool(slot, value.bits != 0);
    }
  }

  static void keyValue(ProtoReader r, Map<String, Object> into) throws MalformedException {
    String key = null;
    Value value = new Value();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        key = r.key();
      } else if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        anyValue(r, value);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    if (key != null && value.type != KlatAttributes.ABSENT) {
      into.put(key, value.toObject(r));
    }
  }

  // The last scalar field wins, as in a generated decoder; array, map and bytes values leave the
  // value as it was. Allocates nothing: a string is kept as its range in the buffer.
  private static void anyValue(ProtoReader r, Value value) throws MalformedException {
    value.type = KlatAttributes.ABSENT;
    while (r.hasMore()) {
      int tag = r.tag();
      int wire = tag & 7;
      switch (tag >>> 3) {
        case 1 -> {
          expect(wire, ProtoReader.LENGTH_DELIMITED, "string_value");
          int outer = r.push();
          value.type = KlatAttributes.STRING;
          value.from = r.position();
          value.length = r.remaining();
          r.pop(outer);
        }
        case 2 -> {
          expect(wire, ProtoReader.VARINT, "bool_value");
          value.type = KlatAttributes.BOOL;
          value.bits = r.varint() != 0 ? 1 : 0;
        }
        case 3 -> {
          expect(wire, ProtoReader.VARINT, "int_value");
          value.type = KlatAttributes.LONG;
          value.bits = r.varint();
        }
        case 4 -> {
          expect(wire, ProtoReader.FIXED64, "double_value");
          value.type = KlatAttributes.DOUBLE;
          value.bits = r.fixed64();
        }
        default -> r.skip(tag);
      }
    }
  }

  static Map<String, String> strings(Map<String, Object> attributes) {
    if (attributes.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>(attributes.size() * 2);
    attributes.forEach((k, v) -> out.put(k, String.valueOf(v)));
    return out;
  }

  static void expect(int wire, int expected, String field) throws MalformedException {
    if (wire != expected) {
      throw new MalformedException("field " + field + " has wire type " + wire);
    }
  }

  /** One {@code AnyValue} as read: its type and bits, or for a string its range in the buffer. */
  private static final class Value {
    byte type;
    long bits;
    int from;
    int length;

    Object toObject(ProtoReader r) {
      return switch (type) {
        case KlatAttributes.STRING -> r.utf8(from, length);
        case KlatAttributes.LONG -> Long.valueOf(bits);
        case KlatAttributes.DOUBLE -> Double.valueOf(Double.longBitsToDouble(bits));
        default -> Boolean.valueOf(bits != 0);
      };
    }
  }

  /**
   * What decoding one request reuses from span to span: the span and the value being read, and per
   * slot the last string decoded, so that the topic, group and client id every span of a batch
   * repeats become one {@code String} each (with its hash computed once, for the join's map).
   */
  private static final class Scratch {
    final OtlpSpan span = new OtlpSpan();
    final Value value = new Value();
    private final String[] strings = new String[KlatAttributes.COUNT];
    private final int[] froms = new int[KlatAttributes.COUNT];
    private final int[] lengths = new int[KlatAttributes.COUNT];

    String string(ProtoReader r, int slot, int from, int length) {
      String last = strings[slot];
      if (last != null && lengths[slot] == length && r.sameBytes(froms[slot], from, length)) {
        return last;
      }
      String s = r.utf8(from, length);
      strings[slot] = s;
      froms[slot] = from;
      lengths[slot] = length;
      return s;
    }
  }
}

package dev.klat.collector.receive;

import dev.klat.collector.correlate.join.RecordLinks;
import java.util.Map;

/** The fields of one OTLP span the collector reads, from protobuf or JSON. */
final class OtlpSpan {
  static final int KIND_CLIENT = 3;
  static final int KIND_PRODUCER = 4;
  static final int KIND_CONSUMER = 5;

  /** {@code Status.code} of a span that failed. */
  static final int STATUS_ERROR = 2;

  /**
   * The longest instrumentation scope name or version kept, in UTF-8 bytes ({@link
   * WireNames#MAX_NAME_CHARS}: a name of at most that many bytes has at most that many characters).
   */
  static final int MAX_SCOPE_BYTES = WireNames.MAX_NAME_CHARS;

  long traceIdHigh;
  long traceIdLow;
  long spanId;
  long parentSpanId;
  int kind;
  long startNanos;
  long endNanos;
  int statusCode;
  // The span's instrumentation scope (shared by the spans of one ScopeSpans, decoded once for
  // them): "" when absent, null when longer than MAX_SCOPE_BYTES (its length then in
  // scopeNameBytes), so that a hostile name is never decoded.
  String scopeName = "";
  int scopeNameBytes;
  String scopeVersion = "";
  final KlatAttributes attributes = new KlatAttributes();
  Map<String, Object> resource = Map.of();
  // OtelSpanReader's host of the resource hostOf, kept across spans (not cleared): the spans of a
  // resource share its map, so the host is worked out once per resource.
  Map<String, Object> hostOf;
  OtelSpanReader.Host host;
  // The span's OTLP links, at most RecordLinks.MAX_LINKS read (their attribute slots reused from
  // span to span); the rest only counted.
  int linkCount;
  int linksNotRead;
  final long[] linkTraceIdHigh = new long[RecordLinks.MAX_LINKS];
  final long[] linkTraceIdLow = new long[RecordLinks.MAX_LINKS];
  final long[] linkSpanId = new long[RecordLinks.MAX_LINKS];
  private final KlatAttributes[] linkAttributes = new KlatAttributes[RecordLinks.MAX_LINKS];

  /**
   * Starts reading the next link: its slot, cleared, or null when {@link RecordLinks#MAX_LINKS} are
   * read already (the link is then counted in {@link #linksNotRead}).
   */
  KlatAttributes nextLink() {
    if (linkCount == RecordLinks.MAX_LINKS) {
      linksNotRead++;
      return null;
    }
    int i = linkCount++;
    if (linkAttributes[i] == null) {
      linkAttributes[i] = new KlatAttributes();
    } else {
      linkAttributes[i].clear();
    }
    linkTraceIdHigh[i] = 0;
    linkTraceIdLow[i] = 0;
    linkSpanId[i] = 0;
    return linkAttributes[i];
  }

  /** The attributes of link {@code i}, below {@link #linkCount}. */
  KlatAttributes linkAttributes(int i) {
    return linkAttributes[i];
  }

  /**
   * Sets the scope of the spans that follow, until the next call; {@code name} null when it was
   * longer than {@link #MAX_SCOPE_BYTES}, its length in bytes {@code nameBytes}.
   */
  void scope(String name, int nameBytes, String version) {
    scopeName = name;
    scopeNameBytes = nameBytes;
    scopeVersion = version;
  }

  /**
   * Makes this span as new, for the next span of a request (the scope stays: see {@link #scope}).
   */
  void clear() {
    traceIdHigh = 0;
    traceIdLow = 0;
    spanId = 0;
    parentSpanId = 0;
    kind = 0;
    startNanos = 0;
    endNanos = 0;
    statusCode = 0;
    attributes.clear();
    resource = Map.of();
    linkCount = 0;
    linksNotRead = 0;
  }
}

package dev.klat.collector.receive;

import dev.klat.collector.correlate.join.RecordLinks;
import java.util.Map;

/** The fields of one OTLP span the collector reads, from protobuf or JSON. */
final class OtlpSpan {
  static final int KIND_PRODUCER = 4;
  static final int KIND_CONSUMER = 5;

  long traceIdHigh;
  long traceIdLow;
  long spanId;
  long parentSpanId;
  int kind;
  long startNanos;
  long endNanos;
  final KlatAttributes attributes = new KlatAttributes();
  Map<String, Object> resource = Map.of();
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

  /** Makes this span as new, for the next span of a request. */
  void clear() {
    traceIdHigh = 0;
    traceIdLow = 0;
    spanId = 0;
    parentSpanId = 0;
    kind = 0;
    startNanos = 0;
    endNanos = 0;
    attributes.clear();
    resource = Map.of();
    linkCount = 0;
    linksNotRead = 0;
  }
}

package dev.klat.collector.receive;

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
  }
}

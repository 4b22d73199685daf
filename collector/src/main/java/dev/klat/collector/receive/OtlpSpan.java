package dev.klat.collector.receive;

import java.util.HashMap;
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
  String name = "";
  long startNanos;
  long endNanos;
  // Values are String, Long, Double or Boolean; arrays and maps are left out.
  final Map<String, Object> attributes = new HashMap<>();
  Map<String, Object> resource = Map.of();
}

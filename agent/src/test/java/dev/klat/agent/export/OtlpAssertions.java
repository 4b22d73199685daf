package dev.klat.agent.export;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Helpers to read parsed OTLP messages in assertions. */
final class OtlpAssertions {

  private OtlpAssertions() {}

  /** Attributes by key; fails on a duplicate key, which OTLP forbids. */
  static Map<String, AnyValue> attributes(List<KeyValue> keyValues) {
    Map<String, AnyValue> map = new LinkedHashMap<>();
    for (KeyValue kv : keyValues) {
      if (map.put(kv.getKey(), kv.getValue()) != null) {
        throw new AssertionError("duplicate attribute key " + kv.getKey());
      }
    }
    return map;
  }

  static Map<String, String> stringAttributes(List<KeyValue> keyValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Map.Entry<String, AnyValue> e : attributes(keyValues).entrySet()) {
      map.put(e.getKey(), e.getValue().getStringValue());
    }
    return map;
  }

  static byte[] traceId(long high, long low) {
    return ByteBuffer.allocate(16).putLong(high).putLong(low).array();
  }

  static byte[] spanId(long id) {
    return ByteBuffer.allocate(8).putLong(id).array();
  }
}

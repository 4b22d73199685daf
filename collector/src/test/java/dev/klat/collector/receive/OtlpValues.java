package dev.klat.collector.receive;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.nio.ByteBuffer;

/** Attribute and id values for building OTLP requests with the generated classes. */
public final class OtlpValues {
  private OtlpValues() {}

  public static KeyValue str(String k, String v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setStringValue(v))
        .build();
  }

  public static KeyValue num(String k, long v) {
    return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setIntValue(v)).build();
  }

  /** An id of big-endian 64-bit words: two for a trace id, one for a span id. */
  public static ByteString id(long... words) {
    ByteBuffer b = ByteBuffer.allocate(8 * words.length);
    for (long w : words) {
      b.putLong(w);
    }
    return ByteString.copyFrom(b.array());
  }
}

package dev.klat.collector.receive;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the protobuf wire format of the receiver's answers (a partial success, an error status). A
 * nested message is written to its own writer and copied in with its length: simple, and the
 * messages are small. Not thread-safe.
 */
final class ProtoWriter {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

  private void varint(long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private void tag(int field, int wire) {
    varint((long) field << 3 | wire);
  }

  ProtoWriter varintField(int field, long v) {
    tag(field, ProtoReader.VARINT);
    varint(v);
    return this;
  }

  ProtoWriter bytesField(int field, byte[] bytes) {
    tag(field, ProtoReader.LENGTH_DELIMITED);
    varint(bytes.length);
    out.write(bytes, 0, bytes.length);
    return this;
  }

  ProtoWriter stringField(int field, String s) {
    return bytesField(field, s.getBytes(StandardCharsets.UTF_8));
  }

  ProtoWriter messageField(int field, ProtoWriter message) {
    return bytesField(field, message.toByteArray());
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}

package dev.klat.collector.export;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the protobuf wire format. Nested messages are written to their own writer and copied in
 * with their length: simple, and the messages here are small. Not thread-safe.
 */
final class ProtoWriter {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

  void varint(long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  ProtoWriter tag(int field, int wire) {
    varint((long) field << 3 | wire);
    return this;
  }

  ProtoWriter varintField(int field, long v) {
    tag(field, 0).varint(v);
    return this;
  }

  ProtoWriter fixed64Field(int field, long v) {
    tag(field, 1);
    for (int i = 0; i < 8; i++) {
      out.write((int) (v >>> (8 * i)));
    }
    return this;
  }

  ProtoWriter bytesField(int field, byte[] bytes) {
    tag(field, 2).varint(bytes.length);
    out.write(bytes, 0, bytes.length);
    return this;
  }

  ProtoWriter stringField(int field, String s) {
    return bytesField(field, s.getBytes(StandardCharsets.UTF_8));
  }

  ProtoWriter messageField(int field, ProtoWriter message) {
    return bytesField(field, message.toByteArray());
  }

  ProtoWriter idField(int field, long... words) {
    byte[] bytes = new byte[8 * words.length];
    for (int w = 0; w < words.length; w++) {
      for (int i = 0; i < 8; i++) {
        bytes[8 * w + i] = (byte) (words[w] >>> (56 - 8 * i));
      }
    }
    return bytesField(field, bytes);
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}

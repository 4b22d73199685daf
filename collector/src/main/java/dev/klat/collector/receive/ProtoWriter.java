package dev.klat.collector.receive;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the protobuf wire format of the receiver's answers (a partial success, an error status). A
 * nested message is written to its own writer and copied in with its length: simple, and the
 * messages are small. Not thread-safe. Public for the ingest role, which writes one request per
 * trace.
 */
public final class ProtoWriter {
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

  public ProtoWriter varintField(int field, long v) {
    tag(field, ProtoReader.VARINT);
    varint(v);
    return this;
  }

  public ProtoWriter bytesField(int field, byte[] bytes) {
    return bytesField(field, bytes, 0, bytes.length);
  }

  /** A length-delimited field holding {@code bytes[from..from + length)}, copied as they are. */
  public ProtoWriter bytesField(int field, byte[] bytes, int from, int length) {
    tag(field, ProtoReader.LENGTH_DELIMITED);
    varint(length);
    out.write(bytes, from, length);
    return this;
  }

  public ProtoWriter stringField(int field, String s) {
    return bytesField(field, s.getBytes(StandardCharsets.UTF_8));
  }

  public ProtoWriter messageField(int field, ProtoWriter message) {
    return bytesField(field, message.toByteArray());
  }

  public byte[] toByteArray() {
    return out.toByteArray();
  }
}

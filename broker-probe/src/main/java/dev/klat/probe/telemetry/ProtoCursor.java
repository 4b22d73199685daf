package dev.klat.probe.telemetry;

/**
 * Reads protobuf wire format from untrusted bytes: every varint and length is checked against the
 * bytes that remain, so a hostile payload ends in {@link MalformedPayloadException}, never in an
 * index out of bounds or an allocation of its choosing.
 */
final class ProtoCursor {

  static final int WIRE_VARINT = 0;
  static final int WIRE_FIXED64 = 1;
  static final int WIRE_LENGTH_DELIMITED = 2;
  static final int WIRE_FIXED32 = 5;

  private final byte[] bytes;
  private int position;
  private final int end;

  ProtoCursor(byte[] bytes, int offset, int length) {
    this.bytes = bytes;
    this.position = offset;
    this.end = offset + length;
  }

  boolean hasMore() {
    return position < end;
  }

  int position() {
    return position;
  }

  /** Reads a field's tag; the field number is {@code tag >>> 3}, the wire type {@code tag & 7}. */
  int tag() throws MalformedPayloadException {
    long tag = varint();
    if (tag >>> 3 == 0 || tag > Integer.MAX_VALUE) {
      throw new MalformedPayloadException("bad field tag at byte " + position);
    }
    return (int) tag;
  }

  long varint() throws MalformedPayloadException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position >= end) {
        throw new MalformedPayloadException("varint runs past the end");
      }
      byte b = bytes[position++];
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new MalformedPayloadException("varint longer than 10 bytes");
  }

  /** Reads a length prefix and checks that so many bytes remain; the cursor is then at the body. */
  int length() throws MalformedPayloadException {
    long length = varint();
    if (length < 0 || length > end - position) {
      throw new MalformedPayloadException(
          "length " + length + " runs past the end (" + (end - position) + " bytes left)");
    }
    return (int) length;
  }

  void skip(int count) {
    position += count;
  }

  /** Skips the value of a field of this wire type (the tag already read). */
  void skipValue(int wireType) throws MalformedPayloadException {
    switch (wireType) {
      case WIRE_VARINT:
        varint();
        return;
      case WIRE_FIXED64:
        need(8);
        position += 8;
        return;
      case WIRE_LENGTH_DELIMITED:
        // Not "position += length()": Java reads position before length() moves it.
        int length = length();
        position += length;
        return;
      case WIRE_FIXED32:
        need(4);
        position += 4;
        return;
      default:
        throw new MalformedPayloadException("unsupported wire type " + wireType);
    }
  }

  private void need(int count) throws MalformedPayloadException {
    if (end - position < count) {
      throw new MalformedPayloadException("field runs past the end");
    }
  }
}

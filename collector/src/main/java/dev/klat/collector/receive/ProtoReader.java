package dev.klat.collector.receive;

import java.nio.charset.StandardCharsets;

/**
 * Reads the protobuf wire format from a byte array, checking every length against the enclosing
 * message so that a hostile body can only cause a {@link MalformedException}, never an
 * out-of-bounds read or a large allocation. Not thread-safe.
 */
final class ProtoReader {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private final byte[] buf;
  private int pos;
  private int limit;

  ProtoReader(byte[] buf, int length) {
    this.buf = buf;
    this.limit = length;
  }

  boolean hasMore() {
    return pos < limit;
  }

  /** Returns the next tag (field number << 3 | wire type). */
  int tag() throws MalformedException {
    long tag = varint();
    if (tag <= 0 || tag > Integer.MAX_VALUE || (tag >>> 3) == 0) {
      throw new MalformedException("invalid tag at byte " + pos);
    }
    return (int) tag;
  }

  long varint() throws MalformedException {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        throw new MalformedException("truncated varint");
      }
      byte b = buf[pos++];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new MalformedException("varint longer than 10 bytes");
  }

  long fixed64() throws MalformedException {
    require(8);
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (buf[pos + i] & 0xffL);
    }
    pos += 8;
    return v;
  }

  double doubleValue() throws MalformedException {
    return Double.longBitsToDouble(fixed64());
  }

  /** Enters a length-delimited field; returns the outer limit to pass to {@link #pop}. */
  int push() throws MalformedException {
    long length = varint();
    if (length < 0 || length > limit - pos) {
      throw new MalformedException("length " + length + " exceeds the enclosing message");
    }
    int outer = limit;
    limit = pos + (int) length;
    return outer;
  }

  void pop(int outer) {
    pos = limit;
    limit = outer;
  }

  String string() throws MalformedException {
    int outer = push();
    String s = new String(buf, pos, limit - pos, StandardCharsets.UTF_8);
    pop(outer);
    return s;
  }

  /** Reads a string field that is an attribute key, without allocating for the keys klat knows. */
  String key() throws MalformedException {
    int outer = push();
    String s = KnownKeys.of(buf, pos, limit - pos);
    pop(outer);
    return s;
  }

  byte[] bytes() throws MalformedException {
    int outer = push();
    byte[] out = new byte[limit - pos];
    System.arraycopy(buf, pos, out, 0, out.length);
    pop(outer);
    return out;
  }

  /** Reads a big-endian long from {@code length} bytes of a bytes field (trace and span ids). */
  long[] id(int words) throws MalformedException {
    int outer = push();
    int length = limit - pos;
    long[] out = new long[words];
    if (length == 0) {
      pop(outer);
      return out;
    }
    if (length != 8 * words) {
      throw new MalformedException("id of " + length + " bytes, expected " + 8 * words);
    }
    for (int w = 0; w < words; w++) {
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (buf[pos++] & 0xffL);
      }
      out[w] = v;
    }
    pop(outer);
    return out;
  }

  void skip(int tag) throws MalformedException {
    switch (tag & 7) {
      case VARINT -> varint();
      case FIXED64 -> {
        require(8);
        pos += 8;
      }
      case LENGTH_DELIMITED -> pop(push());
      case FIXED32 -> {
        require(4);
        pos += 4;
      }
      default -> throw new MalformedException("unsupported wire type " + (tag & 7));
    }
  }

  private void require(int n) throws MalformedException {
    if (limit - pos < n) {
      throw new MalformedException("truncated fixed-width field");
    }
  }
}

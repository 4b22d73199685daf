package dev.klat.collector.receive;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the protobuf wire format from a byte array, checking every length against the enclosing
 * message so that a hostile body can only cause a {@link MalformedException}, never an
 * out-of-bounds read or a large allocation. Not thread-safe. Public for the ingest role, which
 * splits and routes requests without decoding them.
 */
public final class ProtoReader {
  public static final int VARINT = 0;
  public static final int FIXED64 = 1;
  public static final int LENGTH_DELIMITED = 2;
  public static final int FIXED32 = 5;

  private final byte[] buf;
  private int pos;
  private int limit;

  /** Reads {@code buf[0..length)}. */
  public ProtoReader(byte[] buf, int length) {
    this.buf = buf;
    this.limit = length;
  }

  public boolean hasMore() {
    return pos < limit;
  }

  /** Returns the next tag (field number << 3 | wire type). */
  public int tag() throws MalformedException {
    if (pos < limit) {
      // Nearly every tag is one byte: fields 1 to 15.
      byte b = buf[pos];
      if (b >= 8) {
        pos++;
        return b;
      }
    }
    long tag = varint();
    if (tag <= 0 || tag > Integer.MAX_VALUE || (tag >>> 3) == 0) {
      throw new MalformedException("invalid tag at byte " + pos);
    }
    return (int) tag;
  }

  public long varint() throws MalformedException {
    int p = pos;
    if (p < limit && buf[p] >= 0) {
      // Lengths, kinds and flags: one byte.
      pos = p + 1;
      return buf[p];
    }
    if (limit - p >= 10) {
      // Room for the longest varint: no bound check per byte (attribute values are mostly
      // nanosecond instants, 9 bytes each).
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        byte b = buf[p++];
        result |= (long) (b & 0x7f) << shift;
        if (b >= 0) {
          pos = p;
          return result;
        }
      }
      throw new MalformedException("varint longer than 10 bytes");
    }
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
  public int push() throws MalformedException {
    long length = varint();
    if (length < 0 || length > limit - pos) {
      throw new MalformedException("length " + length + " exceeds the enclosing message");
    }
    int outer = limit;
    limit = pos + (int) length;
    return outer;
  }

  public void pop(int outer) {
    pos = limit;
    limit = outer;
  }

  public String string() throws MalformedException {
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

  /**
   * Enters a bytes field holding an id (trace or span) of {@code 8 * words} bytes, or none; returns
   * the outer limit to pass to {@link #pop}. Read the words with {@link #idWord}.
   */
  public int pushId(int words) throws MalformedException {
    int outer = push();
    int length = limit - pos;
    if (length != 0 && length != 8 * words) {
      throw new MalformedException("id of " + length + " bytes, expected " + 8 * words);
    }
    return outer;
  }

  /** The next 8 bytes of an id as a big-endian long; 0 for an empty id. */
  public long idWord() {
    if (limit - pos < 8) {
      return 0;
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos++] & 0xffL);
    }
    return v;
  }

  /** Goes back to {@code position}, read earlier inside the current message. */
  void rewind(int position) {
    pos = position;
  }

  public int position() {
    return pos;
  }

  public int remaining() {
    return limit - pos;
  }

  /** Decodes {@code length} bytes at {@code from}, a range this reader has already checked. */
  String utf8(int from, int length) {
    return new String(buf, from, length, StandardCharsets.UTF_8);
  }

  /** Whether two checked ranges of {@code length} bytes hold the same bytes. */
  boolean sameBytes(int from, int otherFrom, int length) {
    if (length > 16) {
      return Arrays.equals(buf, from, from + length, buf, otherFrom, otherFrom + length);
    }
    // Topics and groups are short: a plain loop beats the range checks of Arrays.equals.
    for (int i = 0; i < length; i++) {
      if (buf[from + i] != buf[otherFrom + i]) {
        return false;
      }
    }
    return true;
  }

  /** The {@link KnownKeys} index of the key in a checked range, or -1. */
  int knownKey(int from, int length) {
    return KnownKeys.find(buf, from, length);
  }

  public void skip(int tag) throws MalformedException {
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

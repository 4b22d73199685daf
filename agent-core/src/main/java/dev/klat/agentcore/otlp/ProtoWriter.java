package dev.klat.agentcore.otlp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growing buffer that writes protobuf wire format. Nested messages are written in place: {@link
 * #beginMessage} reserves five bytes for the length (the most a 32-bit varint takes), {@link
 * #endMessage} writes the length there and shifts the body back over the unused bytes, so no size
 * pass and no scratch buffer are needed. Not thread-safe.
 */
public final class ProtoWriter {

  public static final int WIRE_VARINT = 0;
  public static final int WIRE_FIXED64 = 1;
  public static final int WIRE_LENGTH_DELIMITED = 2;
  public static final int WIRE_FIXED32 = 5;

  private static final int RESERVED_LENGTH_BYTES = 5;

  private byte[] buffer;
  private int position;

  public ProtoWriter(int initialCapacity) {
    buffer = new byte[Math.max(16, initialCapacity)];
  }

  public void reset() {
    position = 0;
  }

  public int size() {
    return position;
  }

  public int capacity() {
    return buffer.length;
  }

  /** The buffer itself, valid up to {@link #size()} until the next write: no copy. */
  public byte[] array() {
    return buffer;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buffer, position);
  }

  private void ensure(int more) {
    if (buffer.length - position < more) {
      long wanted = Math.max((long) buffer.length * 2, (long) position + more);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("protobuf message too large");
      }
      buffer = Arrays.copyOf(buffer, (int) wanted);
    }
  }

  public void tag(int fieldNumber, int wireType) {
    varint(((long) fieldNumber << 3) | wireType);
  }

  /** Writes a varint; a negative value takes ten bytes, as int64 fields encode it. */
  public void varint(long value) {
    ensure(10);
    while ((value & ~0x7FL) != 0) {
      buffer[position++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buffer[position++] = (byte) value;
  }

  public void fixed64(long value) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buffer[position++] = (byte) value;
      value >>>= 8;
    }
  }

  public void fixed32(int value) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      buffer[position++] = (byte) value;
      value >>>= 8;
    }
  }

  public void raw(byte[] bytes, int offset, int length) {
    ensure(length);
    System.arraycopy(bytes, offset, buffer, position, length);
    position += length;
  }

  public void varintField(int fieldNumber, long value) {
    tag(fieldNumber, WIRE_VARINT);
    varint(value);
  }

  public void boolField(int fieldNumber, boolean value) {
    varintField(fieldNumber, value ? 1 : 0);
  }

  public void fixed64Field(int fieldNumber, long value) {
    tag(fieldNumber, WIRE_FIXED64);
    fixed64(value);
  }

  public void doubleField(int fieldNumber, double value) {
    fixed64Field(fieldNumber, Double.doubleToRawLongBits(value));
  }

  /**
   * Writes a string field as UTF-8. An ASCII string, as topics, ids and klat's own values are, is
   * written char by char into the buffer: its UTF-8 bytes are its chars, and {@code getBytes} would
   * copy every string of every span once more (2% of what a producer sampling every record
   * allocated).
   */
  public void stringField(int fieldNumber, String value) {
    int length = asciiLength(value);
    if (length < 0) {
      bytesField(fieldNumber, value.getBytes(StandardCharsets.UTF_8));
      return;
    }
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(length);
    ascii(value);
  }

  /** The UTF-8 length of {@code value} if it is all ASCII, its length; else -1. */
  public static int asciiLength(String value) {
    int length = value.length();
    for (int i = 0; i < length; i++) {
      if (value.charAt(i) >= 0x80) {
        return -1;
      }
    }
    return length;
  }

  /** Writes the chars of {@code value}, which must be all ASCII, one byte each. */
  public void ascii(String value) {
    int length = value.length();
    ensure(length);
    for (int i = 0; i < length; i++) {
      buffer[position++] = (byte) value.charAt(i);
    }
  }

  public void bytesField(int fieldNumber, byte[] value) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(value.length);
    raw(value, 0, value.length);
  }

  /** Writes 16 bytes, big-endian {@code high} then {@code low}, as OTLP trace ids are laid out. */
  public void traceIdField(int fieldNumber, long high, long low) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(16);
    bigEndian(high);
    bigEndian(low);
  }

  /** Writes 8 bytes, big-endian, as OTLP span ids are laid out. */
  public void spanIdField(int fieldNumber, long id) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(8);
    bigEndian(id);
  }

  private void bigEndian(long value) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      buffer[position++] = (byte) (value >>> shift);
    }
  }

  /** Writes a packed repeated fixed64 field of the first {@code count} values. */
  public void packedFixed64Field(int fieldNumber, long[] values, int count) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(8L * count);
    ensure(8 * count);
    for (int i = 0; i < count; i++) {
      fixed64(values[i]);
    }
  }

  /** Writes a packed repeated double field. */
  public void packedDoubleField(int fieldNumber, double[] values) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    varint(8L * values.length);
    ensure(8 * values.length);
    for (double value : values) {
      fixed64(Double.doubleToRawLongBits(value));
    }
  }

  /**
   * Starts a length-delimited nested message.
   *
   * @return the mark to pass to {@link #endMessage}
   */
  public int beginMessage(int fieldNumber) {
    tag(fieldNumber, WIRE_LENGTH_DELIMITED);
    ensure(RESERVED_LENGTH_BYTES);
    int mark = position;
    position += RESERVED_LENGTH_BYTES;
    return mark;
  }

  public void endMessage(int mark) {
    int bodyStart = mark + RESERVED_LENGTH_BYTES;
    int length = position - bodyStart;
    int lengthBytes = varintSize(length);
    int p = mark;
    int v = length;
    while ((v & ~0x7F) != 0) {
      buffer[p++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buffer[p] = (byte) v;
    if (lengthBytes < RESERVED_LENGTH_BYTES) {
      System.arraycopy(buffer, bodyStart, buffer, mark + lengthBytes, length);
      position -= RESERVED_LENGTH_BYTES - lengthBytes;
    }
  }

  /** How many bytes {@link #varint} writes for {@code value}. */
  public static int varintSize(long value) {
    int size = 1;
    while ((value & ~0x7FL) != 0) {
      size++;
      value >>>= 7;
    }
    return size;
  }
}

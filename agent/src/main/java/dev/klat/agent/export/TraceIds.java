package dev.klat.agent.export;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Trace and span ids, and the W3C Trace Context {@code traceparent} header ({@code 00-<32 hex trace
 * id>-<16 hex parent id>-<2 hex flags>}).
 */
public final class TraceIds {

  /** The length of a version 00 {@code traceparent} value, {@value}. */
  public static final int TRACEPARENT_LENGTH = 55;

  /** The {@code sampled} bit of the trace flags. */
  public static final int FLAG_SAMPLED = 0x01;

  private static final byte[] HEX =
      "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private TraceIds() {}

  /**
   * Returns a random id that is not 0, the invalid id of W3C Trace Context and OTLP.
   *
   * @return a random non-zero long, from {@link ThreadLocalRandom} (lock-free, no allocation)
   */
  public static long randomNonZeroLong() {
    long id;
    do {
      id = ThreadLocalRandom.current().nextLong();
    } while (id == 0);
    return id;
  }

  /**
   * Formats a version 00 {@code traceparent} value.
   *
   * @param traceIdHigh the first 8 bytes of the trace id
   * @param traceIdLow the last 8 bytes of the trace id
   * @param spanId the id of the span that is the parent of the receiving side
   * @param sampled the {@code sampled} flag
   * @return a string of {@value #TRACEPARENT_LENGTH} characters
   */
  public static String traceparent(
      long traceIdHigh, long traceIdLow, long spanId, boolean sampled) {
    return new String(
        traceparentBytes(traceIdHigh, traceIdLow, spanId, sampled),
        java.nio.charset.StandardCharsets.US_ASCII);
  }

  /**
   * Formats a version 00 {@code traceparent} value as the ASCII bytes a header carries, with no
   * string in between (a sampled record's send makes one).
   *
   * @param traceIdHigh the first 8 bytes of the trace id
   * @param traceIdLow the last 8 bytes of the trace id
   * @param spanId the id of the span that is the parent of the receiving side
   * @param sampled the {@code sampled} flag
   * @return {@value #TRACEPARENT_LENGTH} bytes
   */
  public static byte[] traceparentBytes(
      long traceIdHigh, long traceIdLow, long spanId, boolean sampled) {
    byte[] out = new byte[TRACEPARENT_LENGTH];
    out[0] = '0';
    out[1] = '0';
    out[2] = '-';
    writeHex(traceIdHigh, out, 3);
    writeHex(traceIdLow, out, 19);
    out[35] = '-';
    writeHex(spanId, out, 36);
    out[52] = '-';
    out[53] = '0';
    out[54] = (byte) (sampled ? '1' : '0');
    return out;
  }

  private static void writeHex(long value, byte[] out, int offset) {
    for (int i = 15; i >= 0; i--) {
      out[offset + i] = HEX[(int) value & 0xf];
      value >>>= 4;
    }
  }

  /**
   * Parses a {@code traceparent} header value strictly per W3C Trace Context, without allocating
   * and without throwing.
   *
   * <p>Valid: two lowercase hex digits of version other than {@code ff}; then {@code -<32 lowercase
   * hex>-<16 lowercase hex>-<2 lowercase hex>}, with neither id all zeros. Version {@code 00} must
   * be exactly {@value #TRACEPARENT_LENGTH} bytes; a later version may be longer if its 56th byte
   * is {@code '-'}, and then only its first four fields are read, as the specification asks of a
   * parser meeting a version it does not know.
   *
   * @param headerValue the header bytes (ASCII); null is invalid
   * @param out3AndFlags receives, only if the value is valid, {@code [traceIdHigh, traceIdLow,
   *     spanId, flags]}; must have at least 4 elements
   * @return true if the value is valid and was written to {@code out3AndFlags}
   */
  public static boolean parseTraceparent(byte[] headerValue, long[] out3AndFlags) {
    if (headerValue == null || out3AndFlags == null || out3AndFlags.length < 4) {
      return false;
    }
    int length = headerValue.length;
    if (length < TRACEPARENT_LENGTH) {
      return false;
    }
    int version = hexByte(headerValue, 0);
    if (version < 0 || version == 0xff) {
      return false;
    }
    if (version == 0 && length != TRACEPARENT_LENGTH) {
      return false;
    }
    if (length > TRACEPARENT_LENGTH && headerValue[TRACEPARENT_LENGTH] != '-') {
      return false;
    }
    if (headerValue[2] != '-' || headerValue[35] != '-' || headerValue[52] != '-') {
      return false;
    }
    // Invalid digits are -1, so OR-ing the three digits of a position detects any of them; no
    // sentinel id is possible since every long is a valid id half.
    long high = 0;
    long low = 0;
    long span = 0;
    for (int i = 0; i < 16; i++) {
      int h = hexDigit(headerValue[3 + i]);
      int l = hexDigit(headerValue[19 + i]);
      int s = hexDigit(headerValue[36 + i]);
      if ((h | l | s) < 0) {
        return false;
      }
      high = (high << 4) | h;
      low = (low << 4) | l;
      span = (span << 4) | s;
    }
    int flags = hexByte(headerValue, 53);
    if (flags < 0 || (high == 0 && low == 0) || span == 0) {
      return false;
    }
    out3AndFlags[0] = high;
    out3AndFlags[1] = low;
    out3AndFlags[2] = span;
    out3AndFlags[3] = flags;
    return true;
  }

  private static int hexByte(byte[] bytes, int offset) {
    int high = hexDigit(bytes[offset]);
    int low = hexDigit(bytes[offset + 1]);
    if ((high | low) < 0) {
      return -1;
    }
    return (high << 4) | low;
  }

  // Lowercase only: W3C Trace Context forbids uppercase hex in traceparent.
  private static int hexDigit(byte b) {
    if (b >= '0' && b <= '9') {
      return b - '0';
    }
    if (b >= 'a' && b <= 'f') {
      return b - 'a' + 10;
    }
    return -1;
  }
}

package dev.klat.probe.telemetry;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;

/**
 * The payload as a {@code MetricsData}: brokers from 3.8 on hand the plugin the decompressed bytes
 * ({@code PushTelemetryRequest.metricsData} calls {@code ClientTelemetryUtils.decompress}), but
 * 3.7's {@code metricsData} returns a compressed payload as it came (a "TODO" in its source), with
 * nothing in {@code ClientTelemetryPayload} that says so. A {@code MetricsData} that holds anything
 * starts with byte {@code 0x0a} (field 1, length-delimited, its only field), which no compression
 * format starts with, so the first bytes tell: gzip is read with the JDK, lz4, snappy and zstd
 * through 3.7's own {@code CompressionType.wrapForInput}. Decompressed bytes are bounded.
 */
final class PayloadDecoder {

  private static final byte METRICS_DATA_FIRST_BYTE = 0x0a;

  private final int maxBytes;

  /**
   * @param maxBytes the most bytes a payload may decompress to (the broker's telemetry.max.bytes)
   */
  PayloadDecoder(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * @return the MetricsData bytes
   * @throws MalformedPayloadException for bytes that are neither MetricsData nor a compression this
   *     can read, or that decompress past the bound
   */
  byte[] decode(byte[] payload) throws MalformedPayloadException {
    if (payload.length == 0 || payload[0] == METRICS_DATA_FIRST_BYTE) {
      return payload;
    }
    int compressionId = compressionId(payload);
    if (compressionId < 0) {
      throw new MalformedPayloadException(
          "the payload is neither MetricsData nor compressed (first byte "
              + (payload[0] & 0xFF)
              + ")");
    }
    try (InputStream in = open(compressionId, payload)) {
      return readBounded(in);
    } catch (IOException | RuntimeException e) {
      throw new MalformedPayloadException(
          "compressed payload (" + name(compressionId) + ") could not be read: " + e);
    }
  }

  /** Kafka's compression type id (1 gzip, 2 snappy, 3 lz4, 4 zstd) from the magic bytes; or -1. */
  static int compressionId(byte[] bytes) {
    if (startsWith(bytes, 0x1f, 0x8b)) {
      return 1;
    }
    // xerial snappy framing, which Kafka's snappy streams use
    if (startsWith(bytes, 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0)) {
      return 2;
    }
    if (startsWith(bytes, 0x04, 0x22, 0x4d, 0x18)) {
      return 3;
    }
    if (startsWith(bytes, 0x28, 0xb5, 0x2f, 0xfd)) {
      return 4;
    }
    return -1;
  }

  private static String name(int compressionId) {
    return new String[] {"none", "gzip", "snappy", "lz4", "zstd"}[compressionId];
  }

  private static InputStream open(int compressionId, byte[] payload) throws IOException {
    if (compressionId == 1) {
      return new GZIPInputStream(new ByteArrayInputStream(payload));
    }
    return KafkaDecompression.open(compressionId, payload);
  }

  private byte[] readBounded(InputStream in) throws IOException, MalformedPayloadException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    int read;
    while ((read = in.read(chunk)) > 0) {
      if (out.size() + read > maxBytes) {
        throw new MalformedPayloadException(
            "the payload decompresses to more than " + maxBytes + " bytes");
      }
      out.write(chunk, 0, read);
    }
    return out.toByteArray();
  }

  private static boolean startsWith(byte[] bytes, int... prefix) {
    if (bytes.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((bytes[i] & 0xFF) != (prefix[i] & 0xFF)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Kafka 3.7's decompression ({@code CompressionType.wrapForInput(ByteBuffer, byte,
   * BufferSupplier)}), found once by reflection: the method left that class in 3.8, where the
   * broker decompresses itself and this is never needed.
   */
  static final class KafkaDecompression {

    private static final Object[] FOUND = find();

    private KafkaDecompression() {}

    static InputStream open(int compressionId, byte[] payload) throws IOException {
      if (FOUND == null) {
        throw new IOException("this Kafka has no CompressionType.wrapForInput");
      }
      try {
        Object type = ((Method) FOUND[0]).invoke(null, compressionId);
        // magic 2: the record batch format, the one telemetry compression follows
        return (InputStream)
            ((Method) FOUND[1]).invoke(type, ByteBuffer.wrap(payload), (byte) 2, FOUND[2]);
      } catch (ReflectiveOperationException e) {
        throw new IOException(e.getCause() == null ? e : e.getCause());
      }
    }

    private static Object[] find() {
      try {
        Class<?> type = Class.forName("org.apache.kafka.common.record.CompressionType");
        Class<?> supplier = Class.forName("org.apache.kafka.common.utils.BufferSupplier");
        Method forId = type.getMethod("forId", int.class);
        Method wrap = type.getMethod("wrapForInput", ByteBuffer.class, byte.class, supplier);
        Field noCaching = supplier.getField("NO_CACHING");
        return new Object[] {forId, wrap, noCaching.get(null)};
      } catch (ReflectiveOperationException | LinkageError e) {
        return null;
      }
    }
  }
}

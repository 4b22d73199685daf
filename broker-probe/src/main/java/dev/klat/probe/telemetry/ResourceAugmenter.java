package dev.klat.probe.telemetry;

import dev.klat.agentcore.otlp.ProtoWriter;
import dev.klat.model.AttributeDef;
import dev.klat.model.ClientTelemetryAttributes;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Adds the broker's knowledge of a push ({@link ClientTelemetryAttributes}) to the resource of each
 * {@code ResourceMetrics} of a client's {@code MetricsData}, and writes the result as the body of
 * an OTLP {@code ExportMetricsServiceRequest}: both messages are one repeated field 1 of {@code
 * ResourceMetrics}, so pushes are joined by concatenation.
 *
 * <p>Each {@code ResourceMetrics} goes out with exactly one {@code resource} field, its client's
 * attributes then ours, whatever the client sent (none, one, or several that protobuf would merge),
 * so that a reader that takes the first {@code resource} sees them all. A client's own attribute
 * under one of our names, or any {@code klat.*} name, is dropped: a client cannot claim another
 * principal. The two levels walked here are checked field by field ({@link ProtoCursor}); deeper
 * levels (scopes, metrics, points) are copied as they are, for the collector to read as the
 * untrusted input they are.
 */
final class ResourceAugmenter {

  /**
   * A push may grow to this many times its size, plus {@link #GROWTH_ALLOWANCE_BYTES}, and no more:
   * the Java client sends one {@code ResourceMetrics} per metric, each with its resource (about 100
   * to 300 bytes each, so our attributes about double it), but a payload of empty {@code
   * ResourceMetrics} (2 bytes each) would grow a hundredfold; it is dropped whole.
   */
  static final int MAX_GROWTH_FACTOR = 4;

  static final int GROWTH_ALLOWANCE_BYTES = 64 * 1024;

  private static final Set<String> OWN_KEYS = new HashSet<>();

  static {
    for (AttributeDef attribute : ClientTelemetryAttributes.all()) {
      OWN_KEYS.add(attribute.name());
    }
  }

  private final ProtoWriter scratch = new ProtoWriter(16 * 1024);
  private final long brokerId;

  /**
   * @param brokerId the receiving broker's node id, or -1 when unknown (then not added)
   */
  ResourceAugmenter(long brokerId) {
    this.brokerId = brokerId;
  }

  /**
   * Writes the push's resource metrics, augmented, to {@code out}; nothing when the payload is
   * malformed.
   *
   * @return how many {@code ResourceMetrics} were written (0 for an empty payload)
   * @throws MalformedPayloadException naming what was wrong
   */
  int append(Push push, byte[] metricsData, ProtoWriter out) throws MalformedPayloadException {
    scratch.reset();
    ProtoCursor data = new ProtoCursor(metricsData, 0, metricsData.length);
    long maxBytes = (long) MAX_GROWTH_FACTOR * metricsData.length + GROWTH_ALLOWANCE_BYTES;
    int resources = 0;
    while (data.hasMore()) {
      int tag = data.tag();
      if (tag != (1 << 3 | ProtoCursor.WIRE_LENGTH_DELIMITED)) {
        throw new MalformedPayloadException(
            "MetricsData has field " + (tag >>> 3) + " of wire type " + (tag & 7));
      }
      int length = data.length();
      resources++;
      resourceMetrics(push, metricsData, data.position(), length);
      data.skip(length);
      if (scratch.size() > maxBytes) {
        throw new MalformedPayloadException(
            "the push's "
                + resources
                + " ResourceMetrics grow past "
                + maxBytes
                + " bytes with the broker's attributes ("
                + metricsData.length
                + " bytes pushed)");
      }
    }
    out.raw(scratch.array(), 0, scratch.size());
    return resources;
  }

  private void resourceMetrics(Push push, byte[] bytes, int offset, int length)
      throws MalformedPayloadException {
    int resourceMetricsMark = scratch.beginMessage(1);
    int resourceMark = scratch.beginMessage(1);
    // Every resource field of the client's (protobuf merges repeated ones), its attributes but
    // ours: then our attributes, in one resource.
    ProtoCursor fields = new ProtoCursor(bytes, offset, length);
    while (fields.hasMore()) {
      int tag = fields.tag();
      if (tag == (1 << 3 | ProtoCursor.WIRE_LENGTH_DELIMITED)) {
        int resourceLength = fields.length();
        clientResource(bytes, fields.position(), resourceLength);
        fields.skip(resourceLength);
      } else {
        fields.skipValue(tag & 7);
      }
    }
    ownAttributes(push);
    scratch.endMessage(resourceMark);
    // The other fields (scope metrics, schema URL) as they came.
    fields = new ProtoCursor(bytes, offset, length);
    while (fields.hasMore()) {
      int start = fields.position();
      int tag = fields.tag();
      if (tag == (1 << 3 | ProtoCursor.WIRE_LENGTH_DELIMITED)) {
        fields.skip(fields.length());
      } else {
        fields.skipValue(tag & 7);
        scratch.raw(bytes, start, fields.position() - start);
      }
    }
    scratch.endMessage(resourceMetricsMark);
  }

  private void clientResource(byte[] bytes, int offset, int length)
      throws MalformedPayloadException {
    ProtoCursor fields = new ProtoCursor(bytes, offset, length);
    while (fields.hasMore()) {
      int start = fields.position();
      int tag = fields.tag();
      if (tag == (1 << 3 | ProtoCursor.WIRE_LENGTH_DELIMITED)) {
        int attributeLength = fields.length();
        boolean ours = isOwnKey(bytes, fields.position(), attributeLength);
        fields.skip(attributeLength);
        if (ours) {
          continue;
        }
      } else {
        fields.skipValue(tag & 7);
      }
      scratch.raw(bytes, start, fields.position() - start);
    }
  }

  /** Whether the KeyValue's key is one this forwarder sets, or any {@code klat.*} key. */
  private static boolean isOwnKey(byte[] bytes, int offset, int length)
      throws MalformedPayloadException {
    ProtoCursor fields = new ProtoCursor(bytes, offset, length);
    while (fields.hasMore()) {
      int tag = fields.tag();
      if (tag == (1 << 3 | ProtoCursor.WIRE_LENGTH_DELIMITED)) {
        int keyLength = fields.length();
        if (keyLength > 256) {
          return false;
        }
        String key = new String(bytes, fields.position(), keyLength, StandardCharsets.UTF_8);
        return key.startsWith("klat.") || OWN_KEYS.contains(key);
      }
      fields.skipValue(tag & 7);
    }
    return false;
  }

  private void ownAttributes(Push push) {
    string(ClientTelemetryAttributes.SOURCE, ClientTelemetryAttributes.SOURCE_KIP_714);
    string(ClientTelemetryAttributes.CLIENT_INSTANCE_ID, push.clientInstanceId);
    string(ClientTelemetryAttributes.CLIENT_ID, push.clientId);
    string(ClientTelemetryAttributes.CLIENT_SOFTWARE_NAME, push.softwareName);
    string(ClientTelemetryAttributes.CLIENT_SOFTWARE_VERSION, push.softwareVersion);
    string(ClientTelemetryAttributes.CLIENT_PRINCIPAL, push.principal);
    string(ClientTelemetryAttributes.CLIENT_ADDRESS, push.clientAddress);
    integer(ClientTelemetryAttributes.CLIENT_TERMINATING, push.terminating ? 1 : 0);
    if (brokerId >= 0) {
      integer(ClientTelemetryAttributes.BROKER_ID, brokerId);
    }
  }

  // KeyValue { 1: key; 2: AnyValue { 1: string_value | 3: int_value } }
  private void string(AttributeDef attribute, String value) {
    if (value == null) {
      return;
    }
    int keyValue = scratch.beginMessage(1);
    scratch.stringField(1, attribute.name());
    int anyValue = scratch.beginMessage(2);
    scratch.stringField(1, value);
    scratch.endMessage(anyValue);
    scratch.endMessage(keyValue);
  }

  private void integer(AttributeDef attribute, long value) {
    int keyValue = scratch.beginMessage(1);
    scratch.stringField(1, attribute.name());
    int anyValue = scratch.beginMessage(2);
    scratch.tag(3, ProtoWriter.WIRE_VARINT);
    scratch.varint(value);
    scratch.endMessage(anyValue);
    scratch.endMessage(keyValue);
  }
}

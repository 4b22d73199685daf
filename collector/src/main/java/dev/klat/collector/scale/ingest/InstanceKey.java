package dev.klat.collector.scale.ingest;

import dev.klat.collector.receive.MalformedException;
import dev.klat.collector.receive.ProtoReader;
import dev.klat.model.ClientTelemetryAttributes;
import dev.klat.model.SpanAttributes;
import java.nio.charset.StandardCharsets;

/**
 * The record key of a metrics request: the sending agent's instance id, read from the first
 * resource without decoding the rest, so that one agent's points stay in order on one partition.
 */
final class InstanceKey {
  private static final int LEN = ProtoReader.LENGTH_DELIMITED;
  // Export*ServiceRequest.resource_*, Resource*.resource, Resource.attributes, KeyValue.key
  private static final int FIRST_FIELD = 1 << 3 | LEN;
  // KeyValue.value
  private static final int VALUE = 2 << 3 | LEN;
  private static final String INSTANCE_ID = SpanAttributes.INSTANCE_ID.name();
  private static final String SERVICE_INSTANCE_ID = "service.instance.id";
  private static final String CLIENT_INSTANCE_ID =
      ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name();

  private InstanceKey() {}

  /**
   * The first resource's {@code klat.instance.id}, else its {@code service.instance.id}, else (a
   * client's pushed metrics forwarded by a broker, KIP-714) its {@code klat.client.instance_id}, as
   * UTF-8; null if it has none (or the request no resource). A client instance's pushes so stay on
   * one partition, and its figures with one join member.
   *
   * @throws MalformedException if the first resource does not frame
   */
  static byte[] of(byte[] body, int length) throws MalformedException {
    ProtoReader r = new ProtoReader(body, length);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == FIRST_FIELD) {
        r.push();
        String id = firstResource(r);
        return id == null ? null : id.getBytes(StandardCharsets.UTF_8);
      }
      r.skip(tag);
    }
    return null;
  }

  private static String firstResource(ProtoReader r) throws MalformedException {
    // [klat.instance.id, service.instance.id, klat.client.instance_id]; the last of each wins,
    // whatever their order (a client's payload has two resource fields: both are read).
    String[] ids = new String[3];
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == FIRST_FIELD) {
        int outer = r.push();
        attributes(r, ids);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return ids[0] != null ? ids[0] : ids[1] != null ? ids[1] : ids[2];
  }

  private static void attributes(ProtoReader r, String[] ids) throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == FIRST_FIELD) {
        int outer = r.push();
        String[] keyValue = keyValue(r);
        r.pop(outer);
        if (keyValue[1] == null) {
          continue;
        }
        if (INSTANCE_ID.equals(keyValue[0])) {
          ids[0] = keyValue[1];
        } else if (SERVICE_INSTANCE_ID.equals(keyValue[0])) {
          ids[1] = keyValue[1];
        } else if (CLIENT_INSTANCE_ID.equals(keyValue[0])) {
          ids[2] = keyValue[1];
        }
      } else {
        r.skip(tag);
      }
    }
  }

  private static String[] keyValue(ProtoReader r) throws MalformedException {
    String key = null;
    String value = null;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == FIRST_FIELD) {
        key = r.string();
      } else if (tag == VALUE) {
        int outer = r.push();
        value = stringValue(r);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return new String[] {key, value};
  }

  // AnyValue.string_value = 1; an instance id of another type is not one klat reads.
  private static String stringValue(ProtoReader r) throws MalformedException {
    String value = null;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == FIRST_FIELD) {
        value = r.string();
      } else {
        r.skip(tag);
      }
    }
    return value;
  }
}

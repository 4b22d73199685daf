package dev.klat.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The resource attributes the broker probe's client telemetry forwarder adds to each client's
 * pushed metrics (KIP-714) before it sends them to the collector's {@code /v1/metrics}.
 *
 * <p>A client pushes OTLP metrics to a broker; the broker hands them, with the request's context,
 * to the plugin named in its {@code metric.reporters}. The client's own resource attributes (for a
 * Java client: its group, group instance and member ids, rack and transactional id) stay as they
 * are; the forwarder adds what only the broker knows: who pushed and through which broker. {@link
 * #SOURCE} marks a payload as forwarded client telemetry, so that the collector never mistakes it
 * for another sender's metrics. {@code docs/client-telemetry.md} is the user reference.
 */
public final class ClientTelemetryAttributes {

  /** The value of {@link #SOURCE} on every forwarded payload. */
  public static final String SOURCE_KIP_714 = "kip-714";

  /** {@code klat.telemetry.source}: {@value #SOURCE_KIP_714} on forwarded client telemetry. */
  public static final AttributeDef SOURCE =
      string(
          "klat.telemetry.source",
          "\"kip-714\": metrics a client pushed to a broker, forwarded by the broker probe.");

  /** {@code klat.client.instance_id}: the client instance id the broker assigned (a UUID). */
  public static final AttributeDef CLIENT_INSTANCE_ID =
      string(
          "klat.client.instance_id",
          "The client instance id (a UUID) the broker gave the client for its telemetry.");

  /** {@code messaging.client.id}: the client's client.id, from the push request's header. */
  public static final AttributeDef CLIENT_ID = SpanAttributes.MESSAGING_CLIENT_ID;

  /** {@code klat.client.software.name}: as the client sent it in ApiVersions. */
  public static final AttributeDef CLIENT_SOFTWARE_NAME =
      string(
          "klat.client.software.name",
          "The client software's name as the client sent it in ApiVersions (apache-kafka-java,"
              + " librdkafka, ...).");

  /** {@code klat.client.software.version}: as the client sent it in ApiVersions. */
  public static final AttributeDef CLIENT_SOFTWARE_VERSION =
      string(
          "klat.client.software.version",
          "The client software's version as the client sent it in ApiVersions.");

  /** {@code klat.client.principal}: the authenticated principal of the push's connection. */
  public static final AttributeDef CLIENT_PRINCIPAL =
      string(
          "klat.client.principal",
          "The principal the push request's connection authenticated as (User:ANONYMOUS when"
              + " none).");

  /** {@code klat.client.address}: the client's IP address as the broker saw it. */
  public static final AttributeDef CLIENT_ADDRESS =
      string("klat.client.address", "The client's IP address as the receiving broker saw it.");

  /** {@code klat.client.terminating}: 1 on the client's last push, sent as it closes. */
  public static final AttributeDef CLIENT_TERMINATING =
      new AttributeDef(
          "klat.client.terminating",
          AttributeDef.Type.LONG,
          "",
          "1 on the client's last push, sent while it closes; 0 otherwise.");

  /** {@code klat.broker.id}: the node id of the broker that received the push. */
  public static final AttributeDef BROKER_ID =
      new AttributeDef(
          BrokerProbeWire.BROKER_ID,
          AttributeDef.Type.LONG,
          "",
          "The node id of the broker that received the push.");

  private static final List<AttributeDef> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              SOURCE,
              CLIENT_INSTANCE_ID,
              CLIENT_ID,
              CLIENT_SOFTWARE_NAME,
              CLIENT_SOFTWARE_VERSION,
              CLIENT_PRINCIPAL,
              CLIENT_ADDRESS,
              CLIENT_TERMINATING,
              BROKER_ID));

  private ClientTelemetryAttributes() {}

  /** Every attribute the forwarder adds, in the order above. */
  public static List<AttributeDef> all() {
    return ALL;
  }

  private static AttributeDef string(String name, String description) {
    return new AttributeDef(name, AttributeDef.Type.STRING, "", description);
  }
}

package dev.klat.agent.export;

import dev.klat.model.SpanAttributes;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The OTLP resource every request of one agent carries: who exported it. */
final class ResourceAttributes {

  /** Keys the agent sets itself; {@link ExportSettings} refuses them as extra attributes. */
  static final Set<String> RESERVED_KEYS =
      Collections.unmodifiableSet(
          new HashSet<>(
              Arrays.asList(
                  "service.name",
                  "telemetry.sdk.name",
                  "telemetry.sdk.language",
                  "telemetry.sdk.version",
                  SpanAttributes.INSTANCE_ID.name(),
                  SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name(),
                  SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name())));

  private ResourceAttributes() {}

  /**
   * The attributes, in a fixed order. Call it on the exporter thread: without a configured host
   * name it looks the name up, which may take seconds.
   */
  static Map<String, Object> of(ExportSettings settings, String agentVersion) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("service.name", settings.serviceName());
    attributes.put("service.instance.id", hex16(settings.instanceId()));
    String hostName = settings.hostName() != null ? settings.hostName() : lookUpHostName();
    if (hostName != null) {
      attributes.put("host.name", hostName);
    }
    attributes.put("telemetry.sdk.name", "klat");
    attributes.put("telemetry.sdk.language", "java");
    attributes.put("telemetry.sdk.version", agentVersion);
    attributes.putAll(settings.resourceAttributes());
    attributes.put(SpanAttributes.INSTANCE_ID.name(), settings.instanceId());
    return attributes;
  }

  /**
   * {@code String.format("%016x", id)} without {@link java.util.Formatter}, which parses its format
   * with a regular expression the first time: on the first export of every application.
   */
  static String hex16(long id) {
    String hex = Long.toHexString(id);
    StringBuilder padded = new StringBuilder(16);
    for (int i = hex.length(); i < 16; i++) {
      padded.append('0');
    }
    return padded.append(hex).toString();
  }

  /** The version in the agent jar's manifest, or {@code unknown} (tests run from classes). */
  static String agentVersion() {
    Package p = ResourceAttributes.class.getPackage();
    String version = p == null ? null : p.getImplementationVersion();
    return version == null ? "unknown" : version;
  }

  private static String lookUpHostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      String env = System.getenv("HOSTNAME");
      return env == null || env.isEmpty() ? null : env;
    }
  }
}

package dev.klat.collector.correlate.join;

import java.util.HashMap;
import java.util.Map;

/**
 * Names an agent instance's clock domain: its instance id in hex, made once per instance (the
 * correlator asks for two names per join). Bounded: beyond {@code maxNames} all are forgotten at
 * once and made again. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
final class HostNames {
  private final int maxNames;
  private final String prefix;
  private final Map<Long, String> names = new HashMap<>();

  HostNames(int maxNames) {
    this(maxNames, "");
  }

  /**
   * Names with a prefix: {@code otel-} for the client hosts of OpenTelemetry instrumentations
   * (section 10 of the latency model), so that they never meet an agent's domain.
   */
  HostNames(int maxNames, String prefix) {
    this.maxNames = maxNames;
    this.prefix = prefix;
  }

  /** The instance's clock domain, or null for instance 0 (unknown). */
  String name(long instanceId) {
    if (instanceId == 0) {
      return null;
    }
    String name = names.get(instanceId);
    if (name == null) {
      if (names.size() >= maxNames) {
        names.clear();
      }
      char[] digits = new char[16];
      JoinedBreakdown.hex(instanceId, digits, 0);
      name = prefix + new String(digits);
      names.put(instanceId, name);
    }
    return name;
  }
}

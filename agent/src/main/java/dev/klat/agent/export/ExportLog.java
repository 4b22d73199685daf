package dev.klat.agent.export;

/**
 * Where the export layer reports problems. The agent supplies its own logger; the export layer
 * rate-limits its warnings itself (at most one per minute per kind), so an implementation can write
 * every message it receives.
 */
public interface ExportLog {

  /** A log that discards every message. */
  ExportLog NONE = message -> {};

  /**
   * Reports a problem the export layer degraded around. Must not block for long; an exception
   * thrown here is caught and ignored.
   *
   * @param message one line, without a trailing newline
   */
  void warn(String message);

  /**
   * Reports a configuration problem (a refused token, an untrusted certificate) that the export
   * layer explains once per {@code key}; an implementation must not throttle it away behind other
   * warnings. By default, {@link #warn}.
   *
   * @param key names the problem, for example {@code export.unauthorized}
   * @param message one line, without a trailing newline
   */
  default void warnOnce(String key, String message) {
    warn(message);
  }
}

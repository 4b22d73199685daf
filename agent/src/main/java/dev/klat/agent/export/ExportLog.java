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
}

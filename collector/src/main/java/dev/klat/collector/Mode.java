package dev.klat.collector;

/** The role of one collector process (docs/scale-out.md). */
public enum Mode {
  /** Receive OTLP, join and export in one process: the default. */
  ALL,
  /** Receive OTLP from the agents and probes and write it to the span topics. */
  INGEST,
  /** Read the span topics as a member of a consumer group, join and export. */
  JOIN
}

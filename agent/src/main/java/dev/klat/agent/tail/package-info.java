/**
 * Tail capture's shared parts (docs/latency-model.md, section 8), used by the producer and the
 * consumer sides alike: which records are slow enough to flag ({@link
 * dev.klat.agent.tail.TailThresholds}, a {@link dev.klat.agent.tail.TailThreshold} per key that the
 * hot path reads as one field, fixed or following the recent p99 of {@link
 * dev.klat.agent.tail.RecentP99}), and which flagged records become tail spans ({@link
 * dev.klat.agent.tail.TailAdmission}, a fair per-client cap). The settings are parsed into {@link
 * dev.klat.agent.tail.ThresholdSpec}; the spans themselves are built by each side and exported
 * through {@code AgentRuntime.exportTail}, into their own share of the export queue.
 */
package dev.klat.agent.tail;

/**
 * The agent's metric instruments, recorded into on the hooks' per-record paths: {@link
 * dev.klat.agent.metrics.LatencyHistogram}, {@link dev.klat.agent.metrics.Counter} and {@link
 * dev.klat.agent.metrics.Gauge}, all lock-free and allocation-free when recording, and the {@link
 * dev.klat.agent.metrics.MetricsRegistry} that hands them out once per series (bounded, with an
 * overflow series) and, at each export, collects them into {@link
 * dev.klat.agent.metrics.MetricFamily} values for the encoder.
 *
 * <p>Why not the OpenTelemetry SDK's instruments: its histogram handles synchronize on every
 * recording, while the every-record path runs on the Kafka producer's network thread, where no lock
 * is allowed. Nothing here sends anything: {@code dev.klat.agent.export} reads the registry on its
 * own thread.
 */
package dev.klat.agent.metrics;

/**
 * What the broker probes reported ({@link ProbeTimelines}): per partition and leader term, the
 * offset ranges appended and committed (and, for partitions with transactions, the ranges the last
 * stable offset passed), with their times on the leader's clock, kept for {@code probe.retention}
 * and bounded in partitions and estimated bytes (the least recently updated partition leaves
 * first). Filled by {@code receive} from the probes' OTLP logs (sent to the collector, or read from
 * the probes' topic by {@code scale.join}); read by the probe source of {@code instants} for exact
 * {@code L}, {@code H} and {@code V}, and by the diagnosis as a leader's high-watermark waits
 * ({@link CommitWaits}). Pure logic, no I/O.
 */
package dev.klat.collector.correlate.probe;

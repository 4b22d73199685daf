/**
 * Pipelines (section 9 of the latency model): chains of linked records assembled on query from the
 * recent ring's joined breakdowns ({@link Links} resolves each output record's inputs, {@link
 * ChainAssembly} follows them into {@link Chain}s, {@link Pipelines} groups the chains by their
 * path of topics and groups, with each hop's segments, the processing between hops, the identity
 * check and the tail), the names operators give them ({@link PipelineNames}), and the pipeline
 * histograms {@code /metrics} shows ({@link PipelineMetrics}). Pure logic, no I/O.
 */
package dev.klat.collector.pipeline;

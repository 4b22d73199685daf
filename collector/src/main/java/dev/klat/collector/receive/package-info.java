/**
 * The OTLP receivers (HTTP and gRPC) with their limits and counts, and the decoding of OTLP
 * protobuf and JSON: spans into the join's inputs, metric points into the merged agent metrics (a
 * broker forwarder's client telemetry, KIP-714, into {@code clienttelemetry.ClientTelemetry}), the
 * broker probes' log records into the probe timelines ({@link OtlpIngest}), or, in the ingest role,
 * the request bodies handed on whole ({@link OtlpSink}). Every string the collector keeps is
 * checked here, where it enters ({@link WireNames}); a span or point that fails is refused alone,
 * with its reason in the partial success and counted. A span that is not klat's is read as an
 * OpenTelemetry Kafka instrumentation's ({@link OtelSpanReader}, section 10 of the latency model):
 * a record span becomes a {@code correlate.join.OtelRecordSpan}, any other is counted by outcome.
 */
package dev.klat.collector.receive;

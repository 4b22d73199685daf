/**
 * The OTLP receivers (HTTP and gRPC) with their limits and counts, and the decoding of OTLP
 * protobuf and JSON: spans into the join's inputs, metric points into the merged agent metrics, the
 * broker probes' log records into the probe timelines ({@link OtlpIngest}), or, in the ingest role,
 * the request bodies handed on whole ({@link OtlpSink}).
 */
package dev.klat.collector.receive;

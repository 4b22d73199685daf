/**
 * The ingest role of a scaled-out collector (docs/scale-out.md): an OTLP sink that splits trace
 * requests per trace (a consumer or client span with span links goes with its first link's trace,
 * so that an OpenTelemetry instrumentation's linking consumer span meets its producer's), keys
 * metrics requests by agent instance and writes them, with the broker probes' logs requests, to the
 * span topics the join role reads. Its producer does the I/O.
 */
package dev.klat.collector.scale.ingest;

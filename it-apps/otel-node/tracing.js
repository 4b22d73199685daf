'use strict';
// OpenTelemetry's Node SDK as an application sets it up, loaded with `node --require ./tracing.js`
// before kafkajs is required (the instrumentation patches kafkajs as it loads). Configured by the
// SDK's own environment variables: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_SCHEDULE_DELAY. Spans go out as OTLP/HTTP
// protobuf; the resource carries service.name, host.name and process.pid, which klat's collector
// reads as the client host (docs/latency-model.md section 10).
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { KafkaJsInstrumentation } = require('@opentelemetry/instrumentation-kafkajs');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node');
const {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
} = require('@opentelemetry/resources');

const provider = new NodeTracerProvider({
  resource: defaultResource().merge(
    detectResources({ detectors: [envDetector, hostDetector, processDetector] })
  ),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
// Also installs the W3C trace-context propagator, through which the instrumentation writes the
// producer span's context into each record's headers.
provider.register();
registerInstrumentations({ instrumentations: [new KafkaJsInstrumentation()] });

/** Exports what is still buffered; the application calls it before it exits. */
module.exports.shutdown = () => provider.shutdown();

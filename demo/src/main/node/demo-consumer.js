'use strict';
// The demo's kafkajs consumer: no klat agent, only OpenTelemetry's kafkajs instrumentation and Node
// SDK, exporting OTLP/HTTP to the demo's collector (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME,
// OTEL_TRACES_SAMPLER from the environment). It reads the demo's topic in a group of its own and
// does no work, so that its records show the producer's and the brokers' part of each scenario
// (docs/clients.md). Run as
//   node demo-consumer.js BROKERS TOPIC GROUP
// from the directory where the packages of it-apps/otel-node are installed.
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

const [brokers, topic, group] = process.argv.slice(2);
if (!brokers || !topic || !group) {
  console.error('usage: node demo-consumer.js BROKERS TOPIC GROUP');
  process.exit(2);
}

const provider = new NodeTracerProvider({
  resource: defaultResource().merge(
    detectResources({ detectors: [envDetector, hostDetector, processDetector] })
  ),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
provider.register();
// The instrumentation writes no consumer-group attribute: without the hook, klat would name the
// group service:<service.name>.
registerInstrumentations({
  instrumentations: [
    new KafkaJsInstrumentation({
      consumerHook: (span) => span.setAttribute('messaging.consumer.group.name', group),
    }),
  ],
});

// Required after the instrumentation is registered: it patches kafkajs as it loads.
const { Kafka, logLevel } = require('kafkajs');

async function main() {
  const kafka = new Kafka({ clientId: group, brokers: brokers.split(','), logLevel: logLevel.WARN });
  const consumer = kafka.consumer({ groupId: group });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await consumer.disconnect();
    } finally {
      await provider.shutdown();
      process.exit(0);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: false });
  let records = 0;
  setInterval(() => console.log(`consumed ${records} records`), 10000).unref();
  await consumer.run({
    eachMessage: async () => {
      records++;
    },
  });
  console.log(`kafkajs consumer of ${topic} in group ${group} started`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

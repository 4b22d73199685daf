'use strict';
// A librdkafka producer (node-rdkafka, which compiles the librdkafka it bundles) that pushes its
// own metrics to the brokers (KIP-714): the non-JVM client of issue 47's ClientTelemetryIT. Run as
//   node producer.js brokers=HOST:PORT topic=TOPIC client-id=ID records=N interval-ms=T
// It sends N records, one every T ms, with linger.ms=100, so that a record waits about 100 ms in
// librdkafka's queue: the record queue time the broker plugin should receive. librdkafka 2.5+
// pushes when a CLIENT_METRICS subscription matches it (enable.metrics.push, true by default, set
// here so that the intent is written down). It prints one line "klat-rdkafka {json}" with
// librdkafka's version before it sends, and one with the delivery count at the end; it exits 0
// when every record was delivered, 1 otherwise. disconnect() closes the producer, which sends a
// last, terminating push.
const Kafka = require('node-rdkafka');

function parseArgs(argv) {
  const args = {};
  for (const arg of argv) {
    const eq = arg.indexOf('=');
    if (eq < 0) throw new Error(`expected key=value, got "${arg}"`);
    args[arg.slice(0, eq)] = arg.slice(eq + 1);
  }
  for (const required of ['brokers', 'topic', 'client-id', 'records', 'interval-ms']) {
    if (args[required] === undefined) throw new Error(`missing ${required}=`);
  }
  return args;
}

const print = (event) => console.log(`klat-rdkafka ${JSON.stringify(event)}`);

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const records = Number(args.records);
  const intervalMs = Number(args['interval-ms']);
  print({ event: 'start', librdkafkaVersion: Kafka.librdkafkaVersion, features: Kafka.features });
  const producer = new Kafka.Producer({
    'bootstrap.servers': args.brokers,
    'client.id': args['client-id'],
    'linger.ms': 100,
    'enable.metrics.push': true,
    dr_cb: true,
    // Why a push did not happen (no subscription, broker without a plugin) is in librdkafka's
    // telemetry debug lines; the test prints them when it fails.
    ...(args.debug ? { debug: args.debug } : {}),
  });
  let delivered = 0;
  let failed = 0;
  producer.on('delivery-report', (err) => (err ? failed++ : delivered++));
  producer.on('event.log', (log) => console.log(`rdkafka ${log.severity} ${log.fac}: ${log.message}`));
  producer.on('event.error', (err) => console.log(`rdkafka error: ${err.message}`));
  producer.setPollInterval(50);
  await new Promise((resolve, reject) => {
    producer.once('ready', resolve);
    producer.once('connection.failure', reject);
    producer.connect({ timeout: 30000 });
  });
  for (let i = 0; i < records; i++) {
    producer.produce(args.topic, null, Buffer.from(`record-${i}`), `key-${i % 8}`, Date.now());
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  await new Promise((resolve, reject) => producer.flush(30000, (err) => (err ? reject(err) : resolve())));
  await new Promise((resolve) => setTimeout(resolve, 200));
  print({ event: 'end', delivered, failed });
  await new Promise((resolve) => producer.disconnect(30000, resolve));
  process.exitCode = delivered === records && failed === 0 ? 0 : 1;
}

main().catch((err) => {
  console.error(`klat-rdkafka failed: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});

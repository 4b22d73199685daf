'use strict';
// kafkajs producers and consumers, one of each per stream, all in this process so that the
// application measures each record's end-to-end latency on one clock: the truth klat's figures are
// compared with (it-tests' OtelNodeClientsIT). Run as
//   node --require ./tracing.js clients.js brokers=HOST:PORT bursts=N burst-size=K interval-ms=T \
//     stream=TOPIC:PRODUCER_DELAY_MS:CONSUMER_SLEEP_MS:eachMessage|eachBatch [stream=...]
// Each stream sends BURSTS bursts of K records, one producer.send() a burst, every T ms, and
// consumes them from its topic in its own group. Its delays, each a real wait of the client:
// - PRODUCER_DELAY_MS holds every write of the stream's producer connections that long before it
//   reaches the socket (kafkajs's socketFactory option): a slow path to the broker, between the
//   application's send() (where the instrumentation starts its span, S) and the leader's append
//   (L), so it belongs to produce+publish.
// - CONSUMER_SLEEP_MS is the handler's work: with eachMessage a record's, so that the later records
//   of a batch wait for the handler of the ones before them; with eachBatch a batch's, so that the
//   records that arrive meanwhile wait for the next fetch. Either way between the high watermark
//   (H) and the moment the instrumentation hands a record to the application (P): catch-up+fetch.
// At the end one line per stream, "klat-truth {json}": the count, median and mean of what the
// application measured from just before send() to the handler's call, in milliseconds.
const net = require('net');
const { performance } = require('perf_hooks');
const { Kafka, logLevel, Partitioners } = require('kafkajs');
const tracing = require('./tracing');

function parseArgs(argv) {
  const args = { streams: [] };
  for (const arg of argv) {
    const eq = arg.indexOf('=');
    if (eq < 0) throw new Error(`expected key=value, got "${arg}"`);
    const key = arg.slice(0, eq);
    const value = arg.slice(eq + 1);
    if (key === 'stream') {
      const [topic, producerDelayMs, consumerSleepMs, mode] = value.split(':');
      if (!topic || !['eachMessage', 'eachBatch'].includes(mode)) {
        throw new Error(`stream=TOPIC:PRODUCER_DELAY_MS:CONSUMER_SLEEP_MS:eachMessage|eachBatch, got "${value}"`);
      }
      args.streams.push({ topic, producerDelayMs: Number(producerDelayMs), consumerSleepMs: Number(consumerSleepMs), mode });
    } else {
      args[key] = value;
    }
  }
  for (const required of ['brokers', 'bursts', 'burst-size', 'interval-ms']) {
    if (args[required] === undefined) throw new Error(`missing ${required}=`);
  }
  if (args.streams.length === 0) throw new Error('missing stream=');
  return args;
}

const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A plaintext socket whose writes wait delayMs before they reach the network; timers of one
// duration fire in the order they were set, so the requests keep their order.
function delayingSocketFactory(delayMs) {
  return ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60000);
    if (delayMs > 0) {
      const write = socket.write.bind(socket);
      socket.write = (...chunk) => {
        setTimeout(() => {
          if (!socket.destroyed) write(...chunk);
        }, delayMs);
        return true;
      };
    }
    return socket;
  };
}

const startedMs = nowMs();
const phase = (what) => console.log(`klat-phase +${Math.round(nowMs() - startedMs)} ms: ${what}`);

function summary(topic, e2eMs) {
  const sorted = [...e2eMs].sort((a, b) => a - b);
  const p50Ms = sorted.length ? sorted[Math.ceil(sorted.length * 0.5) - 1] : null;
  const meanMs = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null;
  return { topic, count: sorted.length, p50Ms, meanMs };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const brokers = args.brokers.split(',');
  const bursts = Number(args.bursts);
  const burstSize = Number(args['burst-size']);
  const intervalMs = Number(args['interval-ms']);
  const expected = bursts * burstSize;

  const streams = [];
  for (const s of args.streams) {
    const producerKafka = new Kafka({
      clientId: `${s.topic}-producer`,
      brokers,
      logLevel: logLevel.WARN,
      socketFactory: delayingSocketFactory(s.producerDelayMs),
    });
    const consumerKafka = new Kafka({ clientId: `${s.topic}-consumer`, brokers, logLevel: logLevel.WARN });
    const stream = {
      ...s,
      producer: producerKafka.producer({ createPartitioner: Partitioners.DefaultPartitioner }),
      // A short fetch wait: disconnect waits for the fetch in flight (records end a fetch at once).
      consumer: consumerKafka.consumer({ groupId: `${s.topic}-group`, maxWaitTimeInMs: 500 }),
      e2eMs: [],
    };
    stream.joined = new Promise((resolve) => stream.consumer.on(stream.consumer.events.GROUP_JOIN, resolve));
    streams.push(stream);
  }

  let allConsumed;
  const consumed = new Promise((resolve) => (allConsumed = resolve));
  const checkDone = () => {
    if (streams.every((s) => s.e2eMs.length >= expected)) allConsumed();
  };
  const received = (stream, message, atMs) => {
    stream.e2eMs.push(atMs - Number(JSON.parse(message.value.toString()).sentMs));
  };

  // Every stream's clients start at once: joining the groups one after the other would add up.
  await Promise.all(
    streams.map(async (s) => {
      await s.consumer.connect();
      await s.consumer.subscribe({ topics: [s.topic], fromBeginning: true });
      if (s.mode === 'eachMessage') {
        await s.consumer.run({
          eachMessage: async ({ message }) => {
            received(s, message, nowMs());
            if (s.consumerSleepMs > 0) await sleep(s.consumerSleepMs);
            checkDone();
          },
        });
      } else {
        await s.consumer.run({
          eachBatchAutoResolve: true,
          eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
            const atMs = nowMs();
            for (const message of batch.messages) received(s, message, atMs);
            // The batch's work, at once (a bulk write, say): what arrives meanwhile waits.
            if (s.consumerSleepMs > 0) await sleep(s.consumerSleepMs);
            for (const message of batch.messages) resolveOffset(message.offset);
            checkDone();
            await heartbeat();
          },
        });
      }
      await s.producer.connect();
    })
  );
  await Promise.all(streams.map((s) => s.joined));
  phase('clients connected, groups joined');

  const sends = [];
  const start = nowMs();
  for (let burst = 0; burst < bursts; burst++) {
    const due = start + burst * intervalMs;
    const wait = due - nowMs();
    if (wait > 0) await sleep(wait);
    for (const s of streams) {
      const messages = [];
      for (let i = 0; i < burstSize; i++) {
        messages.push({ key: `${burst}-${i}`, value: JSON.stringify({ sentMs: nowMs(), burst, i }) });
      }
      sends.push(s.producer.send({ topic: s.topic, messages }));
    }
  }
  await Promise.all(sends);
  phase('every record sent');

  const timeoutMs = 30000;
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
  const timedOut = await Promise.race([consumed.then(() => false), timeout]);
  clearTimeout(timer);
  phase(timedOut ? 'gave up waiting for the consumers' : 'every record consumed');
  await Promise.all(streams.flatMap((s) => [s.consumer.disconnect(), s.producer.disconnect()]));
  await tracing.shutdown();
  phase('clients closed, spans exported');
  for (const s of streams) {
    console.log(`klat-truth ${JSON.stringify(summary(s.topic, s.e2eMs))}`);
  }
  if (timedOut) {
    console.error(`not every record consumed in ${timeoutMs} ms: ${streams.map((s) => `${s.topic} ${s.e2eMs.length}/${expected}`).join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

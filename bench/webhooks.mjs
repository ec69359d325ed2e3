// Bench only: how fast the feed reaches its readers (docs/rules.md §15, issues 28 and 29). The server
// (`node apps/server/dist/src/main.js`; the memory store, or MongoDB when MONGODB_URI is set) on core
// 0, this process on core 1 with a receiver on loopback (allowed through PETSTORE_WEBHOOK_ALLOW_HOSTS)
// answering 204 at once, and a reader of the feed holding a long poll (`GET /v1/events?wait=30`):
//   latency   one subscription; LATENCY_EVENTS creates, one at a time, each after the previous one
//             was delivered: from the create's 201 at the client to the delivery's arrival at the
//             receiver, and to the long poll's answer at the reader (p50, p99, max);
//   throughput one subscription; THROUGHPUT_EVENTS creates sent at once over 16 connections: events a
//             second from the first delivery to the last, checked in `sequence` order, one at a time.
// `node bench/webhooks.mjs` (after `pnpm build`). Prints Markdown; BENCHMARKS.md ("Events and
// webhooks: from a change to its readers") has the runs.
import { createServer, request, Agent } from 'node:http';
import os from 'node:os';
import { freePort, sleep, startProcess } from './lib.mjs';

const LATENCY_EVENTS = Number(process.env.LATENCY_EVENTS ?? 300);
const THROUGHPUT_EVENTS = Number(process.env.THROUGHPUT_EVENTS ?? 2_000);
const MONGODB_URI = process.env.MONGODB_URI ?? '';
const WRITER = 'bench-writer-key-0123456789';
const ADMIN = 'bench-admin-key-0123456789';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`;
};

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
/** One request; resolves with the status, the body and when it ended (performance.now()). */
const send = (port, method, path, key, body) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          Authorization: `Bearer ${key}`,
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

const main = async () => {
  // The receiver: every delivery's sequence and arrival.
  const arrivals = [];
  let onArrival = () => {};
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.push({ sequence: event.sequence, petId: event.data.id, at: performance.now() });
      res.writeHead(204).end();
      onArrival();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = receiver.address().port;

  const port = await freePort();
  const loadBefore = os.loadavg()[0];
  const server = await startProcess({
    name: 'server',
    core: 0,
    nodeArgs: ['apps/server/dist/src/main.js'],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      PETSTORE_API_KEYS: `${WRITER}:enterprise:1000000:100000000`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_LOG_LEVEL: 'warn',
      PETSTORE_WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiverPort}`,
      ...(MONGODB_URI === '' ? {} : { PETSTORE_STORE: 'mongo', MONGODB_URI }),
    },
    port,
    readyPath: '/v1/openapi.json',
  });
  try {
    const category = JSON.parse(
      (await send(port, 'POST', '/v1/categories', WRITER, { name: `Dogs ${Date.now()}` })).body,
    );
    const hook = await send(port, 'POST', '/v1/webhooks', ADMIN, {
      url: `http://127.0.0.1:${receiverPort}/hooks`,
      types: ['pet.created'],
    });
    if (hook.status !== 201) throw new Error(`the subscription answered ${hook.status}: ${hook.body}`);
    const create = (name) => send(port, 'POST', '/v1/pets', WRITER, { name, categoryId: category.id });
    const arrivalOf = (count) =>
      new Promise((resolve) => {
        if (arrivals.length >= count) return resolve(arrivals[count - 1]);
        onArrival = () => {
          if (arrivals.length >= count) resolve(arrivals[count - 1]);
        };
      });

    // Warm-up: the paths compiled, the first allocations made.
    for (let i = 0; i < 50; i++) {
      await create(`Warm ${i}`);
      await arrivalOf(arrivals.length + 1);
    }
    // The feed's last event is the last pet delivered (nothing else happens meanwhile).
    let lastSequence = arrivals.at(-1).sequence;

    // --- Latency: one create at a time -----------------------------------------------------------
    const toReceiver = [];
    const toReader = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const poll = send(port, 'GET', `/v1/events?types=pet.created&after=${lastSequence}&wait=30`, ADMIN);
      await sleep(2); // the poll is held before the create
      const expected = arrivals.length + 1;
      const created = await create(`Pet ${i}`);
      if (created.status !== 201) throw new Error(`a create answered ${created.status}`);
      const [arrival, read] = await Promise.all([arrivalOf(expected), poll]);
      const events = JSON.parse(read.body);
      if (events.length !== 1 || events[0].data.id !== JSON.parse(created.body).id)
        throw new Error('the long poll did not answer with the new pet');
      lastSequence = events[0].sequence;
      toReceiver.push(arrival.at - created.at);
      toReader.push(read.at - created.at);
    }

    // --- Throughput: many creates at once, delivered one at a time, in order ----------------------
    const first = arrivals.length;
    const started = performance.now();
    const creates = [];
    for (let i = 0; i < THROUGHPUT_EVENTS; i++) creates.push(create(`Burst ${i}`));
    const answered = await Promise.all(creates);
    const createdIn = performance.now() - started;
    if (answered.some((a) => a.status !== 201)) throw new Error('a create of the burst was not 201');
    const last = await arrivalOf(first + THROUGHPUT_EVENTS);
    const burst = arrivals.slice(first, first + THROUGHPUT_EVENTS);
    const inOrder = burst.every((a, i) => i === 0 || a.sequence > burst[i - 1].sequence);
    const deliveredIn = last.at - burst[0].at;
    const loadAfter = os.loadavg()[0];

    const store = MONGODB_URI === '' ? 'memory store' : 'MongoDB (MONGODB_URI)';
    console.log(
      `Store: ${store}. Load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after; ${os.cpus().length} cores.`,
    );
    console.log('');
    console.log("| from a create's 201 at the client to … | events | p50 | p99 | max |");
    console.log('|---|--:|--:|--:|--:|');
    const row = (what, values) => {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(
        `| ${what} | ${values.length} | ${quantile(sorted, 0.5).toFixed(1)} ms | ${quantile(sorted, 0.99).toFixed(1)} ms | ${sorted.at(-1).toFixed(1)} ms |`,
      );
    };
    row('its webhook delivery at the receiver', toReceiver);
    row('the answer of a long poll of the feed (`wait=30`)', toReader);
    console.log('');
    console.log(
      `Throughput to one receiver: ${THROUGHPUT_EVENTS} creates answered in ${(createdIn / 1000).toFixed(2)} s (16 connections); ` +
        `their ${THROUGHPUT_EVENTS} deliveries, one at a time, in ${(deliveredIn / 1000).toFixed(2)} s from the first to the last: ` +
        `**${Math.round(THROUGHPUT_EVENTS / (deliveredIn / 1000))} events/s**, ${inOrder ? 'in `sequence` order' : 'NOT IN ORDER'}.`,
    );
    console.error(`(latency to receiver ${summary(toReceiver)}; to reader ${summary(toReader)})`);
    if (!inOrder) process.exitCode = 1;
  } finally {
    await server.stop();
    agent.destroy();
    receiver.closeAllConnections();
    receiver.close();
  }
};

await main();

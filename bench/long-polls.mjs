// Bench only: 1,000 idle long polls of the feed of events (docs/rules.md §15) held at once by the
// server (`node apps/server/dist/src/main.js`, memory store), each on its own connection: the memory
// they add (the server's RSS, and its V8 heap in use from /metrics, before and while they wait) and
// that one event reaches every one of them (how many answered with it, and the time from the
// create's 201 to each answer). `node bench/long-polls.mjs` (after `pnpm build`); POLLS=n for
// another count. Prints a Markdown table; BENCHMARKS.md ("Events: long polls") has a run.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import { freePort, sleep, startProcess } from './lib.mjs';

const POLLS = Number(process.env.POLLS ?? 1_000);
/** Admin keys have the business plan's 1,000 requests a minute: the polls are spread over several. */
const ADMINS = Array.from(
  { length: Math.ceil(POLLS / 500) + 1 },
  (_, i) => `bench-admin-key-${String(i).padStart(4, '0')}`,
);
const WRITER = 'bench-writer-key-0123456789';

const rssKiB = (pid) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
/** The server's open sockets (its listeners and every connection). */
const sockets = (pid) =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false; // closed meanwhile
    }
  }).length;

/** `nodejs_heap_size_used_bytes` of the server's /metrics. */
const heapUsed = async (metricsUrl) => {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text)[1]);
};

/** One GET on its own connection; resolves with the status, the body and when it ended. */
const poll = (port, path, key) =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${key}` }, agent: false },
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
    req.end();
  });

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const main = async () => {
  const port = await freePort();
  const metricsPort = await freePort();
  const loadBefore = os.loadavg()[0];
  const server = await startProcess({
    name: 'server',
    core: 0,
    nodeArgs: ['apps/server/dist/src/main.js'],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      PETSTORE_API_KEYS: `${WRITER}:enterprise:100000:10000000`,
      PETSTORE_ADMIN_KEYS: ADMINS.join(','),
      PETSTORE_METRICS_PORT: String(metricsPort),
      PETSTORE_LOG_LEVEL: 'warn',
    },
    port,
    readyPath: '/v1/openapi.json',
  });
  const pid = server.child.pid;
  try {
    const write = (path, body) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${WRITER}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    await write('/v1/categories', { name: 'Dogs' });
    // Warm the feed's path (its code compiled, its first allocations made) before the baseline.
    for (let i = 0; i < 200; i++) await poll(port, '/v1/events?after=0&limit=1', ADMINS[0]);
    await sleep(1_500);
    const before = { rss: rssKiB(pid), heap: await heapUsed(`http://127.0.0.1:${metricsPort}`), sockets: sockets(pid) };

    const started = performance.now();
    const polls = Array.from({ length: POLLS }, (_, i) =>
      poll(port, '/v1/events?after=1&wait=30', ADMINS[1 + (i % (ADMINS.length - 1))]),
    );
    // Held once the server has a socket for each (and a moment for the last requests to be read).
    for (let waited = 0; sockets(pid) < before.sockets + POLLS; waited += 50) {
      if (waited > 20_000)
        throw new Error(`only ${sockets(pid) - before.sockets} of ${POLLS} connections reached the server`);
      await sleep(50);
    }
    await sleep(1_500);
    const heldAfterMs = performance.now() - started;
    const held = { rss: rssKiB(pid), heap: await heapUsed(`http://127.0.0.1:${metricsPort}`), sockets: sockets(pid) };

    // One event: a pet created. Every poll must answer with it.
    const created = await write('/v1/pets', { name: 'Rex', categoryId: 1 });
    const answeredAt = performance.now();
    if (created.status !== 201) throw new Error(`the create answered ${created.status}`);
    const pet = await created.json();
    const answers = await Promise.all(polls);
    const withIt = answers.filter((a) => {
      if (a.status !== 200) return false;
      const events = JSON.parse(a.body);
      return (
        events.length === 1 &&
        events[0].sequence === 2 &&
        events[0].type === 'pet.created' &&
        events[0].data.id === pet.id
      );
    }).length;
    const latencies = answers.map((a) => a.at - answeredAt).sort((a, b) => a - b);
    await sleep(1_500);
    const after = { rss: rssKiB(pid), heap: await heapUsed(`http://127.0.0.1:${metricsPort}`) };
    const loadAfter = os.loadavg()[0];

    const mib = (kib) => (kib / 1024).toFixed(1);
    const perPoll = (bytes) => (bytes / POLLS / 1024).toFixed(1);
    console.log(`| | server RSS | V8 heap in use |`);
    console.log(`|---|--:|--:|`);
    console.log(
      `| idle (after 200 reads of the feed) | ${mib(before.rss)} MiB | ${(before.heap / 2 ** 20).toFixed(1)} MiB |`,
    );
    console.log(
      `| ${POLLS} long polls held (wait=30), each on its own connection | ${mib(held.rss)} MiB | ${(held.heap / 2 ** 20).toFixed(1)} MiB |`,
    );
    console.log(
      `| added per poll | ${perPoll((held.rss - before.rss) * 1024)} KiB | ${perPoll(held.heap - before.heap)} KiB |`,
    );
    console.log(
      `| after they were answered (1.5 s later) | ${mib(after.rss)} MiB | ${(after.heap / 2 ** 20).toFixed(1)} MiB |`,
    );
    console.log('');
    console.log(
      `One pet created: ${withIt} of ${POLLS} polls answered with its event (sequence 2, pet.created, id ${pet.id}); ${answers.filter((a) => a.status !== 200).length} not 200. ` +
        `From the create's 201 to each answer at the client: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, last ${latencies.at(-1).toFixed(1)} ms. ` +
        `The ${POLLS} connections were held ${(heldAfterMs / 1000).toFixed(1)} s after the first was opened. Load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after; ${os.cpus().length} cores.`,
    );
    if (withIt !== POLLS) process.exitCode = 1;
  } finally {
    await server.stop();
  }
};

await main();

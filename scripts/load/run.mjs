// Load run on the memory store: forks scripts/load/server.mjs (the real server, composed by
// startServer, with event-loop-delay and memory reporting), drives it with autocannon at a fixed
// overall rate, samples the server's RSS, and prints the numbers RELIABILITY.md records.
//
//   npx --yes pnpm@12.18.0 load                               # defaults: 300 s at 1,000 req/s
//   LOAD_DURATION=600 LOAD_RATE=2000 npx --yes pnpm@12.18.0 load
//
// Settings (environment): LOAD_DURATION seconds (300), LOAD_RATE requests/s over all
// connections (1000), LOAD_CONNECTIONS (50), LOAD_SAMPLE_SECONDS between RSS samples (5),
// LOAD_JSON=1 prints one JSON object instead of the report (the test suite's short run uses it).
// Exit code 1 when any request got a 5xx, a connection error or a timeout, or the server did
// not stop cleanly.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const env = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return n;
};
const duration = env('LOAD_DURATION', 300);
const rate = env('LOAD_RATE', 1000);
const connections = Math.min(env('LOAD_CONNECTIONS', 50), rate);
const sampleSeconds = env('LOAD_SAMPLE_SECONDS', 5);
const asJson = process.env.LOAD_JSON === '1';
const KEY = 'load-run-key';

const server = fork(new URL('./server.mjs', import.meta.url), [], {
  env: {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    PETSTORE_STORE: 'memory',
    // Enterprise quota far above the run, so that every request is served (a rate-limited run measures nothing).
    PETSTORE_API_KEYS: `${KEY}:enterprise:100000000:100000000000`,
    PETSTORE_LOG_LEVEL: process.env.PETSTORE_LOG_LEVEL ?? 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
void exited.then((code) => {
  if (!finished) {
    console.error(`load run: the server exited early (code ${code})`);
    process.exit(1);
  }
});
let finished = false;
const next = (type) =>
  new Promise((resolve) =>
    server.on('message', function on(m) {
      if (m.type === type) {
        server.off('message', on);
        resolve(m);
      }
    }),
  );
const stats = () => {
  const p = next('stats');
  server.send('stats');
  return p;
};

const { url } = await next('ready');
const auth = { Authorization: `Bearer ${KEY}` };
// Pets must name a category: categories 1–7 are created first (the last one is the load's).
for (let i = 1; i <= 7; i++) {
  const res = await fetch(`${url}/v1/categories`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `Category ${i}` }),
  });
  if (res.status !== 201) throw new Error(`load run: creating category ${i} answered ${res.status}`);
}
const body = JSON.stringify({ name: 'Load Test Rex', categoryId: 7 });
// The mix each connection cycles through: listings, a create, a lookup, a filtered page, a 400.
const requests = [
  { method: 'GET', path: '/v1/pets?limit=20', headers: auth },
  { method: 'POST', path: '/v1/pets', headers: { ...auth, 'Content-Type': 'application/json' }, body },
  { method: 'GET', path: '/v1/pets/1', headers: auth },
  { method: 'GET', path: '/v1/pets?limit=100&status=available', headers: auth },
  { method: 'GET', path: '/v1/pets?limit=20&status=available&categoryId=7', headers: auth },
  { method: 'GET', path: '/v1/pets?limit=5', headers: auth },
  { method: 'GET', path: '/v1/pets/abc', headers: auth },
];

const samples = [];
const sample = async (t) => {
  const s = await stats();
  samples.push({ t, rssMiB: s.rssMiB, heapUsedMiB: s.heapUsedMiB });
};
await sample(0);
server.send('reset-eld');
const started = Date.now();
const sampler = setInterval(() => void sample(Math.round((Date.now() - started) / 1000)), sampleSeconds * 1000);
const result = await autocannon({ url, connections, overallRate: rate, duration, requests, timeout: 10 });
clearInterval(sampler);
await sample(Math.round((Date.now() - started) / 1000));
const last = await stats();
finished = true;
const stopped = next('stopped');
server.send('stop');
await stopped;
const exitCode = await exited;

const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
const rss = samples.map((s) => s.rssMiB);
const summary = {
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  },
  settings: { durationSeconds: duration, targetRate: rate, connections },
  requests: {
    total: result.requests.total,
    averagePerSecond: result.requests.average,
    statusCounts,
    '5xx': result['5xx'],
    connectionErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
  },
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  serverRssMiB: {
    start: rss[0],
    afterFirstMinute: samples.find((s) => s.t >= 60)?.rssMiB ?? null,
    end: rss.at(-1),
    peak: Math.max(...rss),
  },
  serverHeapUsedMiB: {
    start: samples[0].heapUsedMiB,
    end: samples.at(-1).heapUsedMiB,
    peak: Math.max(...samples.map((s) => s.heapUsedMiB)),
  },
  eventLoopDelayMs: last.eventLoopDelayMs,
  rssSeries: samples
    .filter((_, i) => i % Math.max(1, Math.round(30 / sampleSeconds)) === 0 || i === samples.length - 1)
    .map((s) => `${s.t}s:${s.rssMiB}`)
    .join(' '),
  serverExitCode: exitCode,
};
const ok = result['5xx'] === 0 && result.errors === 0 && result.timeouts === 0 && exitCode === 0;
if (asJson) process.stdout.write(`${JSON.stringify({ ok, ...summary })}\n`);
else {
  console.log(JSON.stringify(summary, null, 2));
  console.log(ok ? 'load run: PASS (no 5xx, no connection error, no timeout, clean stop)' : 'load run: FAIL');
}
process.exit(ok ? 0 : 1);

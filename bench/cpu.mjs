// Server CPU per response: the measure each performance change is judged by (bench only).
// On a busy 2-core machine req/s move by ±30 % from one minute to the next; the CPU time the
// server process spent (utime + stime of all its threads, from /proc) divided by the responses it
// sent moves far less. Servers on core 0, autocannon on core 1, alternating rounds.
//
//   node bench/cpu.mjs                       # (a) full stack vs (c) minimal Koa vs (f) Fastify, GET /v1/pets?limit=20
//   CPU_SERVERS=a,a429 node bench/cpu.mjs    # the 200 path vs the 429 path (banned key) of (a)
//   CPU_PROFILE=a node bench/cpu.mjs         # also a CPU profile of (a) (or c, f), summarised (bench/results/cpu-a.cpuprofile)
// A profiled server spends more CPU per response than an unprofiled one: compare its µs only with another profiled run.
//   CPU_SERVERS=o,a CPU_BASE=/tmp/before node bench/cpu.mjs   # A/B: (o) the full stack built in another tree, (a) this one
//   CPU_SERVERS=a,o CPU_O_ENV='{"PETSTORE_CORS_ORIGINS":null}' node bench/cpu.mjs   # what CORS costs per response (o: without it)
// Knobs: CPU_SERVERS (a,c,f; also b, o, a429, o429, aPost, oPost, cPost, fPost), CPU_ROUNDS (3), CPU_SECONDS (5),
// CPU_CONNECTIONS (50), CPU_PATH (/v1/pets?limit=20), CPU_LOG_LEVEL (info), CPU_ENTRY (apps/server/dist/src/main.js),
// CPU_CORS (on) and CPU_METRICS (on): as the headline of `pnpm bench` (BENCH_CORS, BENCH_METRICS), the full stacks run
// with PETSTORE_CORS_ORIGINS and PETSTORE_METRICS_PORT set and every request sends an allowed Origin; `off` drops one.
import { writeFileSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startProcess, startDriver, freePort, median, prng, petBody, fmt, pinSelf, cpuMicros } from './lib.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const env = (/** @type {string} */ k, /** @type {string} */ d) => process.env[k] || d;
const SERVERS = env('CPU_SERVERS', 'a,c,f').split(',');
const ROUNDS = Number(env('CPU_ROUNDS', '3'));
const SECONDS = Number(env('CPU_SECONDS', '5'));
const CONNECTIONS = Number(env('CPU_CONNECTIONS', '50'));
const PATH = env('CPU_PATH', '/v1/pets?limit=20');
/** Which server to profile: `a`, `c` or `f` (CPU_PROFILE=1 means `a`). */
const PROFILE = env('CPU_PROFILE', '') === '1' ? 'a' : env('CPU_PROFILE', '');
const onOff = (/** @type {string} */ k) => {
  const v = env(k, 'on').toLowerCase();
  if (v !== 'on' && v !== 'off') throw new Error(`${k} must be on or off`);
  return v === 'on';
};
const CORS_ON = onOff('CPU_CORS');
const METRICS_ON = onOff('CPU_METRICS');
const ORIGIN = 'https://app.bench.test';
const RESULTS = join(ROOT, 'bench/results');
mkdirSync(RESULTS, { recursive: true });
pinSelf();

const ENTERPRISE = 'bench-enterprise-7f3a9c1e5b2d4086';
const BANNED = 'bench-free-banned-2c8e4a6f0b1d3957';
const HUGE = '100000000000000';
const KEYS = `${ENTERPRISE}:enterprise:${HUGE}:${HUGE},${BANNED}:free`;
const AUTH = { authorization: `Bearer ${ENTERPRISE}`, ...(CORS_ON ? { origin: ORIGIN } : {}) };
const BANNED_AUTH = { authorization: `Bearer ${BANNED}`, ...(CORS_ON ? { origin: ORIGIN } : {}) };
const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };
const CREATE_BODY = '{"name":"Biscuit the Beagle","categoryId":3,"status":"available"}';

/** CPU_A_ENV / CPU_O_ENV may switch a setting off with `null`: `CPU_O_ENV='{"PETSTORE_CORS_ORIGINS":null}'`. */
const withoutNulls = (/** @type {Record<string, string | null>} */ e) =>
  /** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null)));

const driver = startDriver();
/** @type {Awaited<ReturnType<typeof startProcess>>[]} */
const running = [];
try {
  /** A full stack (the product's entry under `root`), seeded with 1,000 pets, the banned key banned. */
  const fullStack = async (
    /** @type {string} */ id,
    /** @type {string} */ root,
    /** @type {Record<string, string>} */ extraEnv,
  ) => {
    const port = await freePort();
    const features = {
      ...(CORS_ON ? { PETSTORE_CORS_ORIGINS: ORIGIN } : {}),
      ...(METRICS_ON ? { PETSTORE_METRICS_PORT: String(await freePort()) } : {}),
    };
    const s = await startProcess({
      name: id,
      core: 0,
      nodeArgs: [...profArgs(id), join(root, env('CPU_ENTRY', 'apps/server/dist/src/main.js'))],
      env: {
        PORT: String(port),
        PETSTORE_API_KEYS: KEYS,
        PETSTORE_LOG_LEVEL: env('CPU_LOG_LEVEL', 'info'),
        ...withoutNulls({ ...features, ...extraEnv }),
      },
      port,
      readyPath: '/v1/openapi.json',
      stdout: 'count',
    });
    running.push(s);
    const random = prng(42);
    for (let i = 0; i < 1_000; i++) {
      const res = await fetch(`${s.url}/v1/pets`, { method: 'POST', headers: JSON_BODY, body: petBody(random) });
      await res.arrayBuffer();
    }
    for (let i = 0; i < 200; i++) {
      const res = await fetch(s.url + PATH, { headers: BANNED_AUTH });
      if ((await res.text()).includes('temporarily_banned')) break;
    }
    return s;
  };
  const profileFile = join(RESULTS, `cpu-${PROFILE}.cpuprofile`);
  const profArgs = (/** @type {string} */ id) =>
    PROFILE === id ? ['--cpu-prof', `--cpu-prof-dir=${RESULTS}`, `--cpu-prof-name=cpu-${id}.cpuprofile`] : [];
  if (existsSync(profileFile)) rmSync(profileFile);
  const a = await fullStack('a', ROOT, process.env.CPU_A_ENV ? JSON.parse(process.env.CPU_A_ENV) : {});
  const first = await fetch(a.url + PATH, { headers: AUTH });
  if (CORS_ON && first.headers.get('access-control-allow-origin') !== ORIGIN)
    throw new Error('(a) does not answer the bench Origin with CORS headers');
  process.stdout.write(`full stacks with CORS ${CORS_ON ? 'on' : 'off'}, metrics ${METRICS_ON ? 'on' : 'off'}\n`);
  const fixtures = join(RESULTS, 'cpu-fixtures.json');
  writeFileSync(
    fixtures,
    JSON.stringify({ contentType: first.headers.get('content-type'), gets: { [PATH]: await first.text() } }),
  );
  /** @type {Record<string, Awaited<ReturnType<typeof startProcess>>>} */
  const servers = { a };
  // (o) the same full stack from another tree (CPU_BASE, e.g. a copy of the code before a change), or with other settings (CPU_O_ENV): an A/B in one run.
  if (SERVERS.some((id) => id[0] === 'o')) {
    servers.o = await fullStack(
      'o',
      process.env.CPU_BASE ?? ROOT,
      process.env.CPU_O_ENV ? JSON.parse(process.env.CPU_O_ENV) : {},
    );
  }
  for (const [name, script] of [
    ['b', 'bare-server.mjs'],
    ['c', 'koa-server.mjs'],
    ['f', 'fastify-server.mjs'],
  ]) {
    if (!SERVERS.some((s) => s[0] === name)) continue;
    const port = await freePort();
    const s = await startProcess({
      name,
      core: 0,
      nodeArgs: [...profArgs(name), `bench/${script}`, fixtures, String(port)],
      port,
      readyPath: name === 'f' ? '/healthz' : PATH,
      env: { BENCH_API_KEYS: KEYS },
    });
    running.push(s);
    servers[name] = s;
  }
  const runnerOf = (/** @type {string} */ id) => {
    const server = servers[id[0]];
    if (id.endsWith('429')) return { server, opts: { url: server.url + PATH, headers: BANNED_AUTH } };
    if (id.endsWith('Post'))
      return { server, opts: { url: `${server.url}/v1/pets`, method: 'POST', headers: JSON_BODY, body: CREATE_BODY } };
    return { server, opts: { url: server.url + PATH, headers: AUTH } };
  };
  /** @type {Record<string, { us: number[], rps: number[], p99: number[] }>} */
  const out = {};
  for (const id of SERVERS) await driver.run({ ...runnerOf(id).opts, connections: CONNECTIONS, duration: 2 });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const id of SERVERS) {
      const { server, opts } = runnerOf(id);
      const pid = /** @type {number} */ (server.child.pid);
      const before = cpuMicros(pid);
      const s = await driver.run({ ...opts, connections: CONNECTIONS, duration: SECONDS });
      const used = cpuMicros(pid) - before;
      const slot = (out[id] ??= { us: [], rps: [], p99: [] });
      slot.us.push(used / s.total);
      slot.rps.push(s.rps);
      slot.p99.push(s.p99);
      process.stdout.write(
        `round ${round} ${id.padEnd(5)} ${(used / s.total).toFixed(1).padStart(6)} µs/resp  ${fmt(s.rps).padStart(7)} req/s  p99 ${s.p99.toFixed(2)} ms  ${JSON.stringify(s.statuses)}\n`,
      );
    }
  }
  process.stdout.write('\nmedian µs/response (min–max), median req/s:\n');
  for (const [id, v] of Object.entries(out)) {
    process.stdout.write(
      `  ${id.padEnd(5)} ${median(v.us).toFixed(1)} µs (${Math.min(...v.us).toFixed(1)}–${Math.max(...v.us).toFixed(1)})  ${fmt(median(v.rps))} req/s\n`,
    );
  }
  // Paired per round (same minute, same neighbours on the machine): the figure to judge a change by.
  const [ref, ...others] = Object.keys(out);
  for (const id of others) {
    const per = out[id].us.map((us, i) => us / out[ref].us[i]);
    process.stdout.write(
      `  µs ${id}/${ref} per round: ${per.map((x) => x.toFixed(2)).join(' ')}; median ${median(per).toFixed(3)}\n`,
    );
  }
  for (const s of running.splice(0)) await s.stop();
  if (PROFILE) {
    const p = summarizeProfile(profileFile, 30);
    process.stdout.write(`\nprofile of (${PROFILE}): ${fmt(p.busyMs)} ms busy\n`);
    for (const x of p.areas.slice(0, 14))
      process.stdout.write(`  ${(x.share * 100).toFixed(1).padStart(5)} %  ${x.area}\n`);
    for (const f of p.frames)
      process.stdout.write(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.fn}  ${f.where}\n`);
  }
} finally {
  for (const s of running) await s.stop();
  driver.stop();
}

// Bench only: what pet maintenance (docs/rules.md §12) costs. Two questions, each answered with
// paired rounds (the two sides back to back in each round, their order alternating, the ratio of
// req/s taken per round, then the median of the ratios):
// - does the list step back when pets are withdrawn? The bench composition (bench/app-server.mjs)
//   with 10,000 pets, once with none withdrawn and once with 10 % of them withdrawn (every 10th id),
//   on the same queries; target: withdrawn ≥ 0.97× none (at most 3 % slower);
// - is a PATCH as cheap as a create? PATCH /v1/pets/{id} (each connection its own pet, a new name
//   each time: every request a real change) against POST /v1/pets; target: PATCH ≥ 0.9× POST.
// Servers on core 0, the load generator on core 1 (when taskset exists), 50 connections. Each round
// also takes the server's CPU time per response (from /proc, as the rest of pnpm bench does): on a
// shared, loaded machine req/s moves with whatever else runs, CPU per response much less.
import os from 'node:os';
import { cpuMicros, fmt, freePort, median, startProcess } from './lib.mjs';

const SEED = 10_000;
const WITHDRAWN_PERCENT = 10;
const BEGIN = '<!-- maintenance -->';
const END = '<!-- /maintenance -->';

/**
 * @param {{ driver: { run: (o: Record<string, unknown>) => Promise<{ rps: number, p50: number, total: number, statuses: Record<string, number> }> },
 *           keys: string, auth: Record<string, string>, adminKey: string, connections: number, rounds: number, duration: number,
 *           say: (line: string) => void, running: { stop: () => Promise<unknown> }[] }} o
 */
export const measureMaintenance = async (o) => {
  const { driver, say } = o;
  /** @type {string[]} */
  const anomalies = [];
  const loadBefore = os.loadavg()[0];
  const start = async (/** @type {string} */ name, /** @type {Record<string, string>} */ env) => {
    const port = await freePort();
    const server = await startProcess({
      name,
      core: 0,
      nodeArgs: ['--expose-gc', 'bench/app-server.mjs'],
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        PETSTORE_API_KEYS: o.keys,
        PETSTORE_LOG_LEVEL: 'warn',
        BENCH_SEED_PETS: String(SEED),
        ...env,
      },
      port,
      readyPath: '/v1/openapi.json',
      timeoutMs: 120_000,
    });
    o.running.push(server);
    return server;
  };
  const none = await start('app-server, no pet withdrawn', {});
  const withdrawn = await start(`app-server, ${WITHDRAWN_PERCENT} % withdrawn`, {
    BENCH_WITHDRAW_PERCENT: String(WITHDRAWN_PERCENT),
  });
  const { encodeCursor, pageScope } = await import('../packages/domain/dist/src/index.js');
  const queries = {
    'first page (limit=20)': '/v1/pets?limit=20',
    'page at n/2 (limit=20, cursor)': `/v1/pets?limit=20&cursor=${encodeCursor(SEED / 2, pageScope('pets', {}))}`,
    'category, page at n/2': `/v1/pets?limit=20&categoryId=7&cursor=${encodeCursor(SEED / 2, pageScope('pets', { categoryId: 7 }))}`,
  };
  // The same page size on both sides: a withdrawn pet is never a hole in a page.
  for (const path of Object.values(queries)) {
    const [a, b] = await Promise.all(
      [none, withdrawn].map(async (s) => (await (await fetch(s.url + path, { headers: o.auth })).json()).length),
    );
    if (a !== 20 || b !== 20) anomalies.push(`${path}: ${a} and ${b} pets on the page`);
  }
  const load = (
    /** @type {string} */ url,
    /** @type {number} */ duration,
    /** @type {Record<string, unknown>} */ extra,
  ) => driver.run({ url, connections: o.connections, pipelining: 1, duration, ...extra });
  /** A load on server `s`, with the server's CPU µs per response. */
  const measured = async (
    /** @type {{ child: { pid?: number } }} */ s,
    /** @type {string} */ url,
    /** @type {number} */ duration,
    /** @type {Record<string, unknown>} */ extra,
  ) => {
    const before = cpuMicros(s.child.pid ?? 0);
    const r = await load(url, duration, extra);
    return { ...r, cpu: (cpuMicros(s.child.pid ?? 0) - before) / Math.max(1, r.total) };
  };
  for (const s of [none, withdrawn])
    for (const path of Object.values(queries)) await load(s.url + path, 1, { headers: o.auth });

  /** @type {Record<string, { none: number[], withdrawn: number[], ratios: number[], cpuRatios: number[] }>} */
  const list = {};
  for (let round = 1; round <= o.rounds; round++) {
    for (const [label, path] of Object.entries(queries)) {
      const slot = (list[label] ??= { none: [], withdrawn: [], ratios: [], cpuRatios: [] });
      const order =
        round % 2 === 1
          ? [
              ['none', none],
              ['withdrawn', withdrawn],
            ]
          : [
              ['withdrawn', withdrawn],
              ['none', none],
            ];
      /** @type {Record<string, { rps: number, cpu: number }>} */
      const got = {};
      for (const [side, s] of /** @type {[string, { url: string, child: { pid?: number } }][]} */ (order)) {
        const r = await measured(s, s.url + path, o.duration, { headers: o.auth });
        if ((r.statuses['200'] ?? 0) !== r.total)
          anomalies.push(`list ${side} ${label}: ${JSON.stringify(r.statuses)}`);
        got[side] = r;
      }
      slot.none.push(got.none.rps);
      slot.withdrawn.push(got.withdrawn.rps);
      slot.ratios.push(got.withdrawn.rps / got.none.rps);
      // As a speed ratio: CPU per response of none over withdrawn (above 1: the withdrawn side is cheaper).
      slot.cpuRatios.push(got.none.cpu / got.withdrawn.cpu);
      say(
        `maintenance, list round ${round}, ${label.padEnd(32)} none ${fmt(got.none.rps)} req/s ${got.none.cpu.toFixed(1)} µs CPU, ` +
          `${WITHDRAWN_PERCENT} % withdrawn ${fmt(got.withdrawn.rps)} req/s ${got.withdrawn.cpu.toFixed(1)} µs CPU (${(got.withdrawn.rps / got.none.rps).toFixed(3)}×, CPU ${(got.none.cpu / got.withdrawn.cpu).toFixed(3)}×)`,
      );
    }
  }
  await Promise.all([none.stop(), withdrawn.stop()]);

  // PATCH against POST, on a server of their own (creates grow its catalogue).
  const writes = await start('app-server, PATCH and POST', { BENCH_ADMIN_KEY: o.adminKey });
  const json = { 'content-type': 'application/json' };
  // Both sides have their request built anew each time (the PATCH side must: a new name, each connection its own pet).
  const post = {
    method: 'POST',
    headers: { ...o.auth, ...json },
    body: '{"name":"Biscuit the Beagle","categoryId":3,"status":"available"}',
    rebuildEachRequest: true,
  };
  const patch = {
    headers: { ...o.auth, authorization: `Bearer ${o.adminKey}`, ...json },
    patchEachConnection: { pathPrefix: '/v1/pets/', firstId: 1 },
  };
  await load(`${writes.url}/v1/pets`, 1, post);
  await load(writes.url, 1, patch);
  /** @type {{ post: number[], patch: number[], ratios: number[], cpuRatios: number[] }} */
  const write = { post: [], patch: [], ratios: [], cpuRatios: [] };
  for (let round = 1; round <= o.rounds; round++) {
    const order = round % 2 === 1 ? ['post', 'patch'] : ['patch', 'post'];
    /** @type {Record<string, { rps: number, cpu: number }>} */
    const got = {};
    for (const side of order) {
      const r =
        side === 'post'
          ? await measured(writes, `${writes.url}/v1/pets`, o.duration, post)
          : await measured(writes, writes.url, o.duration, patch);
      const expected = side === 'post' ? '201' : '200';
      if ((r.statuses[expected] ?? 0) !== r.total)
        anomalies.push(`${side} round ${round}: ${JSON.stringify(r.statuses)}`);
      got[side] = r;
    }
    write.post.push(got.post.rps);
    write.patch.push(got.patch.rps);
    write.ratios.push(got.patch.rps / got.post.rps);
    write.cpuRatios.push(got.post.cpu / got.patch.cpu);
    say(
      `maintenance, write round ${round}: POST /v1/pets ${fmt(got.post.rps)} req/s ${got.post.cpu.toFixed(1)} µs CPU, ` +
        `PATCH /v1/pets/{id} ${fmt(got.patch.rps)} req/s ${got.patch.cpu.toFixed(1)} µs CPU (${(got.patch.rps / got.post.rps).toFixed(3)}×, CPU ${(got.post.cpu / got.patch.cpu).toFixed(3)}×)`,
    );
  }
  await writes.stop();
  return {
    list,
    write,
    anomalies,
    rounds: o.rounds,
    duration: o.duration,
    connections: o.connections,
    load: [loadBefore, os.loadavg()[0]],
  };
};

/**
 * The BENCHMARKS.md section of a `measureMaintenance` result, between its markers.
 * @param {Awaited<ReturnType<typeof measureMaintenance>>} r
 * @param {string} measured when and where (date, commit, cores)
 */
export const maintenanceSection = (r, measured) => {
  const range = (/** @type {number[]} */ xs) =>
    `${median(xs).toFixed(3)}× (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`;
  const listRows = Object.entries(r.list).map(([label, x]) => ({
    label,
    none: median(x.none),
    withdrawn: median(x.withdrawn),
    ratio: median(x.ratios),
    ratios: x.ratios,
    cpuRatio: median(x.cpuRatios),
    cpuRatios: x.cpuRatios,
  }));
  const worst = Math.min(...listRows.map((x) => x.ratio));
  const worstCpu = Math.min(...listRows.map((x) => x.cpuRatio));
  const writeRatio = median(r.write.ratios);
  const writeCpu = median(r.write.cpuRatios);
  return [
    BEGIN,
    '## Pet maintenance: withdrawn pets and PATCH',
    '',
    `The bench composition (\`bench/app-server.mjs\`, ${fmt(SEED)} pets), ${r.connections} connections, ${r.rounds} paired rounds of ${r.duration} s per side ` +
      '(the two sides back to back in each round, their order alternating; the ratio of req/s per round, then the median, with the range of the rounds). ' +
      `Written by \`pnpm bench\`; \`BENCH_ONLY=maintenance\` runs only this section and replaces it in BENCH_OUT. Measured ${measured}.`,
    '',
    "The ratios are speed ratios: withdrawn over none (PATCH over POST) in req/s, and the same from the server's CPU time per response " +
      '(none over withdrawn, POST over PATCH), which moves much less with the rest of the machine. ' +
      `The machine's 1-minute load average was ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end of this section: ` +
      "well above its core count, req/s is then mostly the other jobs' doing.",
    '',
    `| list query | none withdrawn (req/s) | ${WITHDRAWN_PERCENT} % withdrawn (req/s) | req/s ratio (median, range) | CPU ratio (median, range) |`,
    '|---|--:|--:|--:|--:|',
    ...listRows.map(
      (x) => `| ${x.label} | ${fmt(x.none)} | ${fmt(x.withdrawn)} | ${range(x.ratios)} | ${range(x.cpuRatios)} |`,
    ),
    '',
    '| write | req/s (median) |',
    '|---|--:|',
    `| POST /v1/pets (create) | ${fmt(median(r.write.post))} |`,
    `| PATCH /v1/pets/{id} (a new name each time, each connection its own pet) | ${fmt(median(r.write.patch))} |`,
    '',
    '| target | req/s ratio | met | CPU ratio | met |',
    '|---|--:|:-:|--:|:-:|',
    `| list with ${WITHDRAWN_PERCENT} % of the pets withdrawn ≥ 0.97× none (at most 3 % slower), worst query | ${worst.toFixed(3)}× | ${worst >= 0.97 ? 'yes' : 'no'} | ${worstCpu.toFixed(3)}× | ${worstCpu >= 0.97 ? 'yes' : 'no'} |`,
    `| PATCH ≥ 0.9× POST /v1/pets | ${range(r.write.ratios)} | ${writeRatio >= 0.9 ? 'yes' : 'no'} | ${range(r.write.cpuRatios)} | ${writeCpu >= 0.9 ? 'yes' : 'no'} |`,
    '',
    ...(r.anomalies.length === 0 ? [] : ['Anomalies: ' + r.anomalies.join('; '), '']),
    END,
  ];
};

export const MAINTENANCE_MARKERS = { begin: BEGIN, end: END };

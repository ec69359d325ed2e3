// bench/instr.mjs's measuring machinery: one server under callgrind, its scenarios measured in
// windows until two in a row agree (the method is in bench/instr.mjs's header). Bench only.
import { spawn, execFileSync } from 'node:child_process';
import { openSync, readFileSync, readdirSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, BENCH_DIR, cleanEnv, freePort, sleep, fmt } from './lib.mjs';
import { measureUntilSettled, SETTLE_DEFAULTS } from './settle.mjs';

const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
export const W = num('INSTR_W', 20_000);
export const WR = num('INSTR_WR', 10);
export const M = num('INSTR_M', 2_000);
export const C = num('INSTR_C', 4);
export const STABLE = num('INSTR_STABLE', SETTLE_DEFAULTS.tolerance);
export const PAIRS = num('INSTR_PAIRS', SETTLE_DEFAULTS.maxPairs);
const PERF_MAP = process.env.INSTR_PERF_MAP === '1';
/** Where the dumps, logs, fixtures and results.json go. */
export const DIR = join(ROOT, 'bench/results/instr');
const SERVER_HOST = '127.0.0.1';

/** Runs bench/instr-load.mjs and waits for it; throws when an answer had another status. */
const load = (o) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(BENCH_DIR, 'instr-load.mjs'), JSON.stringify(o)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(undefined) : reject(new Error(err.trim() || `instr-load exited ${code}`)),
    );
  });

// valgrind names its control pipes after the HOST variable of the process it runs: callgrind_control must see the same one.
const callgrind = (pid, ...args) =>
  execFileSync('callgrind_control', [...args, String(pid)], {
    env: { ...process.env, HOST: SERVER_HOST },
    stdio: process.env.INSTR_DEBUG ? 'inherit' : 'ignore',
  });

/** Ir of the newest dump of `base` (base.1, base.2, …). */
const newestDumpIr = (base) => {
  const name = base.split('/').pop();
  const dumps = readdirSync(DIR)
    .filter((f) => f.startsWith(name + '.'))
    .map((f) => ({ f, n: Number(f.slice(name.length + 1)) }))
    .filter((d) => Number.isInteger(d.n))
    .sort((a, b) => b.n - a.n);
  if (dumps.length === 0) throw new Error(`no callgrind dump for ${name}`);
  const text = readFileSync(join(DIR, dumps[0].f), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith('summary:') || l.startsWith('totals:'));
  if (line === undefined) throw new Error(`no summary in ${dumps[0].f}`);
  return { ir: Number(line.split(/\s+/)[1]), dump: join(DIR, dumps[0].f) };
};

/**
 * Starts one server under callgrind, runs `prepare`, then measures each scenario in turn, in
 * windows until two in a row agree (bench/settle.mjs).
 * @returns {Promise<Record<string, { perRequest: number, stable: boolean, windows: number[], dump: string }>>}
 */
export const measureServer = async ({ label, nodeArgs, cwd = ROOT, env, readyPath, prepare, scenarios }) => {
  const port = await freePort();
  const base = join(DIR, `${label}.cg`);
  const logPath = join(DIR, `${label}.log`);
  const log = openSync(logPath, 'w');
  const args = [
    '--tool=callgrind',
    '--instr-atstart=no',
    `--callgrind-out-file=${base}`,
    process.execPath,
    ...(PERF_MAP ? ['--perf-basic-prof'] : []),
    ...nodeArgs(port),
  ];
  const child = spawn('valgrind', args, {
    cwd,
    env: { ...cleanEnv(), PORT: String(port), HOST: SERVER_HOST, ...env },
    stdio: ['ignore', log, log],
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const results = {};
  try {
    for (let waited = 0; ; waited += 500) {
      if (exited) throw new Error(`${label} exited before it was ready (log: ${logPath})`);
      try {
        const res = await fetch(url + readyPath);
        await res.arrayBuffer();
        break;
      } catch {
        if (waited > 240_000) throw new Error(`${label} not ready after 240 s (log: ${logPath})`);
        await sleep(500);
      }
    }
    const context = { url, port };
    await prepare?.(context);
    for (const s of scenarios) {
      if (s.when !== undefined && !(await s.when(context))) continue;
      const request = {
        port,
        path: s.path,
        method: s.method ?? 'GET',
        headers: s.headers ?? {},
        keys: s.keys,
        body: s.body,
        contentType: s.contentType,
        c: C,
        expect: s.expect ?? 200,
      };
      /** Warm-up rounds of W / WR requests, each a new client process with new connections (uninstrumented). */
      const warmUp = async (rounds) => {
        for (let r = 0; r < rounds && W > 0; r++) await load({ ...request, n: Math.ceil(W / WR) });
      };
      let dump = '';
      /** One window: exactly M requests, instrumented; Ir per request. */
      const measure = async () => {
        callgrind(child.pid, '-i', 'on');
        callgrind(child.pid, '-z');
        await load({ ...request, n: M });
        callgrind(child.pid, '-d');
        callgrind(child.pid, '-i', 'off');
        const newest = newestDumpIr(base);
        dump = newest.dump;
        return newest.ir / M;
      };
      await warmUp(WR);
      const settled = await measureUntilSettled({
        measure,
        warmUp: () => warmUp(1),
        tolerance: STABLE,
        maxPairs: PAIRS,
      });
      results[s.name] = { perRequest: settled.value, stable: settled.stable, windows: settled.windows, dump };
      console.log(
        `${label.padEnd(10)} ${s.name.padEnd(8)} ${fmt(settled.value)} Ir/request stable=${settled.stable ? 'yes' : 'no'} windows=${settled.windows.map((w) => `${fmt(w / 1000, 1)}k`).join(' ')}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (exited ? resolve(undefined) : child.once('exit', resolve)));
    closeSync(log);
  }
  return results;
};

// Shared helpers of the benchmark scripts (bench only, never part of the product).
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(BENCH_DIR, '..');

/** True when `taskset` exists: servers go on core 0, the load generator on core 1. */
export const HAS_TASKSET = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * The command line of a Node process, pinned to `core` when taskset exists.
 * @param {number | undefined} core
 * @param {string[]} nodeArgs
 * @returns {[string, string[]]}
 */
export const pinned = (core, nodeArgs) =>
  HAS_TASKSET && core !== undefined
    ? ['taskset', ['-c', String(core), process.execPath, ...nodeArgs]]
    : [process.execPath, nodeArgs];

/** Moves this process to core 1 (with the load generator), so the orchestrator never runs on the servers' core. */
export const pinSelf = () => {
  if (!HAS_TASKSET) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  } catch {
    /* not allowed: run unpinned */
  }
};

/** A port the OS says is free now. @returns {Promise<number>} */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });

/** The environment without any server setting of the caller's, so every server gets only what the bench gives it. */
export const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PETSTORE_') && !['PORT', 'HOST', 'MONGODB_URI', 'NODE_OPTIONS'].includes(k),
    ),
  );

/** @param {number} ms */
/** utime + stime of a process and all its threads, in µs (clock ticks of 10 ms), from /proc (Linux). @param {number} pid */
export const cpuMicros = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a server as a child process and waits until `readyPath` answers 200.
 * @param {{ name: string, core?: number, nodeArgs: string[], env?: Record<string, string>, port: number,
 *           readyPath: string, stdout?: 'ignore' | 'count', timeoutMs?: number }} o
 * With `stdout: 'count'` the child's stdout is a pipe (as under a container runtime) and only its
 * lines are counted here; otherwise it goes to /dev/null.
 */
export const startProcess = async (o) => {
  const [cmd, args] = pinned(o.core, o.nodeArgs);
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...cleanEnv(), ...(o.env ?? {}) },
    stdio: ['ignore', o.stdout === 'count' ? 'pipe' : 'ignore', 'pipe'],
  });
  let lines = 0;
  let bytes = 0;
  child.stdout?.on('data', (/** @type {Buffer} */ d) => {
    bytes += d.length;
    for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${o.port}`;
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`${o.name} exited before it was ready: ${stderr.trim()}`);
    try {
      const res = await fetch(url + o.readyPath);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL'); // never leave a server behind that the caller cannot stop
      throw new Error(`${o.name} not ready within ${o.timeoutMs ?? 60_000} ms: ${stderr.trim()}`);
    }
    await sleep(50);
  }
  return {
    name: o.name,
    url,
    child,
    /** SIGTERM, then wait for the exit (SIGKILL after 15 s). */
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve(undefined);
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
        child.kill('SIGTERM');
      }),
    stderr: () => stderr,
    /** Lines and bytes the child wrote on stdout so far (with `stdout: 'count'`). */
    output: () => ({ lines, bytes }),
  };
};

/**
 * The load generator: one long-lived process, pinned to core 1, that runs a load on request
 * (`script`: bench/drive.mjs, autocannon; bench/http-load.mjs, node:http). `run` resolves with
 * the run's summary.
 * @param {string} [script] the generator's file in bench/
 */
export const startDriver = (script = 'drive.mjs') => {
  const [cmd, args] = pinned(1, [join(BENCH_DIR, script)]);
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let next = 0;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const pending = new Map();
  child.on('message', (/** @type {any} */ m) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p?.reject(new Error(`load generator: ${m.error}`));
    else p?.resolve(m.summary);
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`load generator exited (${code})`));
  });
  return {
    /**
     * @param {Record<string, unknown>} options autocannon options
     * @returns {Promise<{ rps: number, p50: number, p99: number, total: number, duration: number, statuses: Record<string, number>, errors: number, timeouts: number }>}
     */
    run: (options) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        child.send({ id, options });
      }),
    stop: () => child.disconnect(),
  };
};

/** @param {number[]} values */
export const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A small deterministic PRNG (mulberry32), so every run seeds the same pets. @param {number} seed */
export const prng = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const FIRST = [
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Lucy',
  'Cooper',
  'Daisy',
  'Milo',
  'Zoe',
  'Rocky',
  'Lola',
  'Buddy',
  'Sadie',
  'Bear',
  'Molly',
  'Tucker',
  'Bailey',
  'Oliver',
  'Stella',
  'Duke',
  'Maggie',
  'Leo',
  'Chloe',
  'Jack',
  'Penny',
  'Toby',
  'Ruby',
  'Oscar',
  'Rosie',
  'Winston',
  'Nala',
  'Simba',
  'Coco',
  'Gizmo',
  'Pepper',
  'Shadow',
  'Ginger',
  'Biscuit',
  'Mochi',
  'Ziggy',
];
const SECOND = [
  '',
  '',
  '',
  ' the Beagle',
  ' the Tabby',
  ' Jr.',
  ' (senior)',
  ' the Parrot',
  ' Whiskers',
  ' von Fluff',
  ' the Rabbit',
  ' Sunshine',
  ' the Husky',
  ' Pickles',
  ' the Hamster',
  ' Marmalade',
];
const STATUSES = [
  'available',
  'available',
  'available',
  'available',
  'available',
  'available',
  'pending',
  'pending',
  'pending',
  'sold',
];

/**
 * The `n`-th body of a deterministic stream of realistic create requests, as the JSON text a
 * client would send: names of 3 to 25 characters, categories 1–`categories` (default 12), 60 % available, 30 % pending, 10 % sold.
 * @param {() => number} random
 * @param {number} [categories]
 */
export const petBody = (random, categories = 12) => {
  const name = FIRST[Math.floor(random() * FIRST.length)] + SECOND[Math.floor(random() * SECOND.length)];
  const categoryId = 1 + Math.floor(random() * categories);
  const status = STATUSES[Math.floor(random() * STATUSES.length)];
  return `{"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":"${status}"}`;
};

/** @param {number} n @param {number} [digits] */
export const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * How many categories a scale catalogue of `n` pets spreads over: 1,000 from 10⁵ pets on (10⁶ pets:
 * about 1,000 per category, the figure), and n/100 below, so that even at 10³ pets each
 * category holds about 100 (60 of them available): a page of 20 by category, or by status and
 * category, is a full page at every size and the ratio between sizes measures the lookup (an index
 * of ~100 pets at 10³, ~1,000 at 10⁶), not a shorter page.
 * @param {number} n
 */
export const scaleCategories = (n) => Math.max(1, Math.min(1_000, Math.floor(n / 100)));

// The photos' part of the benchmarks (docs/rules.md §13): `BENCH_ONLY=photos pnpm bench` runs only
// this and replaces its section of BENCHMARKS.md (the full `pnpm bench` keeps the section of the last
// such run). Bench only: nothing here is part of the product.
//
// 1. Serving: GET of a photo of about 200 KB on the real server (a) against a minimal Koa app (c)
//    sending the same bytes (bench/koa-photo-server.mjs), req/s in paired rounds; and (a)'s 304s
//    (If-None-Match) against (a)'s JSON list (`GET /v1/pets?limit=20`). Servers on core 0, the load
//    generator on core 1 (taskset), as in the rest of the bench.
// 2. Uploading, on a server (u) with both cores (image work takes cores − 1 of them by design, so
//    pinning it to one core would measure another design): photos per second and server CPU per
//    megapixel for 12 MP JPEGs; the event loop's p99 delay (prom-client's monitorEventLoopDelay
//    histogram, reset by a scrape before each window) while list requests are served at a fixed rate,
//    idle and while uploads run; the clients' p99 of those list requests too.
// 3. Memory: RSS of a fresh server after 200 uploads of 12 MP JPEGs, against the photo budget (256 MiB) +
//    150 MiB, with glibc's malloc as it comes and with its arenas capped and its mmap threshold fixed.
//
// 4. An upload burst (issue 26, its own section, `measureUploadBurst`): 50 uploads of a 10 MB JPEG at once
//    on a server (u) with both cores, while a probe (bench/upload-burst.mjs) times a new connection's
//    first byte and `GET /v1/pets` on a kept-alive connection, side by side with the same probe on the
//    idle server; the CPU the rest of the machine used meanwhile is read from /proc.
//
// Knobs: BENCH_PHOTO_ROUNDS (5), BENCH_PHOTO_DURATION (5 s a round), BENCH_PHOTO_UPLOADS (200),
// BENCH_PHOTO_LIST_RATE (200 list requests/s during the event-loop windows), BENCH_PHOTO_WINDOW (10 s),
// BENCH_PHOTO_PARTS (serving,uploading,memory,burst), BENCH_BURST_ROUNDS (3), BENCH_BURST_WINDOW (20 s),
// BENCH_BURST_UPLOADS (50), BENCH_BURST_ENV (extra server settings for the burst, `K=V,K=V`).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  ROOT,
  BENCH_DIR,
  HAS_TASKSET,
  startProcess,
  startDriver,
  freePort,
  median,
  fmt,
  cpuMicros,
  sleep,
} from './lib.mjs';

const num = (/** @type {string} */ name, /** @type {number} */ fallback) => {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number(raw);
};
const ROUNDS = num('BENCH_PHOTO_ROUNDS', 5);
const DURATION = num('BENCH_PHOTO_DURATION', 5);
const UPLOADS = num('BENCH_PHOTO_UPLOADS', 200);
const LIST_RATE = num('BENCH_PHOTO_LIST_RATE', 200);
const WINDOW = num('BENCH_PHOTO_WINDOW', 10);
/** BENCH_PHOTO_PARTS: a comma-separated subset of serving, uploading, memory (all by default), to look at one part; the section then shows only those. */
export const PARTS = new Set(
  (process.env.BENCH_PHOTO_PARTS ?? 'serving,uploading,memory,burst').split(',').map((p) => p.trim()),
);
const CONNECTIONS = 50;
const BUDGET_MIB = 256;
/** prom-client's event-loop sampling interval (its `eventLoopMonitoringPrecision` default): every sample of the delay holds it. */
const SAMPLING_MS = 10;

const ENTERPRISE = 'bench-photos-enterprise-5c1e9a7b3d';
const ADMIN = 'bench-photos-admin-8e2f4a6c0b';
const HUGE = '100000000000000';
const AUTH = { authorization: `Bearer ${ENTERPRISE}` };
const ADMIN_AUTH = { authorization: `Bearer ${ADMIN}` };

/** The test images of the photo tests (sharp, from dist/). */
const { testImage } = await import(join(ROOT, 'packages/adapters-sharp/dist/test-support/index.js'));

/** VmRSS and VmHWM of a process, in MiB, from /proc (Linux). @param {number} pid */
const memoryOf = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (/** @type {string} */ field) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
};

/** The event loop's p99 delay since the last scrape, in ms (prom-client resets its histogram on every scrape). @param {string} metricsUrl */
const eventLoopP99 = async (metricsUrl) => {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_p99_seconds '));
  return Number(line?.split(' ')[1] ?? NaN) * 1000;
};

const json = async (/** @type {Response} */ res, /** @type {number} */ status, /** @type {string} */ what) => {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
};

/**
 * Starts the real server (apps/server/dist/src/main.js, memory store, metrics on) with the bench keys.
 * @param {string} name @param {number | undefined} core @param {Record<string, string>} [env]
 */
const startServer = async (name, core, env = {}) => {
  const port = await freePort();
  const metricsPort = await freePort();
  const server = await startProcess({
    name,
    core,
    nodeArgs: ['apps/server/dist/src/main.js'],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      PETSTORE_API_KEYS: `${ENTERPRISE}:enterprise:${HUGE}:${HUGE}`,
      PETSTORE_ADMIN_KEYS: ADMIN,
      PETSTORE_METRICS_PORT: String(metricsPort),
      ...env,
    },
    port,
    readyPath: '/v1/openapi.json',
    stdout: 'count',
  });
  return { ...server, metricsUrl: `http://127.0.0.1:${metricsPort}` };
};

/** Creates a category, then `count` pets; their ids. @param {string} url @param {number} count */
const seedPets = async (url, count) => {
  await json(
    await fetch(`${url}/v1/categories`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: '{"name":"Dogs"}',
    }),
    201,
    'category',
  );
  const ids = [];
  for (let i = 0; i < count; i++) {
    const pet = await json(
      await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 }),
      }),
      201,
      'pet',
    );
    ids.push(pet.id);
  }
  return ids;
};

/** @param {string} url @param {number} petId @param {Buffer} body */
const upload = (url, petId, body) =>
  fetch(`${url}/v1/pets/${petId}/photos`, {
    method: 'POST',
    headers: { ...ADMIN_AUTH, 'content-type': 'image/jpeg' },
    body,
  });

/**
 * Measures the photos' figures and answers the BENCHMARKS.md section (without its markers).
 * @param {(line: string) => void} say
 * @returns {Promise<string[]>}
 */
export const measurePhotos = async (say) => {
  const driver = startDriver();
  const httpDriver = startDriver('http-load.mjs');
  /** @type {{ stop(): Promise<unknown> }[]} */
  const running = [];
  const list20 = '/v1/pets?limit=20';
  const lines = [
    '## Photos (docs/rules.md §13)',
    '',
    `Written by \`BENCH_ONLY=photos pnpm bench\` (bench/photos.mjs) on ${new Date().toISOString().slice(0, 10)}; the full \`pnpm bench\` keeps this section as it is. ` +
      'The machine is shared (2 cores, other jobs running): figures move by ±20 % between runs; the ratios, taken per paired round, are the ones to compare.',
    '',
  ];
  try {
    if (PARTS.has('serving')) {
      // ---- 1. Serving ----
      const a = await startServer('(a) full stack', 0);
      running.push(a);
      const pets = await seedPets(a.url, 30);
      // A photo whose stored original is about 200 KB: 900 × 675 of noisy gradient, re-encoded by the server.
      const sent = await testImage({ format: 'jpeg', width: 900, height: 675, content: 'photo', seed: 11 });
      const photo = await json(await upload(a.url, pets[0], sent), 201, 'upload');
      const photoPath = `/v1/pets/${pets[0]}/photos/${photo.id}`;
      const got = await fetch(a.url + photoPath, { headers: AUTH });
      const bytes = Buffer.from(await got.arrayBuffer());
      const etag = got.headers.get('etag') ?? '';
      const file = join(ROOT, 'bench/results/photo.jpg');
      writeFileSync(file, bytes);
      const portC = await freePort();
      const c = await startProcess({
        name: '(c) minimal Koa',
        core: 0,
        nodeArgs: ['bench/koa-photo-server.mjs', file, 'image/jpeg', String(portC)],
        port: portC,
        readyPath: '/healthz',
      });
      running.push(c);
      const fromC = Buffer.from(await (await fetch(c.url + photoPath)).arrayBuffer());
      if (!fromC.equals(bytes)) throw new Error('(c) does not serve the bytes of (a)');
      say(
        `serving a ${fmt(bytes.length / 1000)} KB photo: (a) ${a.url}, (c) ${c.url}; ${ROUNDS} paired rounds of ${DURATION} s`,
      );

      // The photo's bytes through node:http (autocannon is the bottleneck at 200 KB a body), the small answers through autocannon.
      const run = (/** @type {string} */ url, /** @type {Record<string, string>} */ headers, duration = DURATION) =>
        (url.endsWith(photoPath) && headers['if-none-match'] === undefined ? httpDriver : driver).run({
          url,
          connections: CONNECTIONS,
          pipelining: 1,
          duration,
          headers,
        });
      for (const [url, headers] of /** @type {[string, Record<string, string>][]} */ ([
        [a.url + photoPath, AUTH],
        [c.url + photoPath, {}],
        [a.url + photoPath, { ...AUTH, 'if-none-match': etag }],
        [a.url + list20, AUTH],
      ])) {
        await run(url, headers, 2);
      }
      /** @type {{ a: any[], c: any[], notModified: any[], list: any[] }} */
      const serving = { a: [], c: [], notModified: [], list: [] };
      const cpu = { a: [], c: [], notModified: [], list: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const [key, server, url, headers, status] of /** @type {const} */ ([
          ['a', a, a.url + photoPath, AUTH, '200'],
          ['c', c, c.url + photoPath, {}, '200'],
          ['notModified', a, a.url + photoPath, { ...AUTH, 'if-none-match': etag }, '304'],
          ['list', a, a.url + list20, AUTH, '200'],
        ])) {
          const before = cpuMicros(server.child.pid);
          const s = await run(url, headers);
          if ((s.statuses[status] ?? 0) !== s.total)
            throw new Error(`${key}: ${JSON.stringify(s.statuses)} where all should be ${status}`);
          serving[key].push(s);
          cpu[key].push((cpuMicros(server.child.pid) - before) / s.total);
        }
        say(
          `round ${round + 1}: GET (a) ${fmt(serving.a[round].rps)} vs (c) ${fmt(serving.c[round].rps)} req/s; 304 ${fmt(serving.notModified[round].rps)} vs list ${fmt(serving.list[round].rps)} req/s`,
        );
      }
      const ratio = (/** @type {any[]} */ x, /** @type {any[]} */ y) => median(x.map((s, i) => s.rps / y[i].rps));
      const serveRatio = ratio(serving.a, serving.c);
      const notModifiedRatio = ratio(serving.notModified, serving.list);
      await Promise.all(running.splice(0).map((p) => p.stop()));

      const row = (/** @type {string} */ label, /** @type {any[]} */ runs, /** @type {number[]} */ us) =>
        `| ${label} | ${fmt(median(runs.map((s) => s.rps)))} | ${median(runs.map((s) => s.p50)).toFixed(2)} | ${median(runs.map((s) => s.p99)).toFixed(2)} | ${median(us).toFixed(1)} |`;
      lines.push(
        `**Serving** (${HAS_TASKSET ? 'servers on core 0, load generator on core 1' : 'no pinning'}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s, the servers alternating within each round, after a 2 s warm-up each). ` +
          'The photo is fetched with a node:http load generator (bench/http-load.mjs: keep-alive, one request at a time per connection), since autocannon parses 200 KB bodies at only some 400 answers a second, whatever the server; the 304s and the list with autocannon, as in the rest of the bench. ' +
          `(a) is the product (\`apps/server/dist/src/main.js\`, memory store, metrics on, logging at \`info\`) answering \`GET /v1/pets/{petId}/photos/{photoId}\` with an enterprise key: ` +
          `a ${fmt(bytes.length)}-byte JPEG (a 900 × 675 photo as the server stored it), with its ETag, Cache-Control, nosniff and the rate-limit headers. (c) is a minimal Koa app sending the same bytes with their Content-Type (bench/koa-photo-server.mjs): no key, no quota, no log.`,
        '',
        '| scenario | req/s | p50 ms | p99 ms | server CPU µs per response |',
        '|---|--:|--:|--:|--:|',
        row('(a) GET the photo', serving.a, cpu.a),
        row('(c) minimal Koa, the same bytes', serving.c, cpu.c),
        row('(a) GET the photo with If-None-Match → 304', serving.notModified, cpu.notModified),
        row('(a) GET /v1/pets?limit=20 (30 pets: a full page of 20)', serving.list, cpu.list),
        '',
        `- GET of the photo, (a) / (c): **${serveRatio.toFixed(3)}×** (median of the per-round ratios ${serving.a.map((s, i) => (s.rps / serving.c[i].rps).toFixed(2)).join(', ')}; goal ≥ 0.8×: ${serveRatio >= 0.8 ? 'met' : 'not met'}).`,
        `- Server CPU per response, (c) / (a): ${(median(cpu.c) / median(cpu.a)).toFixed(3)}× (the ratio req/s would show where the server's core, not the load generator, sets the pace: at 200 KB an answer the node:http client on one core is near its own limit, so the req/s ratio leans towards 1 in quiet rounds and away from it in contended ones).`,
        `- 304 / the JSON list, both (a): **${notModifiedRatio.toFixed(3)}×** (per round ${serving.notModified.map((s, i) => (s.rps / serving.list[i].rps).toFixed(2)).join(', ')}; goal ≥ 1.0×: ${notModifiedRatio >= 1 ? 'met' : 'not met'}).`,
        '',
      );
    }
    /** @type {Buffer[]} */
    const big = [];
    if (PARTS.has('uploading') || PARTS.has('memory')) {
      say('making 4 different 12 MP JPEGs (4,000 × 3,000, noisy gradients)');
      for (let i = 0; i < 4; i++)
        big.push(await testImage({ format: 'jpeg', width: 4_000, height: 3_000, content: 'photo', seed: 100 + i }));
    }
    if (PARTS.has('uploading')) {
      // ---- 2. Uploading, and the event loop meanwhile ----
      const u = await startServer('(u) full stack, both cores', undefined);
      running.push(u);
      // 12 places a pet; room for the uploads of the windows too.
      const uPets = await seedPets(u.url, Math.ceil((UPLOADS + 120) / 12));
      const megapixels = 12;
      let uploadsDone = 0;
      const statuses = /** @type {Record<string, number>} */ ({});
      /** Uploads one 12 MP JPEG to the next pet with room (12 a pet). */
      const uploadNext = async () => {
        const n = uploadsDone++;
        const res = await upload(u.url, uPets[Math.floor(n / 12)], big[n % big.length]);
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status !== 201 && res.status !== 507) throw new Error(`upload ${n}: ${res.status}`);
      };
      /** `workers` clients uploading one after the other until `until()` says stop. */
      const uploadWhile = (/** @type {number} */ workers, /** @type {() => boolean} */ until) =>
        Promise.all(
          Array.from({ length: workers }, async () => {
            while (until()) await uploadNext();
          }),
        );

      // Throughput: 24 uploads, 2 clients at a time (the processor works on one, the next one's body arrives meanwhile).
      const startCpu = cpuMicros(u.child.pid);
      const t0 = performance.now();
      const target = 24;
      await uploadWhile(2, () => uploadsDone < target);
      const seconds = (performance.now() - t0) / 1000;
      const uploadCpuMs = (cpuMicros(u.child.pid) - startCpu) / 1000;
      const throughput = {
        photos: uploadsDone,
        seconds,
        perSecond: uploadsDone / seconds,
        cpuMsPerMp: uploadCpuMs / (uploadsDone * megapixels),
        cpuMsPerPhoto: uploadCpuMs / uploadsDone,
      };
      say(
        `uploads: ${uploadsDone} in ${seconds.toFixed(1)} s = ${throughput.perSecond.toFixed(2)} photos/s; ${throughput.cpuMsPerMp.toFixed(1)} ms CPU per megapixel`,
      );

      // The event loop: list requests at a fixed rate, idle, then while uploads run; alternating, 2 windows each.
      const listAtRate = () =>
        driver.run({
          url: u.url + list20,
          connections: 10,
          pipelining: 1,
          duration: WINDOW,
          overallRate: LIST_RATE,
          headers: AUTH,
        });
      /** @type {{ idle: { loop: number, p99: number }[], busy: Record<number, { loop: number, p99: number, uploads: number }[]> }} */
      const loop = { idle: [], busy: { 0: [], 1: [], 2: [] } };
      // 0: one upload a second (a shelter's busy hour); 1: one uploader back to back; 2: two (the processor's whole pace).
      // 2 windows each, each after an idle one.
      for (const clients of [0, 1, 2]) {
        for (let w = 0; w < 2; w++) {
          await eventLoopP99(u.metricsUrl);
          const idle = await listAtRate();
          const idleLoop = await eventLoopP99(u.metricsUrl);
          loop.idle.push({ loop: idleLoop, p99: idle.p99 });
          let uploading = true;
          const before = uploadsDone;
          const uploads =
            clients === 0
              ? (async () => {
                  while (uploading) await Promise.all([uploadNext(), sleep(1_000)]);
                })()
              : uploadWhile(clients, () => uploading);
          await sleep(1_000); // the first bodies are on their way
          await eventLoopP99(u.metricsUrl);
          const busy = await listAtRate();
          const busyLoop = await eventLoopP99(u.metricsUrl);
          uploading = false;
          await uploads;
          loop.busy[clients].push({ loop: busyLoop, p99: busy.p99, uploads: uploadsDone - before });
          say(
            `${['1 upload/s', '1 uploader', '2 uploaders'][clients]}, window ${w + 1}: event loop p99 ${idleLoop.toFixed(1)} ms idle, ${busyLoop.toFixed(1)} ms while uploading (${uploadsDone - before} uploads); list p99 ${idle.p99.toFixed(2)} / ${busy.p99.toFixed(2)} ms`,
          );
        }
      }

      await Promise.all(running.splice(0).map((p) => p.stop()));

      const idleLoop = median(loop.idle.map((x) => x.loop));
      const beyond = (/** @type {number} */ ms) => ms - SAMPLING_MS;
      const busyText = (/** @type {number} */ clients) => {
        const windows = loop.busy[clients];
        const busyLoop = median(windows.map((x) => x.loop));
        const ratio = beyond(busyLoop) / Math.max(0.1, beyond(idleLoop));
        return (
          `${['at one upload a second', 'with one uploader back to back', 'with two uploaders back to back'][clients]} (${windows.map((x) => x.uploads).join(' and ')} uploads in the windows): ` +
          `${busyLoop.toFixed(1)} ms as read, **${beyond(busyLoop).toFixed(1)} ms beyond the interval** (${ratio.toFixed(1)}× idle; goal ≤ 2×: ${ratio <= 2 ? 'met' : 'not met'}); ` +
          `the clients' p99 of the list requests ${median(windows.map((x) => x.p99)).toFixed(2)} ms`
        );
      };
      lines.push(
        `**Uploading** on a server (u) with both cores (image work takes at most cores − 1 = 1 of them at once, by design; pinned to one core it would share it with the event loop), the default budget (${BUDGET_MIB} MiB), 12 MP JPEGs (4,000 × 3,000 noisy gradients, about ${fmt(big[0].length / 1e6, 1)} MB each, 4 different ones in turn), 2 clients each uploading one after the other:`,
        '',
        `- ${throughput.photos} uploads in ${throughput.seconds.toFixed(1)} s: **${throughput.perSecond.toFixed(2)} photos/s**; server CPU **${throughput.cpuMsPerMp.toFixed(1)} ms per megapixel** (${fmt(throughput.cpuMsPerPhoto)} ms per photo: the decode, the re-encode of 12 MP, the 640, 320 and 160 widths, the SHA-256s, the request).`,
        `- The event loop's p99 delay while \`GET /v1/pets?limit=20\` is served at ${LIST_RATE} req/s, idle and while uploads run (${WINDOW} s windows, each after an idle one): ` +
          `prom-client's \`nodejs_eventloop_lag_p99_seconds\` (Node's monitorEventLoopDelay, sampling every ${SAMPLING_MS} ms, its histogram reset by a scrape before each window). ` +
          `Every sample holds the ${SAMPLING_MS} ms interval itself, so the delay is what lies beyond it. Idle: ${idleLoop.toFixed(1)} ms as read, **${beyond(idleLoop).toFixed(1)} ms beyond the interval** ` +
          `(windows ${loop.idle.map((x) => x.loop.toFixed(1)).join(', ')} ms; the clients' p99 of the list requests ${median(loop.idle.map((x) => x.p99)).toFixed(2)} ms). ` +
          `While uploading ${busyText(0)}; ${busyText(1)}; ${busyText(2)}.`,
        '',
        "What holds the event loop while uploads run is the collector, not the image work (sharp decodes and encodes on libuv's threads): a CPU profile at one upload a second shows the main thread busy for stretches of 20 ms that are all garbage collection. Each 12 MP upload brings some 9 MB of Node buffers to the event loop's isolate (the request's chunks as they arrive, and the body they are copied into) and keeps 3 to 4 MB more (the stored photo), and V8 answers that growth of external memory with full collections of its ~20 MB heap. The goal is not met on this machine; taking uploads in a process of their own (their sockets, their collector), apart from the one serving the rest, would be the next step.",
        '',
      );
    }
    if (PARTS.has('memory')) {
      // ---- 3. Memory after UPLOADS uploads, on a fresh server each: glibc's default malloc, then tuned ----
      /** @type {{ label: string, env: Record<string, string>, uploads: number, statuses: Record<string, number>, after2: { rss: number, peak: number }, after30: { rss: number, peak: number } }[]} */
      const memory = [];
      for (const [label, env] of /** @type {[string, Record<string, string>][]} */ ([
        ['glibc malloc as it comes', {}],
        [
          '`MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072`',
          { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
        ],
      ])) {
        const m = await startServer(`(m) ${label}`, undefined, env);
        running.push(m);
        const mPets = await seedPets(m.url, Math.ceil(UPLOADS / 12));
        let done = 0;
        /** @type {Record<string, number>} */
        const counts = {};
        await Promise.all(
          [0, 1].map(async () => {
            while (done < UPLOADS) {
              const n = done++;
              const res = await upload(m.url, mPets[Math.floor(n / 12)], big[n % big.length]);
              await res.arrayBuffer();
              counts[res.status] = (counts[res.status] ?? 0) + 1;
              if (res.status !== 201 && res.status !== 507) throw new Error(`upload ${n}: ${res.status}`);
            }
          }),
        );
        await sleep(2_000);
        const after2 = memoryOf(m.child.pid);
        await sleep(28_000);
        const after30 = memoryOf(m.child.pid);
        memory.push({ label, env, uploads: done, statuses: counts, after2, after30 });
        say(
          `${label}: after ${done} uploads (${JSON.stringify(counts)}): RSS ${after2.rss.toFixed(0)} MiB 2 s later, ${after30.rss.toFixed(0)} MiB 30 s later (peak ${after30.peak.toFixed(0)} MiB)`,
        );
        await Promise.all(running.splice(0).map((p) => p.stop()));
      }

      lines.push(
        `**Memory**: RSS of a fresh server (u) after ${UPLOADS} uploads of 12 MP JPEGs (2 clients; ${Object.entries(
          memory[0].statuses,
        )
          .map(([status, n]) => `${n} × ${status}`)
          .join(
            ', ',
          )}: the ${BUDGET_MIB} MiB budget filled, then 507 with nothing stored), against the budget + 150 MiB = ${BUDGET_MIB + 150} MiB:`,
        '',
        '| allocator | RSS 2 s after the last upload | RSS 30 s after | peak | within 406 MiB |',
        '|---|--:|--:|--:|---|',
        ...memory.map(
          (x) =>
            `| ${x.label} | ${x.after2.rss.toFixed(0)} MiB | ${x.after30.rss.toFixed(0)} MiB | ${x.after30.peak.toFixed(0)} MiB | ${x.after30.rss <= BUDGET_MIB + 150 ? 'yes' : 'no'} (30 s after) |`,
        ),
        '',
        'What an idle server holds before any upload is about 120 MiB; the photos held are the budget (their bytes, in Buffers outside the V8 heap). ' +
          "The rest is buffers of the last uploads not yet collected (V8 collects external memory in steps of tens of MB) and what glibc's malloc keeps of the memory libvips' threads used: " +
          'one arena per thread, large blocks reused instead of returned once the dynamic mmap threshold has risen. Capping the arenas and fixing the mmap threshold (environment variables read by glibc at process start) gives most of it back.',
      );
    }
    return lines;
  } finally {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    driver.stop();
    httpDriver.stop();
  }
};

const BURST_ROUNDS = num('BENCH_BURST_ROUNDS', 3);
const BURST_WINDOW = num('BENCH_BURST_WINDOW', 20);
const BURST_UPLOADS = num('BENCH_BURST_UPLOADS', 50);
/** Extra settings of the burst's server (`K=V,K=V`), to try other bounds. */
const BURST_ENV = Object.fromEntries(
  (process.env.BENCH_BURST_ENV ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => kv.split('=', 2)),
);
/** A new connection every 100 ms; the kept-alive one sends a request every 20 ms. */
const CONNECT_EVERY_MS = 100;
const KEPT_EVERY_MS = 20;

/** A client of bench/upload-burst.mjs (`probe` or `uploads`), unpinned. @param {'probe' | 'uploads'} role */
const startBurstClient = (role) => {
  const child = spawn(process.execPath, [join(BENCH_DIR, 'upload-burst.mjs'), role], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const pending = new Map();
  child.on('message', (/** @type {any} */ m) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p?.reject(new Error(`${role}: ${m.error}`));
    else p?.resolve(m.summary);
  });
  return {
    pid: /** @type {number} */ (child.pid),
    /** @param {Record<string, unknown>} options @returns {Promise<any>} */
    run: (options) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        child.send({ id, options });
      }),
    stop: () => child.disconnect(),
  };
};

/** Busy CPU time of the whole machine so far, in µs (all cores: /proc/stat, user + nice + system + irq + softirq + steal). */
const machineBusyMicros = () => {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * 10_000;
};

/** CPU time of one thread of a process so far, in µs (Linux: /proc/<pid>/task/<tid>/stat). @param {number} pid @param {number} tid */
const threadCpuMicros = (pid, tid) => {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

/** The q-quantile of `values` (nearest rank). @param {number[]} values @param {number} q */
const quantile = (values, q) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
};

/**
 * Issue 26: while `BURST_UPLOADS` uploads of a 10 MB JPEG arrive at once, a new connection's time to
 * its first byte and the p99 of `GET /v1/pets?limit=20` on a kept-alive connection, against the same
 * probe on the same server idle just before; `BURST_ROUNDS` rounds, a fresh server each. Answers the
 * BENCHMARKS.md section (without its markers).
 * @param {(line: string) => void} say
 * @returns {Promise<string[]>}
 */
export const measureUploadBurst = async (say) => {
  const image = await testImage({ format: 'jpeg', width: 6_000, height: 4_500, content: 'photo', seed: 7 });
  const bodyFile = join(ROOT, 'bench/results/burst.jpg');
  writeFileSync(bodyFile, image);
  const prober = startBurstClient('probe');
  const uploader = startBurstClient('uploads');
  /** @type {{ stop(): Promise<unknown> }[]} */
  const running = [];
  /** @type {{ idle: any, busy: any, uploads: any, others: { idle: number, busy: number }, main: { idle: number, busy: number }, server: { idle: number, busy: number }, load: number[] }[]} */
  const rounds = [];
  try {
    say(
      `upload burst: ${BURST_UPLOADS} uploads of a ${fmt(image.length)}-byte JPEG (6,000 × 4,500) at once, ${BURST_ROUNDS} rounds of ${BURST_WINDOW} s idle then ${BURST_WINDOW} s with the burst`,
    );
    for (let round = 0; round < BURST_ROUNDS; round++) {
      const u = await startServer('(u) burst', undefined, {
        PETSTORE_PHOTO_MEMORY_MB: '4096',
        PETSTORE_LOG_LEVEL: 'warn',
        ...BURST_ENV,
      });
      running.push(u);
      const pets = await seedPets(u.url, Math.ceil(BURST_UPLOADS / 12));
      const { hostname, port } = new URL(u.url);
      const probeOptions = {
        host: hostname,
        port: Number(port),
        path: '/v1/pets?limit=20',
        headers: AUTH,
        seconds: BURST_WINDOW,
        connectEveryMs: CONNECT_EVERY_MS,
        keptEveryMs: KEPT_EVERY_MS,
      };
      // The CPU the rest of the machine (other jobs) used during a window, in cores.
      const ours = () =>
        cpuMicros(u.child.pid) + cpuMicros(prober.pid) + cpuMicros(uploader.pid) + cpuMicros(process.pid);
      // The server's event-loop thread (its id is the process's) and the whole server, in cores.
      const pid = /** @type {number} */ (u.child.pid);
      const window = async (/** @type {() => Promise<any>} */ work) => {
        const [machine0, ours0, main0, server0, t0] = [
          machineBusyMicros(),
          ours(),
          threadCpuMicros(pid, pid),
          cpuMicros(pid),
          performance.now(),
        ];
        const result = await work();
        const us = (performance.now() - t0) * 1000;
        const others = (machineBusyMicros() - machine0 - (ours() - ours0)) / us;
        return {
          result,
          others: Math.max(0, others),
          main: (threadCpuMicros(pid, pid) - main0) / us,
          server: (cpuMicros(pid) - server0) / us,
        };
      };
      const load = os.loadavg();
      const idle = await window(() => prober.run(probeOptions));
      const busy = await window(() =>
        Promise.all([
          prober.run(probeOptions),
          uploader.run({
            host: hostname,
            port: Number(port),
            pets,
            headers: ADMIN_AUTH,
            bodyFile,
            count: BURST_UPLOADS,
            seconds: BURST_WINDOW,
          }),
        ]),
      );
      const [busyProbe, uploads] = busy.result;
      rounds.push({
        idle: idle.result,
        busy: busyProbe,
        uploads,
        others: { idle: idle.others, busy: busy.others },
        main: { idle: idle.main, busy: busy.main },
        server: { idle: idle.server, busy: busy.server },
        load,
      });
      const line = (/** @type {any} */ p) =>
        `first byte p50 ${quantile(p.ttfb, 0.5).toFixed(1)} / p99 ${quantile(p.ttfb, 0.99).toFixed(1)} / max ${Math.max(...p.ttfb).toFixed(0)} ms; kept-alive list p50 ${quantile(p.kept, 0.5).toFixed(1)} / p99 ${quantile(p.kept, 0.99).toFixed(1)} ms`;
      say(
        `round ${round + 1} (load average ${load.map((x) => x.toFixed(2)).join(' ')}): idle ${line(idle.result)} (others ${idle.others.toFixed(2)} cores)`,
      );
      say(
        `round ${round + 1}: burst ${line(busyProbe)} (others ${busy.others.toFixed(2)} cores; server ${busy.server.toFixed(2)}, its event loop's thread ${busy.main.toFixed(2)}); uploads first ${JSON.stringify(uploads.first)}, all ${JSON.stringify(uploads.all)}, 503 p99 ${quantile(uploads.refusedMs, 0.99).toFixed(1)} ms`,
      );
      await Promise.all(running.splice(0).map((p) => p.stop()));
    }
  } finally {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    prober.stop();
    uploader.stop();
  }
  const all = (/** @type {'idle' | 'busy'} */ side, /** @type {'ttfb' | 'kept'} */ what) =>
    rounds.flatMap((r) => r[side][what]);
  const cell = (/** @type {number[]} */ xs) =>
    `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.99).toFixed(1)} / ${Math.max(...xs).toFixed(0)}`;
  const perRound = (/** @type {'idle' | 'busy'} */ side, /** @type {'ttfb' | 'kept'} */ what) =>
    rounds.map((r) => quantile(r[side][what], 0.99).toFixed(0)).join(', ');
  const sum = (/** @type {Record<string, number>[]} */ xs) =>
    xs.reduce((acc, x) => {
      for (const [k, v] of Object.entries(x)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, /** @type {Record<string, number>} */ ({}));
  const first = sum(rounds.map((r) => r.uploads.first));
  const attempts = sum(rounds.map((r) => r.uploads.all));
  const refused = rounds.flatMap((r) => r.uploads.refusedMs);
  const ttfbP99 = quantile(all('busy', 'ttfb'), 0.99);
  const keptP99 = quantile(all('busy', 'kept'), 0.99);
  const cpu = (/** @type {'idle' | 'busy'} */ side) =>
    rounds.map((r) => `${r.server[side].toFixed(2)} (${r.main[side].toFixed(2)})`).join(', ');
  const counts = (/** @type {Record<string, number>} */ x) =>
    Object.entries(x)
      .map(([k, v]) => `${v} × ${k}`)
      .join(', ');
  return [
    '## An upload burst (issue 26)',
    '',
    `Written by \`BENCH_ONLY=photos pnpm bench\` (bench/photos.mjs, part \`burst\`; \`BENCH_PHOTO_PARTS=burst\` runs it alone) on ${new Date().toISOString().slice(0, 10)}, ` +
      `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}. ` +
      `Each of ${BURST_ROUNDS} rounds starts a fresh server (u) (\`apps/server/dist/src/main.js\`, memory store, both cores, default settings${
        Object.keys(BURST_ENV).length > 0
          ? ` but ${Object.entries(BURST_ENV)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}`
          : ''
      }) and runs a probe (bench/upload-burst.mjs) for ${BURST_WINDOW} s on it idle, then ${BURST_WINDOW} s more while ` +
      `${BURST_UPLOADS} uploads of a ${fmt(image.length / 1e6, 1)} MB JPEG (6,000 × 4,500 noisy gradient) start at once, each on its own connection (\`Content-Length\` declared, the body written at once); ` +
      'an upload answered 503 is sent again after its `Retry-After`, until the window ends. The probe opens a new connection every ' +
      `${CONNECT_EVERY_MS} ms (open loop) and times \`GET /v1/pets?limit=20\` from connect() to the first byte of the answer, and sends the same request on one kept-alive connection every ${KEPT_EVERY_MS} ms (each timed to the end of its answer). ` +
      'Probe, uploads and server are separate processes, unpinned. "Server CPU" is the server process (libvips\' threads included) and, in brackets, its event loop\'s thread alone; ' +
      '"others" is the CPU the rest of the machine used meanwhile (from /proc/stat less our four processes), in cores of the 2: the machine is shared, and the figures move with it.',
    '',
    "| | new connection, first byte: p50 / p99 / max ms | kept-alive `GET /v1/pets?limit=20`: p50 / p99 / max ms | p99 per round (first byte; list) | server CPU (its event loop's thread), cores | others (cores) |",
    '|---|--:|--:|---|---|--:|',
    `| idle | ${cell(all('idle', 'ttfb'))} | ${cell(all('idle', 'kept'))} | ${perRound('idle', 'ttfb')}; ${perRound('idle', 'kept')} | ${cpu('idle')} | ${rounds.map((r) => r.others.idle.toFixed(2)).join(', ')} |`,
    `| ${BURST_UPLOADS} uploads at once | ${cell(all('busy', 'ttfb'))} | ${cell(all('busy', 'kept'))} | ${perRound('busy', 'ttfb')}; ${perRound('busy', 'kept')} | ${cpu('busy')} | ${rounds.map((r) => r.others.busy.toFixed(2)).join(', ')} |`,
    '',
    `- Goal: both p99s during the burst ≤ 100 ms: first byte ${ttfbP99.toFixed(1)} ms (${ttfbP99 <= 100 ? 'met' : 'not met'}), list ${keptP99.toFixed(1)} ms (${keptP99 <= 100 ? 'met' : 'not met'}). Load average at each round's start: ${rounds.map((r) => r.load[0].toFixed(2)).join(', ')}.`,
    `- The uploads' first attempts, all rounds: ${counts(first)}; every attempt: ${counts(attempts)} ` +
      '(`reset`: the connection failed before an answer was read, retried after a second; `cut`: still under way when the window ended)' +
      (refused.length > 0
        ? `; a 503 came ${quantile(refused, 0.5).toFixed(1)} ms (p50) / ${quantile(refused, 0.99).toFixed(1)} ms (p99) after the request started, its body unread.`
        : '.'),
  ];
};

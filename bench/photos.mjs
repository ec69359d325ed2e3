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
// Knobs: BENCH_PHOTO_ROUNDS (5), BENCH_PHOTO_DURATION (5 s a round), BENCH_PHOTO_UPLOADS (200),
// BENCH_PHOTO_LIST_RATE (200 list requests/s during the event-loop windows), BENCH_PHOTO_WINDOW (10 s),
// BENCH_PHOTO_PARTS (serving,uploading,memory).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, HAS_TASKSET, startProcess, startDriver, freePort, median, fmt, cpuMicros, sleep } from './lib.mjs';

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
const PARTS = new Set((process.env.BENCH_PHOTO_PARTS ?? 'serving,uploading,memory').split(',').map((p) => p.trim()));
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
  const kib = (/** @type {string} */ field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
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
    env: { PORT: String(port), HOST: '127.0.0.1', PETSTORE_API_KEYS: `${ENTERPRISE}:enterprise:${HUGE}:${HUGE}`, PETSTORE_ADMIN_KEYS: ADMIN, PETSTORE_METRICS_PORT: String(metricsPort), ...env },
    port,
    readyPath: '/v1/openapi.json',
    stdout: 'count',
  });
  return { ...server, metricsUrl: `http://127.0.0.1:${metricsPort}` };
};

/** Creates a category, then `count` pets; their ids. @param {string} url @param {number} count */
const seedPets = async (url, count) => {
  await json(await fetch(`${url}/v1/categories`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"name":"Dogs"}' }), 201, 'category');
  const ids = [];
  for (let i = 0; i < count; i++) {
    const pet = await json(await fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 }) }), 201, 'pet');
    ids.push(pet.id);
  }
  return ids;
};

/** @param {string} url @param {number} petId @param {Buffer} body */
const upload = (url, petId, body) => fetch(`${url}/v1/pets/${petId}/photos`, { method: 'POST', headers: { ...ADMIN_AUTH, 'content-type': 'image/jpeg' }, body });

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
      const c = await startProcess({ name: '(c) minimal Koa', core: 0, nodeArgs: ['bench/koa-photo-server.mjs', file, 'image/jpeg', String(portC)], port: portC, readyPath: '/healthz' });
      running.push(c);
      const fromC = Buffer.from(await (await fetch(c.url + photoPath)).arrayBuffer());
      if (!fromC.equals(bytes)) throw new Error('(c) does not serve the bytes of (a)');
      say(`serving a ${fmt(bytes.length / 1000)} KB photo: (a) ${a.url}, (c) ${c.url}; ${ROUNDS} paired rounds of ${DURATION} s`);

      // The photo's bytes through node:http (autocannon is the bottleneck at 200 KB a body), the small answers through autocannon.
      const run = (/** @type {string} */ url, /** @type {Record<string, string>} */ headers, duration = DURATION) =>
        (url.endsWith(photoPath) && headers['if-none-match'] === undefined ? httpDriver : driver).run({ url, connections: CONNECTIONS, pipelining: 1, duration, headers });
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
          if ((s.statuses[status] ?? 0) !== s.total) throw new Error(`${key}: ${JSON.stringify(s.statuses)} where all should be ${status}`);
          serving[key].push(s);
          cpu[key].push((cpuMicros(server.child.pid) - before) / s.total);
        }
        say(`round ${round + 1}: GET (a) ${fmt(serving.a[round].rps)} vs (c) ${fmt(serving.c[round].rps)} req/s; 304 ${fmt(serving.notModified[round].rps)} vs list ${fmt(serving.list[round].rps)} req/s`);
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
        for (let i = 0; i < 4; i++) big.push(await testImage({ format: 'jpeg', width: 4_000, height: 3_000, content: 'photo', seed: 100 + i }));
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
        Promise.all(Array.from({ length: workers }, async () => { while (until()) await uploadNext(); }));

      // Throughput: 24 uploads, 2 clients at a time (the processor works on one, the next one's body arrives meanwhile).
      const startCpu = cpuMicros(u.child.pid);
      const t0 = performance.now();
      const target = 24;
      await uploadWhile(2, () => uploadsDone < target);
      const seconds = (performance.now() - t0) / 1000;
      const uploadCpuMs = (cpuMicros(u.child.pid) - startCpu) / 1000;
      const throughput = { photos: uploadsDone, seconds, perSecond: uploadsDone / seconds, cpuMsPerMp: uploadCpuMs / (uploadsDone * megapixels), cpuMsPerPhoto: uploadCpuMs / uploadsDone };
      say(`uploads: ${uploadsDone} in ${seconds.toFixed(1)} s = ${throughput.perSecond.toFixed(2)} photos/s; ${throughput.cpuMsPerMp.toFixed(1)} ms CPU per megapixel`);

      // The event loop: list requests at a fixed rate, idle, then while uploads run; alternating, 2 windows each.
      const listAtRate = () => driver.run({ url: u.url + list20, connections: 10, pipelining: 1, duration: WINDOW, overallRate: LIST_RATE, headers: AUTH });
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
          say(`${['1 upload/s', '1 uploader', '2 uploaders'][clients]}, window ${w + 1}: event loop p99 ${idleLoop.toFixed(1)} ms idle, ${busyLoop.toFixed(1)} ms while uploading (${uploadsDone - before} uploads); list p99 ${idle.p99.toFixed(2)} / ${busy.p99.toFixed(2)} ms`);
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
        'What holds the event loop while uploads run is the collector, not the image work (sharp decodes and encodes on libuv\'s threads): a CPU profile at one upload a second shows the main thread busy for stretches of 20 ms that are all garbage collection. Each 12 MP upload brings some 9 MB of Node buffers to the event loop\'s isolate (the request\'s chunks as they arrive, and the body they are copied into) and keeps 3 to 4 MB more (the stored photo), and V8 answers that growth of external memory with full collections of its ~20 MB heap. The goal is not met on this machine; taking uploads in a process of their own (their sockets, their collector), apart from the one serving the rest, would be the next step.',
        '',
      );
    }
    if (PARTS.has('memory')) {
      // ---- 3. Memory after UPLOADS uploads, on a fresh server each: glibc's default malloc, then tuned ----
      /** @type {{ label: string, env: Record<string, string>, uploads: number, statuses: Record<string, number>, after2: { rss: number, peak: number }, after30: { rss: number, peak: number } }[]} */
      const memory = [];
      for (const [label, env] of /** @type {[string, Record<string, string>][]} */ ([
        ['glibc malloc as it comes', {}],
        ['`MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072`', { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' }],
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
        say(`${label}: after ${done} uploads (${JSON.stringify(counts)}): RSS ${after2.rss.toFixed(0)} MiB 2 s later, ${after30.rss.toFixed(0)} MiB 30 s later (peak ${after30.peak.toFixed(0)} MiB)`);
        await Promise.all(running.splice(0).map((p) => p.stop()));
      }

      lines.push(
        `**Memory**: RSS of a fresh server (u) after ${UPLOADS} uploads of 12 MP JPEGs (2 clients; ${Object.entries(memory[0].statuses).map(([status, n]) => `${n} × ${status}`).join(', ')}: the ${BUDGET_MIB} MiB budget filled, then 507 with nothing stored), against the budget + 150 MiB = ${BUDGET_MIB + 150} MiB:`,
        '',
        '| allocator | RSS 2 s after the last upload | RSS 30 s after | peak | within 406 MiB |',
        '|---|--:|--:|--:|---|',
        ...memory.map((x) => `| ${x.label} | ${x.after2.rss.toFixed(0)} MiB | ${x.after30.rss.toFixed(0)} MiB | ${x.after30.peak.toFixed(0)} MiB | ${x.after30.rss <= BUDGET_MIB + 150 ? 'yes' : 'no'} (30 s after) |`),
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

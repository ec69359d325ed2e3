// `pnpm bench:instr`: instructions per request (callgrind's Ir) of the real server and of the
// bench's own reference servers, a figure that does not move with this machine's noise (the same
// binary, inputs and warm-up give the same count within about 1 %; req/s here moves by 20–80 %).
// Bench only: nothing here is part of the product.
//
// Method, per server: start it under `valgrind --tool=callgrind --instr-atstart=no` (start-up,
// seeding and warm-up run uninstrumented), seed it over HTTP (10 categories, then INSTR_PETS pets),
// then per scenario: W warm-up requests in WR rounds of new connections (so V8 has optimised
// the path and the connection open/close code), then windows: `callgrind_control -i on` and `-z`,
// exactly M requests over C keep-alive connections (bench/instr-load.mjs, its own process, one
// request in flight per connection), `callgrind_control -d`, and Ir of that dump ÷ M. Windows are
// measured until two in a row agree within 2 % (bench/settle.mjs): a pair that disagrees is
// followed by one more warm-up round and a new pair, up to INSTR_PAIRS pairs. Under load V8's
// compiler threads starve, the warm-up ends before the code is optimised and a window counts
// interpreter and compiler work (seen: 2.5x the quiet figure); a figure whose windows never
// agreed is printed with stable=no and marked "(unsettled)", and then BENCHMARKS.md is left as it
// was unless INSTR_WRITE_UNSETTLED=1 (the run exits 1 either way). Ir counts every
// thread of the server process (libuv's pool and V8's compiler threads too); it does not see
// kernel time or cache misses: read it as the code's own cost, and the req/s of `pnpm bench` for
// the end-to-end picture.
//
// Servers: the project (apps/server, memory store, logging at info to a file, CORS and metrics
// on, every request with an allowed Origin); (c) minimal Koa + @koa/router answering the same
// JSON (bench/koa-server.mjs); koa-routes, the same Koa app with every route of the project's
// OpenAPI document registered (bench/koa-routes-server.mjs): what routing the API's routes costs
// before any of the contract's work; (f) Fastify with auth, quota and validation
// (bench/fastify-server.mjs); main, the project as built at another checkout (INSTR_BASELINE=<dir>,
// installed and built there), with the same settings, seeding, list and create.
// Scenarios: `GET /v1/pets?limit=20`, `POST /v1/pets`, the banned 429 (a key past the ban rule,
// same route as the list), a page of 100 pets and a page of 100 events (admin keys: the feed's
// first 100 `pet.created`), `GET /v1/me` and a photo `GET` where the server has them.
// With INSTR_CATALOG=1 (docs/rules.md §16, issue 36), pets get realistic names (bench/lib.mjs
// petBody: "Bella the Beagle"…) and the project is measured on three more lists of 20: a search
// with a value list and a sort (`q=ma&status=available,pending&sort=name`), a shuffle of a few
// categories (`q=bella&categoryId=1,2,3&sort=random&seed=42`), and `expand=photos` with a photo on
// each of the 20 pets (uploaded while seeding); each is compared with the plain page of 20.
//
// Knobs: INSTR_PETS (10000: pets seeded; 100000 for issue 36's figures), INSTR_CATALOG (1: the
// catalogue's scenarios and names), INSTR_W (20000), INSTR_WR (10), INSTR_M (2000), INSTR_C (4), INSTR_STABLE (0.02: how close
// two windows must be), INSTR_PAIRS (3: pairs of windows at most), INSTR_WRITE_UNSETTLED (1: write
// BENCHMARKS.md even when a figure did not settle, marked), INSTR_ONLY (comma-separated
// server labels: project,koa,koa-routes,fastify,main; main only with INSTR_BASELINE), INSTR_OUT
// (BENCHMARKS.md; '-' prints only), INSTR_BASELINE (a built checkout measured as main),
// INSTR_PERF_MAP=1 (node --perf-basic-prof, for callgrind_annotate with JS names), INSTR_KEEP=1
// (keep the dumps in bench/results/instr), INSTR_SCENARIOS (e.g. list,create: only those),
// INSTR_ORIGIN=0 (no request sends an Origin).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import os from 'node:os';
import { ROOT, freePort, fmt, petBody, prng } from './lib.mjs';
import { C, DIR, M, PAIRS, STABLE, W, WR, measureServer } from './instr-measure.mjs';

const WRITE_UNSETTLED = process.env.INSTR_WRITE_UNSETTLED === '1';
const ONLY = (process.env.INSTR_ONLY ?? 'project,koa,koa-routes,fastify,main').split(',');
const OUT = process.env.INSTR_OUT ?? 'BENCHMARKS.md';
/** A built checkout of another commit (e.g. main) whose server is measured as `main`. */
const BASELINE = process.env.INSTR_BASELINE ? resolve(process.env.INSTR_BASELINE) : undefined;
const BASELINE_MAIN = BASELINE === undefined ? undefined : join(BASELINE, 'apps/server/dist/src/main.js');
/** The machine's 1-minute load average when the run started: other work starves V8's compiler threads. */
const LOAD_AT_START = os.loadavg()[0];

/** How many pets are seeded, and whether the catalogue's scenarios (docs/rules.md §16) run. */
const PETS = Number(process.env.INSTR_PETS ?? 10_000);
const CATALOG = process.env.INSTR_CATALOG === '1';
const SEARCH = '/v1/pets?limit=20&q=ma&status=available,pending&sort=name';
const SHUFFLE = '/v1/pets?limit=20&q=bella&categoryId=1,2,3&sort=random&seed=42';
const EXPAND = '/v1/pets?limit=20&expand=photos';

const KEY = 'bench-key-0123456789';
const BANNED_KEY = 'bench-banned-0123456789';
const ADMIN = 'bench-admin-0123456789';
const ORIGIN = 'https://app.bench.test';
/** INSTR_ORIGIN=0: requests carry no `Origin` (CORS still configured), as issue 35's figures were taken. */
const SEND_ORIGIN = process.env.INSTR_ORIGIN !== '0';
const originHeader = SEND_ORIGIN ? { origin: ORIGIN } : {};
const LIST = '/v1/pets?limit=20';
const PETS_100 = '/v1/pets?limit=100';
const EVENTS_100 = '/v1/events?limit=100';
/** The photo the photo scenario reads (uploaded while seeding). */
const PHOTO = '/v1/pets/1/photos/1';
/**
 * Keys GET /v1/me takes turns over: even if the warm-up and every window (up to PAIRS pairs, with a
 * warm-up round between them) came within one minute, no key is sent more than its 60 a minute.
 */
const ME_REQUESTS = W + (PAIRS - 1) * Math.ceil(W / WR) + 2 * PAIRS * M;
const ME_KEYS = Array.from(
  { length: Math.max(400, Math.ceil(ME_REQUESTS / 60)) },
  (_, i) => `bench-me-${String(i).padStart(4, '0')}-0123456789`,
);

/** Admin keys the two pages of 100 take turns over: within one minute, none is sent more than its 1,000. */
const READ_ADMINS = Array.from(
  { length: Math.ceil(ME_REQUESTS / 1000) + 1 },
  (_, i) => `bench-admin-read-${String(i).padStart(3, '0')}-0123456789`,
);

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('bench:instr needs valgrind (Debian: apt-get install valgrind)');
  process.exit(1);
}
if (BASELINE_MAIN !== undefined && !existsSync(BASELINE_MAIN)) {
  console.error(
    `INSTR_BASELINE: ${BASELINE_MAIN} is missing (install and build that checkout first: pnpm install, tsc -b)`,
  );
  process.exit(1);
}
if (BASELINE === undefined && process.env.INSTR_ONLY?.split(',').includes('main')) {
  console.error('INSTR_ONLY names main: set INSTR_BASELINE to a built checkout of it');
  process.exit(1);
}
/** The baseline's commit, to name it in the report (its folder's name when it is not a git checkout). */
const baselineName = () => {
  try {
    return execFileSync('git', ['-C', BASELINE, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return BASELINE.split('/').pop();
  }
};
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });

const post = (url, path, key, body) =>
  fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * 10 categories, then PETS pets, 50 at a time: what the list scenarios read. Names `pet-N` with
 * statuses in turn; with INSTR_CATALOG, bench/lib.mjs's realistic bodies (a fixed stream).
 */
const seed = async (url) => {
  for (let c = 1; c <= 10; c++) {
    const res = await post(url, '/v1/categories', KEY, { name: `bench-${c}` });
    if (res.status !== 201) throw new Error(`seeding category: ${res.status}`);
  }
  const statuses = ['available', 'pending', 'sold'];
  const random = prng(36);
  for (let i = 1; i <= PETS; i += 50) {
    const bodies = Array.from({ length: Math.min(50, PETS - i + 1) }, (_, j) => {
      const n = i + j;
      return CATALOG
        ? JSON.parse(petBody(random, 10))
        : { name: `pet-${n}`, categoryId: (n % 10) + 1, status: statuses[n % 3] };
    });
    await Promise.all(
      bodies.map(async (body) => {
        const res = await post(url, '/v1/pets', KEY, body);
        if (res.status !== 201) throw new Error(`seeding pet: ${res.status}`);
      }),
    );
  }
};

/** With INSTR_CATALOG: one more photo on each of pets 2…20 (pet 1 has the photo scenario's), for `expand=photos`. */
const seedPagePhotos = async (url, jpeg) => {
  if (!CATALOG) return;
  for (let petId = 2; petId <= 20; petId++) {
    const res = await fetch(url + `/v1/pets/${petId}/photos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'image/jpeg' },
      body: jpeg,
    });
    if (res.status !== 201) throw new Error(`photo upload: ${res.status} ${await res.text()}`);
  }
  const page = await (await fetch(url + EXPAND, { headers: auth(KEY) })).json();
  if (!Array.isArray(page) || page.some((pet) => pet.photos?.length !== 1))
    throw new Error(`expand=photos: not one photo on each of the first 20 pets`);
};

const auth = (key) => ({ authorization: `Bearer ${key}`, ...originHeader });
const results = {};
const fixturesPath = join(DIR, 'fixtures.json');
const photoPath = join(DIR, 'photo.jpg');

/** The project's settings: the same for this checkout's server and the baseline's. */
const projectEnv = async () => ({
  PETSTORE_API_KEYS: [
    `${KEY}:enterprise:1000000000:10000000000`,
    `${BANNED_KEY}:free`,
    ...ME_KEYS.map((k) => `${k}:free`),
  ].join(','),
  PETSTORE_ADMIN_KEYS: [ADMIN, ...READ_ADMINS].join(','),
  PETSTORE_CORS_ORIGINS: ORIGIN,
  PETSTORE_METRICS_PORT: String(await freePort()),
  PETSTORE_LOG_LEVEL: 'info',
  NODE_ENV: 'production',
});

/** Every operation of the served OpenAPI document as a method and a Koa path (`/v1/pets/:petId`). */
const routesOf = async (url) => {
  const doc = await (await fetch(url + '/v1/openapi.json')).json();
  const base = new URL(doc.servers[0].url, url).pathname.replace(/\/$/, '');
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    methods
      .filter((m) => item[m] !== undefined)
      .map((m) => ({ method: m.toUpperCase(), path: base + path.replace(/\{(\w+)\}/g, ':$1') })),
  );
};

// The project always runs: it is what the others are compared with, and it writes their fixtures.
{
  results.project = await measureServer({
    label: 'project',
    nodeArgs: () => ['apps/server/dist/src/main.js'],
    env: await projectEnv(),
    readyPath: '/v1/openapi.json',
    prepare: async ({ url }) => {
      await seed(url);
      const list = await fetch(url + LIST, { headers: auth(KEY) });
      const routes = await routesOf(url);
      console.log(`the project serves ${routes.length} routes (its OpenAPI document): koa-routes registers the same`);
      writeFileSync(
        fixturesPath,
        JSON.stringify({
          contentType: list.headers.get('content-type'),
          gets: { [LIST]: await list.text() },
          routes,
        }),
      );
      // The banned key: its free plan's 60 a minute, then the ban rule's rejections (10 by default).
      for (let i = 0; i < 100; i++) await (await fetch(url + LIST, { headers: auth(BANNED_KEY) })).arrayBuffer();
      // A photo of pet 1, about 200 KB as stored (the photo test images of @petstore/adapters-sharp), and
      // the stored bytes for the minimal Koa app that serves the same ones.
      const { testImage } = await import(join(ROOT, 'packages/adapters-sharp/dist/test-support/index.js'));
      const jpeg = await testImage({ format: 'jpeg', width: 900, height: 675, content: 'photo', seed: 11 });
      const upload = await fetch(url + '/v1/pets/1/photos', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'image/jpeg' },
        body: jpeg,
      });
      if (upload.status !== 201) throw new Error(`photo upload: ${upload.status} ${await upload.text()}`);
      const stored = await fetch(url + PHOTO, { headers: auth(KEY) });
      writeFileSync(photoPath, Buffer.from(await stored.arrayBuffer()));
      await seedPagePhotos(url, jpeg);
      const banned = await fetch(url + LIST, { headers: auth(BANNED_KEY) });
      const body = await banned.json();
      if (body.code !== 'temporarily_banned') throw new Error(`the banned key is not banned: ${JSON.stringify(body)}`);
    },
    scenarios: [
      { name: 'list', path: LIST, headers: auth(KEY) },
      { name: 'create', path: '/v1/pets', method: 'POST', headers: auth(KEY), body: 'pet', expect: 201 },
      { name: 'banned', path: LIST, headers: auth(BANNED_KEY), expect: 429 },
      { name: 'photo', path: PHOTO, headers: auth(KEY) },
      // A page of 100 events (the seeding's pet.created) against a page of 100 pets, both read with the
      // admin key: issue 28's goal is that the first costs no more than the second.
      // Admin keys have the business plan's 1,000 a minute: the requests take turns over READ_ADMINS.
      { name: 'pets-100', path: PETS_100, keys: READ_ADMINS },
      {
        name: 'events-100',
        path: EVENTS_100,
        keys: READ_ADMINS,
        when: async ({ url }) => (await fetch(url + EVENTS_100, { headers: auth(ADMIN) })).status === 200,
      },
      {
        // GET /v1/me has an allowance of its own, 60 a minute per key: the requests take turns over
        // ME_KEYS keys so that every one of them is answered 200 (measured only where the route exists).
        name: 'me',
        path: '/v1/me',
        headers: originHeader,
        keys: ME_KEYS,
        when: async ({ url }) => (await fetch(url + '/v1/me', { headers: auth(ME_KEYS[0]) })).status === 200,
      },
      // The catalogue (docs/rules.md §16): each compared with the plain page of 20 (`list`).
      ...(CATALOG
        ? [
            { name: 'search', path: SEARCH, headers: auth(KEY) },
            { name: 'shuffle', path: SHUFFLE, headers: auth(KEY) },
            { name: 'expand', path: EXPAND, headers: auth(KEY) },
          ]
        : []),
    ],
  });
}

if (ONLY.includes('koa')) {
  results.koa = await measureServer({
    label: 'koa',
    nodeArgs: (port) => ['bench/koa-server.mjs', fixturesPath, String(port)],
    env: { NODE_ENV: 'production' },
    readyPath: LIST,
    scenarios: [
      { name: 'list', path: LIST },
      { name: 'create', path: '/v1/pets', method: 'POST', body: 'pet', expect: 201 },
    ],
  });
}

if (ONLY.includes('koa')) {
  results.koaPhoto = await measureServer({
    label: 'koa-photo',
    nodeArgs: (port) => ['bench/koa-photo-server.mjs', photoPath, 'image/jpeg', String(port)],
    env: { NODE_ENV: 'production' },
    readyPath: '/healthz',
    scenarios: [{ name: 'photo', path: PHOTO }],
  });
}

if (ONLY.includes('koa-routes')) {
  results.koaRoutes = await measureServer({
    label: 'koa-routes',
    nodeArgs: (port) => ['bench/koa-routes-server.mjs', fixturesPath, String(port)],
    env: { NODE_ENV: 'production' },
    readyPath: LIST,
    scenarios: [
      { name: 'list', path: LIST },
      { name: 'create', path: '/v1/pets', method: 'POST', body: 'pet', expect: 201 },
    ],
  });
}

if (ONLY.includes('fastify')) {
  results.fastify = await measureServer({
    label: 'fastify',
    nodeArgs: (port) => ['bench/fastify-server.mjs', fixturesPath, String(port)],
    env: { NODE_ENV: 'production', BENCH_API_KEYS: `${KEY}:enterprise:1000000000:10000000000` },
    readyPath: '/healthz',
    scenarios: [
      { name: 'list', path: LIST, headers: auth(KEY) },
      { name: 'create', path: '/v1/pets', method: 'POST', headers: auth(KEY), body: 'pet', expect: 201 },
    ],
  });
}

// The project as built at another checkout (INSTR_BASELINE), with the same settings, seeding and requests.
if (BASELINE_MAIN !== undefined && ONLY.includes('main')) {
  results.main = await measureServer({
    label: 'main',
    nodeArgs: () => [BASELINE_MAIN],
    cwd: BASELINE,
    env: await projectEnv(),
    readyPath: '/v1/openapi.json',
    prepare: ({ url }) => seed(url),
    scenarios: [
      { name: 'list', path: LIST, headers: auth(KEY) },
      { name: 'create', path: '/v1/pets', method: 'POST', headers: auth(KEY), body: 'pet', expect: 201 },
    ],
  });
}

const photoBytes = () => {
  try {
    return readFileSync(photoPath).length;
  } catch {
    return 0;
  }
};
/** A figure, or undefined when it was not measured or did not settle (no ratio is made of one that did not). */
const ir = (server, scenario) =>
  results[server]?.[scenario]?.stable ? results[server][scenario].perRequest : undefined;
const unsettled = Object.entries(results).flatMap(([server, scenarios]) =>
  Object.entries(scenarios)
    .filter(([, r]) => !r.stable)
    .map(([scenario]) => `${server} ${scenario}`),
);
const measured = Object.values(results).reduce((n, scenarios) => n + Object.keys(scenarios).length, 0);
/** A cell: the settled figure, or the last window of one that did not settle, marked. */
const k = (server, scenario) => {
  const r = results[server]?.[scenario];
  if (r === undefined) return '—';
  return `${fmt(r.perRequest / 1000, 1)}k${r.stable ? '' : ' (unsettled)'}`;
};
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : (a / b).toFixed(3));
const rows = [
  ['`GET /v1/pets?limit=20`', 'list'],
  ['`POST /v1/pets`', 'create'],
];
/** How many routes koa-routes registered: the project's, from the fixtures. */
const routeCount = () => {
  try {
    return JSON.parse(readFileSync(fixturesPath, 'utf8')).routes.length;
  } catch {
    return '—';
  }
};
const baselineLabel = results.main === undefined ? 'main' : `main (${baselineName()})`;
/** The project against Koa with the same routes and against the baseline: ratios, each figure's stable flag. */
const againstRoutesAndMain =
  results.koaRoutes === undefined && results.main === undefined
    ? []
    : [
        '',
        `| request | the project | Koa + the API's ${routeCount()} routes | ${baselineLabel} | Koa routes ÷ project | project ÷ ${baselineLabel} |`,
        '|---|--:|--:|--:|--:|--:|',
        ...rows.map(
          ([label, s]) =>
            `| ${label} | ${k('project', s)} | ${k('koaRoutes', s)} | ${k('main', s)} | ${ratio(ir('koaRoutes', s), ir('project', s))} | ${ratio(ir('project', s), ir('main', s))} |`,
        ),
      ];
const stableFlag = (server, s) =>
  results[server]?.[s] === undefined ? 'not measured' : `stable=${results[server][s].stable ? 'yes' : 'no'}`;
for (const [, s] of rows)
  console.log(
    `${s}: koa-routes ÷ project ${ratio(ir('koaRoutes', s), ir('project', s))}, project ÷ main ${ratio(ir('project', s), ir('main', s))} ` +
      `(project ${stableFlag('project', s)}, koa-routes ${stableFlag('koaRoutes', s)}, main ${stableFlag('main', s)})`,
  );
const lines = [
  '<!-- instr -->',
  '## Instructions per request (`pnpm bench:instr`)',
  '',
  `Callgrind's Ir of the server process per request (all its threads), after ${fmt(W)} warm-up requests in ${WR} rounds of new ` +
    `connections; ${fmt(M)} measured requests over ${C} keep-alive connections, one in flight each (bench/instr.mjs). ` +
    `Windows of ${fmt(M)} requests are measured until two in a row agree within ${Number((STABLE * 100).toFixed(2))} %, with one more warm-up round between pairs that disagree, ` +
    `at most ${PAIRS} pairs (bench/settle.mjs): under load V8's compiler threads starve and a window counts interpreter and compiler work too. ` +
    (unsettled.length === 0
      ? `All ${measured} figures settled. `
      : `${unsettled.length} of ${measured} figures did not settle (${unsettled.join(', ')}): each shows its last window, marked (unsettled), and no ratio is made of it; judge nothing by them. `) +
    'It leaves out kernel time and cache effects, ' +
    'which the req/s tables above include (and which move by 20–80 % here from round to round). ' +
    `Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; load average ${LOAD_AT_START.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end. ` +
    `The project: memory store, ${fmt(PETS)} pets seeded over HTTP${CATALOG ? ' (realistic names)' : ''}, logging at info (to a file), CORS and metrics on, ` +
    (SEND_ORIGIN ? 'every request with an allowed Origin.' : 'no request with an Origin (INSTR_ORIGIN=0).'),
  '',
  '| request | the project | minimal Koa | Fastify | Koa ÷ project | Fastify ÷ project |',
  '|---|--:|--:|--:|--:|--:|',
  ...rows.map(
    ([label, s]) =>
      `| ${label} | ${k('project', s)} | ${k('koa', s)} | ${k('fastify', s)} | ${ratio(ir('koa', s), ir('project', s))} | ${ratio(ir('fastify', s), ir('project', s))} |`,
  ),
  ...againstRoutesAndMain,
  '',
  '| the project | Ir per request | ÷ the list |',
  '|---|--:|--:|',
  `| the banned 429 (\`temporarily_banned\`, same route) | ${k('project', 'banned')} | ${ratio(ir('project', 'banned'), ir('project', 'list'))} |`,
  ...(results.project?.me
    ? [`| \`GET /v1/me\` | ${k('project', 'me')} | ${ratio(ir('project', 'me'), ir('project', 'list'))} |`]
    : []),
  `| \`GET /v1/pets?limit=100\` (admin) | ${k('project', 'pets-100')} | ${ratio(ir('project', 'pets-100'), ir('project', 'list'))} |`,
  ...(results.project?.['events-100']
    ? [
        `| \`GET /v1/events?limit=100\` (admin, 100 \`pet.created\`; ÷ the page of 100 pets: ${ratio(ir('project', 'events-100'), ir('project', 'pets-100'))}) | ${k('project', 'events-100')} | ${ratio(ir('project', 'events-100'), ir('project', 'list'))} |`,
      ]
    : []),
  ...(results.project?.photo
    ? [
        `| a photo \`GET\` (${fmt(photoBytes() / 1000)} KB; minimal Koa sending the same bytes: ${k('koaPhoto', 'photo')}, Koa ÷ project ${ratio(ir('koaPhoto', 'photo'), ir('project', 'photo'))}) | ${k('project', 'photo')} | ${ratio(ir('project', 'photo'), ir('project', 'list'))} |`,
      ]
    : []),
  ...(results.project?.search
    ? [
        `| \`${SEARCH.slice(3)}\` (target ≤ 1.5) | ${k('project', 'search')} | ${ratio(ir('project', 'search'), ir('project', 'list'))} |`,
        `| \`${SHUFFLE.slice(3)}\` (target ≤ 1.5) | ${k('project', 'shuffle')} | ${ratio(ir('project', 'shuffle'), ir('project', 'list'))} |`,
        `| \`${EXPAND.slice(3)}\`, a photo on each pet (target ≤ 1.3) | ${k('project', 'expand')} | ${ratio(ir('project', 'expand'), ir('project', 'list'))} |`,
      ]
    : []),
  '<!-- /instr -->',
];
const section = lines.join('\n');
console.log('\n' + section);
// Every measured figure with its windows, settled or not (bench/results/instr/results.json).
writeFileSync(join(DIR, 'results.json'), JSON.stringify({ stable: STABLE, pairs: PAIRS, results }, null, 2));
if (unsettled.length > 0)
  console.error(
    `\n${unsettled.length} figure(s) did not settle (stable=no): ${unsettled.join(', ')}. Run again on a quieter machine.`,
  );
if (unsettled.length > 0 && OUT !== '-' && !WRITE_UNSETTLED) {
  console.error(`${OUT} left as it was (INSTR_WRITE_UNSETTLED=1 writes the figures, marked).`);
} else if (OUT !== '-') {
  const path = join(ROOT, OUT);
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    /* a new file */
  }
  const from = text.indexOf('<!-- instr -->');
  const to = text.indexOf('<!-- /instr -->');
  text =
    from !== -1 && to > from
      ? text.slice(0, from) + section + text.slice(to + '<!-- /instr -->'.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, text);
  console.log(`written to ${OUT}`);
}
if (process.env.INSTR_KEEP !== '1') for (const f of readdirSync(DIR)) if (f.includes('.cg')) rmSync(join(DIR, f));
if (unsettled.length > 0) process.exitCode = 1;

// Bench only: round trips to MongoDB per HTTP request, counted with the driver's command
// monitoring. The real app (startServer, the same container, HttpApp and settings) runs in this
// process on the real Mongo adapters, built on one MongoClient with `monitorCommands: true` and
// handed to the container as its stores. Requests are sent one at a time, so every command the
// driver starts between a request and its answer belongs to that request. A few hundred requests,
// on a fresh database that is dropped afterwards. The lists of docs/rules.md §16 (search, value
// lists, every sort, a shuffle walked page by page, `expand=photos`) are counted per call of the use
// case the list route calls (`PetCatalog.listPets`, resolved from the server's own container on the
// same stores), beside the plain list counted the same way: the pets' and photos' commands only.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const mongoPackage = join(ROOT, 'packages/adapters-mongo/package.json');
const { MongoClient } = createRequire(mongoPackage)('mongodb');
const mongo = await import(join(ROOT, 'packages/adapters-mongo/dist/src/index.js'));
const { parseSettings } = await import(join(ROOT, 'apps/server/dist/src/settings.js'));
const { startServer } = await import(join(ROOT, 'apps/server/dist/src/server.js'));
const { createContainer } = await import(join(ROOT, 'apps/server/dist/src/container.js'));
const { TOKENS } = await import(join(ROOT, 'apps/server/dist/src/tokens.js'));

const HANDSHAKE = new Set(['hello', 'ismaster', 'isMaster', 'endSessions']);
const LIST = 100;
const CREATE = 100;
/** Pets of the first page given photos for `expand=photos`, and photos each (at most 12, docs/rules.md §13). */
const WITH_PHOTOS = 20;
const PHOTOS_EACH = 3;
/** The lists of docs/rules.md §16, each asked `CATALOG` times of the use case: [row label, its parameters]. */
const CATALOG = 20;
const CATALOG_LISTS = [
  ['catalogue: plain (limit=20)', { limit: 20 }],
  ['catalogue: newest first (limit=20&sort=-id)', { limit: 20, sort: '-id' }],
  ['catalogue: by name (limit=20&sort=name)', { limit: 20, sort: 'name' }],
  ['catalogue: search (limit=20&q=trip)', { limit: 20, q: 'trip' }],
  [
    'catalogue: search, value lists, by name (limit=20&q=trip&status=available,pending&categoryId=1,2,3&sort=name)',
    { limit: 20, q: 'trip', status: 'available,pending', categoryId: '1,2,3', sort: 'name' },
  ],
  ['catalogue: shuffled, first page (limit=20&sort=random&seed=7)', { limit: 20, sort: 'random', seed: '7' }],
  ['catalogue: with photos (limit=20&expand=photos, 20 pets with 3 photos each)', { limit: 20, expand: 'photos' }],
];
/** A shuffle walked to its end, following the cursors. */
const WALK = { limit: 7, sort: 'random', seed: '11' };
/** Keys sent over a quota of 2/minute until banned, then 10 more requests each. */
const LIMITED_KEYS = 10;
const BANNED_PER_KEY = 10;

const median = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? Number.NaN
    : s.length % 2 === 1
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Photos of the first pets, written through the store before anything is counted.
 * @param {{ reserve: Function, putFile: Function, publish: Function }} photos
 */
const givePhotos = async (photos) => {
  const bytes = new Uint8Array([137, 80, 78, 71]);
  const file = { width: 640, height: 480, bytes: bytes.length, sha256: '0'.repeat(64) };
  for (let petId = 1; petId <= WITH_PHOTOS; petId++)
    for (let k = 0; k < PHOTOS_EACH; k++) {
      const upload = await photos.reserve(petId, bytes.length, Date.now());
      await photos.putFile(upload, file, bytes);
      const photo = { id: upload.photoId, petId, contentType: 'image/png', width: 640, height: 480 };
      await photos.publish(upload, {
        ...photo,
        bytes: bytes.length,
        createdAt: new Date().toISOString(),
        files: [file],
      });
    }
};

/**
 * The catalogue's scenarios: each list of `CATALOG_LISTS` asked `CATALOG` times of `catalog`
 * (`PetCatalog`), then a shuffle walked to its end; `reset` starts each count, `record` files it.
 * @param {{ listPets(input: Record<string, unknown>): Promise<{ ok: boolean, value?: any, error?: { message: string } }> }} catalog
 * @param {() => void} reset
 * @param {(kind: string) => void} record
 */
const catalogueScenarios = async (catalog, reset, record) => {
  const list = async (/** @type {Record<string, unknown>} */ input) => {
    reset();
    const result = await catalog.listPets(input);
    if (!result.ok) throw new Error(`listPets(${JSON.stringify(input)}): ${result.error?.message}`);
    return result.value;
  };
  for (const [kind, input] of CATALOG_LISTS)
    for (let i = 0; i < CATALOG; i++) {
      const { items } = await list(input);
      if (items.length !== 20) throw new Error(`listPets(${JSON.stringify(input)}) answered ${items.length} pets`);
      if (input.expand === 'photos' && items.some((pet) => pet.photos?.length !== PHOTOS_EACH))
        throw new Error('expand=photos answered pets without their photos');
      record(kind);
    }
  // One page (median) is a page like any other; the page that crosses the wrap of the circle
  // reads its second range too (max), and so does the page after it when the wrap fell just
  // after the last pet shown (only the look-ahead row came from the second range).
  let walked = 0;
  for (let cursor; ;) {
    const { items, nextCursor } = await list(cursor === undefined ? WALK : { ...WALK, cursor });
    walked += items.length;
    record(`catalogue: shuffled, every page of a walk (limit=7&sort=random&seed=11, following the cursors)`);
    if (nextCursor === undefined) break;
    cursor = nextCursor;
  }
  if (walked !== CREATE) throw new Error(`the shuffled walk showed ${walked} pets of ${CREATE}`);
};

/**
 * The Mongo stores the server is given, on `db` (indexes created), with the five categories the creates name.
 * @param {import('mongodb').Db} db
 */
const mongoStores = async (db) => {
  await mongo.ensureIndexes(db);
  const categories = new mongo.CategoryRepositoryMongo(db);
  for (let i = 1; i <= 5; i++) await categories.create({ name: `Round trip category ${i}` });
  return {
    pets: new mongo.PetRepositoryMongo(db),
    categories,
    orders: new mongo.OrderRepositoryMongo(db),
    quotas: new mongo.QuotaStoreMongo(db),
    keys: new mongo.ApiKeyStoreMongo(db),
    photos: new mongo.PhotoStoreMongo(db),
  };
};

/**
 * Runs the scenarios against `uri` and returns one row per kind of request.
 * @param {string} uri
 */
export const measureMongoRoundTrips = async (uri) => {
  const settingsOf = mongo.resolveMongoSettings(uri);
  const client = new MongoClient(uri, { ...settingsOf.driverOptions, monitorCommands: true });
  await client.connect();
  const database = `petstore_bench_rt_${process.pid}_${Date.now().toString(36)}`;
  const db = client.db(database);
  const hello = await db
    .admin()
    .command({ isMaster: 1 })
    .catch(() => ({}));
  const build = await db
    .admin()
    .command({ buildInfo: 1 })
    .catch(() => ({}));
  /** @type {{ name: string, collection: string }[]} */
  let seen = [];
  client.on('commandStarted', (/** @type {{ commandName: string, command: Record<string, unknown> }} */ event) => {
    if (HANDSHAKE.has(event.commandName)) return;
    seen.push({ name: event.commandName, collection: String(event.command[event.commandName] ?? '') });
  });

  const huge = 'bench-rt-enterprise-5e1c7a93';
  const limited = Array.from({ length: LIMITED_KEYS }, (_, i) => `bench-rt-limited-${i}-b2d4f6a8`);
  const settings = parseSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    PETSTORE_STORE: 'mongo',
    MONGODB_URI: uri,
    PETSTORE_LOG_LEVEL: 'silent',
    PETSTORE_API_KEYS: [`${huge}:enterprise:100000000:100000000`, ...limited.map((k) => `${k}:enterprise:2:1000`)].join(
      ',',
    ),
  });
  const stores = await mongoStores(db);
  const logger = { info: () => {}, error: () => {} };
  const server = await startServer(settings, { logger, stores });
  const catalog = await (await createContainer(settings, { logger, stores })).getAsync(TOKENS.PetCatalog);

  /** @type {Map<string, { quota: number[], total: number[], commands: Map<string, number> }>} */
  const rows = new Map();
  const record = (/** @type {string} */ kind) => {
    let row = rows.get(kind);
    if (row === undefined) rows.set(kind, (row = { quota: [], total: [], commands: new Map() }));
    row.total.push(seen.length);
    row.quota.push(seen.filter((c) => c.collection === mongo.COLLECTIONS.quotas).length);
    for (const c of seen)
      row.commands.set(`${c.name} ${c.collection}`, (row.commands.get(`${c.name} ${c.collection}`) ?? 0) + 1);
  };
  const send = async (
    /** @type {string} */ key,
    /** @type {string} */ path,
    /** @type {string | undefined} */ body = undefined,
  ) => {
    seen = [];
    const headers = {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return {
      status: res.status,
      code: res.status >= 400 ? /** @type {{ code?: string }} */ (JSON.parse(text)).code : undefined,
    };
  };

  try {
    // Keep the run inside one UTC minute where possible, so no window rolls mid-scenario.
    const toNextMinute = 60_000 - (Date.now() % 60_000);
    if (toNextMinute < 20_000) await new Promise((resolve) => setTimeout(resolve, toNextMinute + 50));
    let first = true;
    for (let i = 0; i < CREATE; i++) {
      const { status } = await send(huge, '/v1/pets', `{"name":"Round trip ${i}","categoryId":${1 + (i % 5)}}`);
      if (status !== 201) throw new Error(`create answered ${status}`);
      record(first ? 'first request of a subject (admitted create)' : 'admitted create (POST /v1/pets)');
      first = false;
    }
    for (let i = 0; i < LIST; i++) {
      const { status } = await send(huge, '/v1/pets?limit=20');
      if (status !== 200) throw new Error(`list answered ${status}`);
      record('admitted list (GET /v1/pets?limit=20)');
    }
    seen = [];
    await givePhotos(stores.photos);
    await catalogueScenarios(catalog, () => (seen = []), record);
    for (const key of limited) {
      let banned = 0;
      let firstRequest = true;
      while (banned <= BANNED_PER_KEY) {
        const { status, code } = await send(key, '/v1/pets?limit=20');
        if (status === 200)
          record(firstRequest ? 'first request of a subject (admitted list)' : 'admitted list (GET /v1/pets?limit=20)');
        else if (code === 'rate_limited') record('rejected: 429 rate_limited');
        else if (code === 'temporarily_banned')
          record(
            banned++ === 0
              ? 'the rejection that starts a ban: 429 temporarily_banned'
              : 'banned: 429 temporarily_banned',
          );
        else throw new Error(`limited key answered ${status} ${code}`);
        firstRequest = false;
      }
    }
  } finally {
    await server.stop();
    await client
      .db(database)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
  return {
    server: `buildInfo version ${String(build?.version ?? 'unknown')}, wire version ${String(hello?.maxWireVersion ?? 'unknown')}`,
    rows: [...rows].map(([kind, row]) => ({
      kind,
      requests: row.total.length,
      quotaMedian: median(row.quota),
      quotaMax: Math.max(...row.quota),
      totalMedian: median(row.total),
      totalMax: Math.max(...row.total),
      commands: [...row.commands]
        .map(([c, n]) => `${c} ×${(n / row.total.length).toFixed(2).replace(/\.00$/, '')}`)
        .join(', '),
    })),
  };
};

/**
 * The BENCHMARKS.md section (between its markers).
 * @param {{ server: string, rows: { kind: string, requests: number, quotaMedian: number, quotaMax: number, totalMedian: number, totalMax: number, commands: string }[] }} result
 * @param {string} target what the run was against, in words
 */
export const roundTripSection = (result, target) => [
  '## Round trips to MongoDB per request',
  '',
  `Against ${target} (${result.server}), counted with the driver's command monitoring (\`commandStarted\` events, handshakes excluded) ` +
    'while the real app (startServer, same container and HttpApp) serves one request at a time on the Mongo adapters; written by `pnpm bench` ' +
    'wherever `MONGODB_URI` is set (`BENCH_ONLY=mongo` runs only this section). "quota" is the rate limiter\'s share; the rest is the key lookup ' +
    '(`find api_keys`) and the pets. Per request: median (max). The "catalogue" rows (docs/rules.md §16) are calls of the use case the list route ' +
    "calls (`PetCatalog.listPets`, from the server's container on the same stores), so they count the pets' and photos' commands alone: compare " +
    'them with "catalogue: plain".',
  '',
  '| request | requests | quota round trips | all round trips | commands per request |',
  '|---|--:|--:|--:|---|',
  ...result.rows.map(
    (r) =>
      `| ${r.kind} | ${r.requests} | ${r.quotaMedian} (${r.quotaMax}) | ${r.totalMedian} (${r.totalMax}) | ${r.commands} |`,
  ),
  '',
  'A window roll (the first request of a subject in a new minute or day) takes the path of a first request: the admitting and the rejecting ' +
    "`$inc` both miss, the state is read and `consumeQuota`'s next state written on condition that it is unchanged (4 quota round trips, once per " +
    "subject and minute); it is not in the table because the run stays within one minute. A ban is answered from the process's memory of it " +
    '(0 quota round trips); a process that has not seen the ban yet learns it with 3.',
  '',
];

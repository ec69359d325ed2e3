// What the contract's own work costs per request, item by item, measured alone (bench only).
//
// Each item of a `GET /v1/pets?limit=20` answer that the contract requires and a minimal Koa app
// does not do is timed in process, hot, on the production code from dist/ (the container of
// apps/server on the memory store, 10,000 pets): the credential, the quota, the query check, the
// listing and its cursor, the Link header, the nine response headers, the log line, the metrics,
// the request id and the clock reads. Each figure is the minimum over 9 batches of the ns per call
// (on a noisy machine the minimum is the undisturbed cost: noise only ever adds). Alone and hot,
// every item is at its cheapest; in a server, between requests, caches are colder: the sum is a
// lower bound of what the contract costs, whatever the framework code around it.
//
//   node bench/contract-costs.mjs [out.json]     (pnpm bench runs it; stdout must not be a terminal
//   you care about: the log line under test writes to stdout, as the server's does; run.mjs sends it to /dev/null)
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, petBody, prng } from './lib.mjs';

const serverDist = join(ROOT, 'apps/server/dist/src');
const httpDist = join(ROOT, 'packages/adapters-http/dist/src');
const { parseSettings } = await import(join(serverDist, 'settings.js'));
const { createContainer } = await import(join(serverDist, 'container.js'));
const { TOKENS } = await import(join(serverDist, 'tokens.js'));
const { createServerLogger } = await import(join(serverDist, 'log-destination.js'));
const { compileValidators, readListQuery } = await import(join(httpDist, 'validation.js'));
const { serializePets } = await import(join(httpDist, 'serialize.js'));
const { nextLink } = await import(join(httpDist, 'next-link.js'));
const { PrometheusMetrics, CORS_EXPOSED_HEADERS } = await import(join(httpDist, 'index.js'));

const KEY = 'bench-enterprise-7f3a9c1e5b2d4086';
const HUGE = '100000000000000';
const settings = parseSettings({ PETSTORE_API_KEYS: `${KEY}:enterprise:${HUGE}:${HUGE}`, PETSTORE_LOG_LEVEL: 'info' });
const logger = createServerLogger('info');
const metrics = new PrometheusMetrics();
const container = await createContainer(settings, { logger, metrics });
const keys = await container.getAsync(TOKENS.ApiKeyStore);
for (const record of settings.apiKeys) await keys.save(record);
const authenticator = await container.getAsync(TOKENS.Authenticator);
const admission = await container.getAsync(TOKENS.Admission);
const catalog = await container.getAsync(TOKENS.PetCatalog);
const categories = await container.getAsync(TOKENS.CategoryCatalog);
for (let i = 1; i <= 12; i++) await categories.createCategory({ name: `Category ${i}` });
const random = prng(42);
for (let i = 0; i < 10_000; i++) await catalog.createPet(JSON.parse(petBody(random)));
const validators = compileValidators();

const auth = await authenticator.authenticate(`Bearer ${KEY}`);
if (!auth.ok) throw new Error('the bench key does not authenticate');
const subject = auth.value;
const page = await catalog.listPets(readListQuery(validators, 'limit=20'));
if (!page.ok || page.value.items.length !== 20 || page.value.nextCursor === undefined)
  throw new Error('the listing is not a full page with a next cursor');
const { items, nextCursor } = page.value;
const decision = await admission.admit(subject);

/** A response as Node builds it for the header block: the headers Koa sets for any JSON answer, plus `extra`. */
const headerBlock = (/** @type {[string, string][]} */ extra) => {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', '2077');
  for (const [name, value] of extra) res.setHeader(name, value);
  res.writeHead(200);
};
const ORIGIN = 'https://app.bench.test';
const EXPOSE = CORS_EXPOSED_HEADERS.join(',');
/** The nine headers the contract adds to every answer of a keyed request (§5, §11, the request id; CORS for an allowed origin). */
const EVERY_ANSWER_HEADERS = [
  ['X-Request-Id', randomUUID()],
  ['Vary', 'Origin'],
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Expose-Headers', EXPOSE],
  ['X-RateLimit-Limit', String(decision.binding.limit)],
  ['X-RateLimit-Remaining', String(decision.binding.remaining)],
  ['X-RateLimit-Reset', String(decision.binding.resetAt)],
  ['RateLimit-Policy', '"minute";q=100000000000000;w=60, "day";q=100000000000000;w=86400'],
  ['RateLimit', `"${decision.binding.name}";r=${decision.binding.remaining};t=${decision.binding.resetIn}`],
];
/** …and the list's `Link` to its next page (§2). */
const LIST_HEADERS = [...EVERY_ANSWER_HEADERS, ['Link', nextLink('/v1/pets', 20, {}, nextCursor)]];

/** Minimum over batches of ns per call of `fn`. */
const time = (/** @type {() => unknown} */ fn, calls = 20_000, batches = 9) => {
  for (let i = 0; i < calls; i++) fn();
  let best = Infinity;
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / calls);
  }
  return best;
};

const bareHeaders = time(() => headerBlock([]));
const everyHeaders = time(() => headerBlock(EVERY_ANSWER_HEADERS)) - bareHeaders;
const listHeaders = time(() => headerBlock(LIST_HEADERS)) - bareHeaders;
/** `every`: work every answer to a keyed request carries, whatever the route (a 429, an inventory, a create); else the list's own. */
/** @type {{ item: string, ns: number, every: boolean, note: string }[]} */
const rows = [
  {
    item: 'credential',
    every: true,
    ns: time(() => authenticator.authenticate(`Bearer ${KEY}`)),
    note: 'parse `Authorization`, SHA-256 of the key (node:crypto one-shot), the key store lookup (§4)',
  },
  {
    item: 'quota',
    every: true,
    ns: time(() => admission.admit(subject)),
    note: 'both windows and the ban rule on the memory quota store (§5)',
  },
  {
    item: 'nine more response headers',
    every: true,
    ns: everyHeaders,
    note: 'request id, Vary, 2 CORS, 5 rate-limit: `setHeader` (validation) and the header block, beyond the two every JSON answer has (§5, §11)',
  },
  { item: 'request id', every: true, ns: time(() => randomUUID()), note: 'a new UUID (no `X-Request-Id` sent)' },
  {
    item: 'log line',
    every: true,
    ns: time(() =>
      logger.info(
        {
          requestId: 'c0a80101-0000-4000-8000-000000000000',
          method: 'GET',
          route: 'GET /v1/pets',
          status: 200,
          durationMs: 0.123,
          subject: 'key_0123456789ab',
        },
        'request',
      ),
    ),
    note: "pino at `info`, the server's batched stdout destination (here /dev/null)",
  },
  {
    item: 'metrics',
    every: true,
    ns: time(() => {
      metrics.rateLimitDecision('admitted');
      metrics.request('GET', '/v1/pets', 200, 0.000_123);
    }),
    note: 'prom-client: the request counter, the duration histogram, the rate-limit decision (§11)',
  },
  {
    item: 'clock reads',
    every: true,
    ns: time(() => performance.now() + performance.now()),
    note: 'the duration of the log line and the histogram',
  },
  {
    item: 'query check',
    every: false,
    ns: time(() => readListQuery(validators, 'limit=20')),
    note: '`limit`, `status`, `categoryId`, `cursor` read and validated (ajv) (§2)',
  },
  {
    item: 'listing and cursor',
    every: false,
    ns: time(() => catalog.listPets({ limit: 20 })),
    note: 'the page from the ordered index, the next cursor with its checksum (§2)',
  },
  {
    item: 'Link header',
    every: false,
    ns: time(() => nextLink('/v1/pets', 20, {}, nextCursor)) + Math.max(0, listHeaders - everyHeaders),
    note: "the next page's URL, and one more header (§2)",
  },
];
const serializeOurs = time(() => serializePets(items));
const serializeKoa = time(() => JSON.stringify(items));
const result = {
  rows,
  totalNs: rows.reduce((sum, r) => sum + r.ns, 0),
  everyNs: rows.filter((r) => r.every).reduce((sum, r) => sum + r.ns, 0),
  serialize: { oursNs: serializeOurs, jsonStringifyNs: serializeKoa },
};
await new Promise((resolve) => logger.flush(resolve));
const out = process.argv[2];
if (out) writeFileSync(out, JSON.stringify(result, null, 2));
else process.stderr.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);

// (f) A second reference: a Fastify app doing the work the contract asks of every request, written
// the way a Fastify user would. Bench only, never part of the product.
// argv[2]: the fixtures file written by bench/run.mjs; argv[3]: the port; BENCH_API_KEYS: the keys
// (the format of PETSTORE_API_KEYS: `key:plan[:perMinute:perDay]`, comma-separated).
//
// Per request, in one `onRequest` hook: the bearer key's SHA-256 (node:crypto) looked up in a Map
// of key records; fixed-window quotas (UTC minute and day) per key in a Map, 429 past either;
// the rate-limit headers (X-RateLimit-Limit/-Remaining/-Reset, RateLimit-Policy, RateLimit). Then
// Fastify's own schema validation of the query (limit 1–100, status, cursor) and of a create's
// body, and the same JSON as the real server (GET bodies kept parsed, serialised per request with
// JSON.stringify; a create answers 201 with a Pet and a Location). No log line, no request id,
// no bans, no cursor checksum: less than the full stack does, which makes it a demanding reference.
import Fastify from 'fastify';
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** @type {{ contentType: string, gets: Record<string, string> }} */
const fixtures = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const port = Number(process.argv[3] ?? 0);
const TYPE = fixtures.contentType;
/** @type {Map<string, unknown>} request URL → parsed body */
const gets = new Map(Object.entries(fixtures.gets).map(([url, body]) => [url, JSON.parse(body)]));
const PLANS = { free: [60, 1_000], pro: [300, 10_000], business: [1_000, 100_000] };

/** @type {Map<string, { perMinute: number, perDay: number }>} SHA-256 hex → quota */
const keys = new Map();
for (const entry of (process.env.BENCH_API_KEYS ?? '').split(',').filter(Boolean)) {
  const [key, plan, perMinute, perDay] = entry.split(':');
  const [m, d] = plan === 'enterprise' ? [Number(perMinute), Number(perDay)] : PLANS[/** @type {'free'} */ (plan)];
  keys.set(hash('sha256', key, 'hex'), { perMinute: m, perDay: d });
}
/** @type {Map<string, { minute: number, minuteCount: number, day: number, dayCount: number }>} */
const usage = new Map();
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const error = (/** @type {string} */ code, /** @type {string} */ message, /** @type {number} */ status) =>
  JSON.stringify({ code, message, status });

const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  if (request.url === '/healthz') return; // the readiness check of the bench
  const match = BEARER.exec(request.headers.authorization ?? '');
  const quota = match ? keys.get(hash('sha256', match[1], 'hex')) : undefined;
  if (!match || !quota) {
    reply
      .code(401)
      .header('WWW-Authenticate', 'Bearer realm="petstore"')
      .type(TYPE)
      .send(error('unauthorized', 'the API key is not valid', 401));
    return reply;
  }
  const now = Date.now();
  const minute = now - (now % 60_000);
  const day = now - (now % 86_400_000);
  let u = usage.get(match[1]);
  if (!u) usage.set(match[1], (u = { minute, minuteCount: 0, day, dayCount: 0 }));
  if (u.minute !== minute) {
    u.minute = minute;
    u.minuteCount = 0;
  }
  if (u.day !== day) {
    u.day = day;
    u.dayCount = 0;
  }
  const admitted = u.minuteCount < quota.perMinute && u.dayCount < quota.perDay;
  if (admitted) {
    u.minuteCount++;
    u.dayCount++;
  }
  const minuteLeft = Math.max(0, quota.perMinute - u.minuteCount);
  const dayLeft = Math.max(0, quota.perDay - u.dayCount);
  const [name, left, end] =
    minuteLeft < dayLeft ? ['minute', minuteLeft, minute + 60_000] : ['day', dayLeft, day + 86_400_000];
  reply.headers({
    'X-RateLimit-Limit': String(name === 'minute' ? quota.perMinute : quota.perDay),
    'X-RateLimit-Remaining': String(left),
    'X-RateLimit-Reset': String(Math.ceil(end / 1000)),
    'RateLimit-Policy': `"minute";q=${quota.perMinute};w=60, "day";q=${quota.perDay};w=86400`,
    RateLimit: `"${name}";r=${left};t=${Math.max(1, Math.ceil((end - now) / 1000))}`,
  });
  if (!admitted) {
    reply
      .code(429)
      .header('Retry-After', String(Math.max(1, Math.ceil((end - now) / 1000))))
      .type(TYPE)
      .send(error('rate_limited', 'rate limit exceeded', 429));
    return reply;
  }
});

const serveGet = async (
  /** @type {import('fastify').FastifyRequest} */ request,
  /** @type {import('fastify').FastifyReply} */ reply,
) => {
  const data = gets.get(request.url);
  if (data === undefined)
    return reply
      .code(404)
      .type(TYPE)
      .send(error('not_found', 'no such fixture', 404));
  return reply.type(TYPE).send(JSON.stringify(data));
};
const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    status: { type: 'string', enum: ['available', 'pending', 'sold'] },
    cursor: { type: 'string', maxLength: 64 },
  },
};
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/v1/pets', { schema: { querystring: listQuery } }, serveGet);
for (const url of gets.keys()) {
  const path = url.split('?')[0];
  if (path !== '/v1/pets') app.get(path, serveGet);
}
let lastId = 1_000_000;
const newPet = {
  type: 'object',
  required: ['name', 'categoryId'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    categoryId: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['available', 'pending', 'sold'] },
  },
};
app.post('/v1/pets', { schema: { body: newPet } }, async (request, reply) => {
  const draft = /** @type {{ name: string, categoryId: number, status?: string }} */ (request.body);
  const pet = { id: ++lastId, name: draft.name, categoryId: draft.categoryId, status: draft.status ?? 'available' };
  return reply.code(201).header('Location', `/v1/pets/${pet.id}`).type(TYPE).send(JSON.stringify(pet));
});

await app.listen({ port, host: '127.0.0.1' });
app.server.keepAliveTimeout = 5_000;
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
  app.server.closeAllConnections();
});

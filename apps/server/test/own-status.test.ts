// docs/rules.md §14, every sentence, over HTTP through the composition root (settings, container,
// the Koa app), with a manual clock: on the memory quota store always, and on MongoDB when
// MONGODB_URI is set. The quota, key and pet stores sit under the fault injector, which also counts their calls.
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { publicKeyId, type QuotaStore } from '@petstore/domain';
import { FaultInjector, ManualClock, nodeDigests } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import { QuotaStoreMongo } from '@petstore/adapters-mongo';
import { silentLogger } from '@petstore/adapters-http';
import { parseSettings } from '../src/settings.js';
import { startServer, type StartedServer } from '../src/server.js';
import { STORE_CIRCUIT_OPEN_MS } from '../src/store-circuit.js';
import { send, type Answer } from './hardening/support.js';

const FREE = 'me-free-key-0123456789';
const OTHER = 'me-other-free-key-0123456789';
/** Enterprise, 5 a minute and 8 a day: the day window binds within a few requests. */
const SMALL = 'me-small-key-0123456789';
const ADMIN = 'me-admin-key-0123456789';
const T0 = Date.UTC(2027, 0, 1);
/** 44.5 s before the minute ends: `Retry-After` and `t` round up to 45. */
const NOW = T0 + 15_500;
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';
const iso = (ms: number): string => new Date(ms).toISOString();
const minuteEnd = (ms: number): number => Math.floor(ms / 60_000) * 60_000 + 60_000;
const dayEnd = (ms: number): number => Math.floor(ms / 86_400_000) * 86_400_000 + 86_400_000;

interface Backend {
  readonly name: string;
  /** A fresh, empty quota store, or the reason this backend is skipped. */
  readonly make: (() => Promise<{ readonly store: QuotaStore; dispose(): Promise<void> }>) | string;
}

const mongoUri = process.env['MONGODB_URI'];
const BACKENDS: readonly Backend[] = [
  { name: 'the memory store', make: async () => ({ store: new QuotaStoreInMemory(), dispose: async () => {} }) },
  {
    name: 'MongoDB',
    make:
      mongoUri === undefined || mongoUri === ''
        ? 'MONGODB_URI is not set (no MongoDB can run on this machine without it)'
        : async () => {
            const client = await MongoClient.connect(mongoUri);
            const db = client.db(`petstore_me_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`);
            return {
              store: new QuotaStoreMongo(db),
              dispose: async () => {
                await db.dropDatabase();
                await client.close();
              },
            };
          },
  },
];

interface Running {
  readonly server: StartedServer;
  readonly clock: ManualClock;
  readonly faults: FaultInjector;
  get(path: string, key?: string, method?: string): Promise<Answer>;
  stop(): Promise<void>;
}

/** The rate-limit headers of docs/rules.md §5, all five present, parsed. */
const rateLimitOf = (answer: Answer) => {
  const header = (name: string): string => String(answer.headers[name] ?? '');
  for (const name of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
  ]) {
    expect(answer.headers, `${name} on a ${answer.status}`).to.have.property(name);
  }
  return {
    limit: Number(header('x-ratelimit-limit')),
    remaining: Number(header('x-ratelimit-remaining')),
    reset: Number(header('x-ratelimit-reset')),
    policy: header('ratelimit-policy'),
    ratelimit: header('ratelimit'),
  };
};

const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.text) as Record<string, unknown>;
const errorCode = (answer: Answer): unknown => json(answer)['code'];
/** The `remaining` of each window in a `GET /v1/me` body, minute first. */
const remainingOf = (answer: Answer): number[] =>
  (json(answer)['windows'] as { remaining: number }[]).map((w) => w.remaining);

describe('GET /v1/me: the caller’s own status (docs/rules.md §14)', function () {
  this.timeout(60_000);

  for (const backend of BACKENDS) {
    describe(`on ${backend.name}`, () => {
      const make = backend.make;
      if (typeof make === 'string') {
        // Pending on purpose, the reason in its title.
        it(`skipped: ${make}`);
        return;
      }
      let t: Running;
      const start = async (env: Record<string, string> = {}): Promise<Running> => {
        const quotas = await make();
        const faults = new FaultInjector();
        const clock = new ManualClock(NOW);
        const settings = parseSettings({
          PORT: '0',
          HOST: '127.0.0.1',
          PETSTORE_API_KEYS: `${FREE}:free,${OTHER}:free,${SMALL}:enterprise:5:8`,
          PETSTORE_ADMIN_KEYS: ADMIN,
          ...env,
        });
        const server = await startServer(settings, {
          logger: silentLogger,
          clock,
          keyCacheMaxAgeMs: 0,
          stores: {
            pets: faults.petRepository(new PetRepositoryInMemory()),
            categories: new CategoryRepositoryInMemory(),
            orders: new OrderRepositoryInMemory(),
            quotas: faults.quotaStore(quotas.store),
            keys: faults.apiKeyStore(new ApiKeyStoreInMemory()),
          },
        });
        return {
          server,
          clock,
          faults,
          get: (path, key, method = 'GET') =>
            send(server.port, { method, path, headers: key === undefined ? {} : { Authorization: `Bearer ${key}` } }),
          async stop() {
            faults.reset();
            await server.stop();
            await quotas.dispose();
          },
        };
      };
      afterEach(async () => {
        await t.stop();
      });
      const me = (key?: string): Promise<Answer> => t.get('/v1/me', key);
      const pets = (key: string): Promise<Answer> => t.get('/v1/pets?limit=1', key);

      it('any valid key, client or admin: 200 with its public id, role, plan, quota, both windows (RFC 3339 UTC) and no ban', async () => {
        t = await start();
        const free = await me(FREE);
        expect(free.status).to.equal(200);
        expect(free.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(json(free)).to.deep.equal({
          keyId: publicKeyId(nodeDigests.sha256Hex(FREE)),
          role: 'client',
          plan: 'free',
          quota: { perMinute: 60, perDay: 1000 },
          windows: [
            { name: 'minute', limit: 60, remaining: 60, resetAt: '2027-01-01T00:01:00.000Z' },
            { name: 'day', limit: 1000, remaining: 1000, resetAt: '2027-01-02T00:00:00.000Z' },
          ],
          bannedUntil: null,
        });
        const admin = await me(ADMIN);
        expect(admin.status).to.equal(200);
        expect(json(admin)).to.deep.include({
          keyId: publicKeyId(nodeDigests.sha256Hex(ADMIN)),
          role: 'admin',
          plan: 'business',
          quota: { perMinute: 1000, perDay: 100000 },
          bannedUntil: null,
        });
        expect(json(await me(SMALL))).to.deep.include({
          role: 'client',
          plan: 'enterprise',
          quota: { perMinute: 5, perDay: 8 },
        });
      });

      it('consumes nothing from the plan’s windows: remaining is unchanged across calls, and the next request sees the same count', async () => {
        t = await start();
        for (let i = 0; i < 5; i++) expect((await pets(FREE)).status).to.equal(200);
        for (let i = 0; i < 10; i++) {
          const status = await me(FREE);
          expect(status.status).to.equal(200);
          expect(remainingOf(status), `call ${i}`).to.deep.equal([55, 995]);
          expect(rateLimitOf(status), `call ${i}`).to.deep.equal({
            limit: 60,
            remaining: 55,
            reset: minuteEnd(NOW) / 1000,
            policy: FREE_POLICY,
            ratelimit: '"minute";r=55;t=45',
          });
        }
        expect(rateLimitOf(await pets(FREE)).remaining, 'the next request takes the 6th unit').to.equal(54);
      });

      it('its rate-limit headers describe the state without this request: the binding window as a request would report it, less that request’s own unit', async () => {
        t = await start();
        const policy = '"minute";q=5;w=60, "day";q=8;w=86400';
        for (let i = 0; i < 2; i++) await pets(SMALL);
        // Minute 3 left of 5, day 6 left of 8: the minute binds.
        expect(rateLimitOf(await me(SMALL))).to.deep.equal({
          limit: 5,
          remaining: 3,
          reset: minuteEnd(NOW) / 1000,
          policy,
          ratelimit: '"minute";r=3;t=45',
        });
        expect(rateLimitOf(await pets(SMALL)), 'the next request: one unit less').to.deep.include({
          limit: 5,
          remaining: 2,
          reset: minuteEnd(NOW) / 1000,
        });

        // The next minute: 4 and 4 left, a tie: the later-resetting day is reported.
        t.clock.set(T0 + 90_000);
        await pets(SMALL);
        const tie = await me(SMALL);
        expect(remainingOf(tie)).to.deep.equal([4, 4]);
        expect(rateLimitOf(tie)).to.deep.include({ limit: 8, remaining: 4, reset: dayEnd(T0) / 1000 });
        expect(tie.headers, 'a 200 carries no Retry-After').not.to.have.property('retry-after');

        // The minute after: 5 and 4 left: the day binds.
        t.clock.set(T0 + 150_000);
        const dayT = (dayEnd(T0) - (T0 + 150_000)) / 1000;
        expect(rateLimitOf(await me(SMALL))).to.deep.equal({
          limit: 8,
          remaining: 4,
          reset: dayEnd(T0) / 1000,
          policy,
          ratelimit: `"day";r=4;t=${dayT}`,
        });
        expect(rateLimitOf(await pets(SMALL))).to.deep.include({ limit: 8, remaining: 3 });
      });

      it('answers 200 while the key is over its limit and while it is banned (bannedUntil set), and adds nothing toward the ban or to its length', async () => {
        t = await start();
        for (let i = 0; i < 60; i++) expect((await pets(FREE)).status).to.equal(200);
        for (let i = 1; i <= 8; i++) expect(errorCode(await pets(FREE)), `rejection ${i}`).to.equal('rate_limited');

        // Over the limit: 200, both windows as they are, no ban; and none of these counts as a rejection.
        for (let i = 0; i < 20; i++) {
          const over = await me(FREE);
          expect(over.status).to.equal(200);
          expect(json(over)).to.deep.include({ bannedUntil: null });
          expect(remainingOf(over)).to.deep.equal([0, 940]);
          expect(rateLimitOf(over)).to.deep.include({ limit: 60, remaining: 0, reset: minuteEnd(NOW) / 1000 });
          expect(over.headers).not.to.have.property('retry-after');
        }
        expect(errorCode(await pets(FREE)), 'the 9th rejection').to.equal('rate_limited');
        t.clock.advance(1_000);
        const banning = await pets(FREE);
        expect(errorCode(banning), 'the 10th rejection starts the ban').to.equal('temporarily_banned');
        expect(banning.headers['retry-after']).to.equal('900');
        const bannedUntil = NOW + 1_000 + 900_000;

        // Banned: still 200, with the ban's end; nothing left in either window while it runs.
        for (const after of [1_000, 120_000, 600_000]) {
          t.clock.set(NOW + 1_000 + after);
          const banned = await me(FREE);
          expect(banned.status).to.equal(200);
          expect(json(banned)['bannedUntil']).to.equal(iso(bannedUntil));
          expect(remainingOf(banned)).to.deep.equal([0, 0]);
          expect(rateLimitOf(banned).remaining).to.equal(0);
          const refused = await pets(FREE);
          expect(errorCode(refused)).to.equal('temporarily_banned');
          expect(refused.headers['retry-after'], 'the ban is not lengthened').to.equal(
            String((900_000 - after) / 1000),
          );
        }
        t.clock.set(bannedUntil);
        expect((await pets(FREE)).status, 'the ban ends when it was to end').to.equal(200);
        const afterBan = await me(FREE);
        expect(json(afterBan)['bannedUntil']).to.equal(null);
        expect(remainingOf(afterBan)).to.deep.equal([59, 939]);
      });

      it('has an allowance of its own, 60 a minute per key: the 61st is 429 rate_limited with Retry-After, never a ban however many follow; the plan is untouched', async () => {
        t = await start();
        // An admin key: business numbers (1,000 a minute) for its plan, 60 a minute for this operation all the same.
        for (let i = 0; i < 60; i++) expect((await me(ADMIN)).status, `call ${i + 1}`).to.equal(200);
        for (let i = 0; i < 100; i++) {
          const refused = await me(ADMIN);
          expect(refused.status).to.equal(429);
          expect(json(refused)).to.deep.equal({
            code: 'rate_limited',
            message: 'rate limit of 60 requests per minute on GET /v1/me exceeded; retry in 45 seconds',
            status: 429,
          });
          expect(refused.headers['retry-after']).to.equal('45');
          // The allowance's own numbers, as on any 429.
          expect(rateLimitOf(refused)).to.deep.equal({
            limit: 60,
            remaining: 0,
            reset: minuteEnd(NOW) / 1000,
            policy: '"minute";q=60;w=60, "day";q=86400;w=86400',
            ratelimit: '"minute";r=0;t=45',
          });
        }
        expect((await me(OTHER)).status, 'each key has its own allowance').to.equal(200);
        const plan = await pets(ADMIN);
        expect(plan.status, 'the plan’s windows are apart, and no ban').to.equal(200);
        expect(rateLimitOf(plan)).to.deep.include({ limit: 1000, remaining: 999 });
        t.clock.set(minuteEnd(NOW));
        const next = await me(ADMIN);
        expect(next.status, 'the next UTC minute').to.equal(200);
        expect(remainingOf(next)).to.deep.equal([1000, 99_999]);
      });

      it('a missing or invalid key is 401, counted per client address with the free plan’s numbers and its ban, whatever key it tries', async () => {
        t = await start();
        const missing = await me();
        expect(missing.status).to.equal(401);
        expect(json(missing)).to.deep.include({ code: 'unauthorized', status: 401 });
        expect(missing.headers['www-authenticate']).to.equal('Bearer realm="petstore"');
        expect(rateLimitOf(missing)).to.deep.include({ limit: 60, remaining: 59, policy: FREE_POLICY });
        const invalid = await me('not-a-key');
        expect(invalid.status).to.equal(401);
        expect(invalid.headers['www-authenticate']).to.equal('Bearer realm="petstore", error="invalid_token"');
        expect(rateLimitOf(invalid).remaining, 'the same address, counted again').to.equal(58);
        for (let i = 3; i <= 60; i++) expect((await me(`guess-${i}`)).status).to.equal(401);
        for (let i = 1; i <= 9; i++)
          expect(errorCode(await me(`guess-x${i}`)), `rejection ${i}`).to.equal('rate_limited');
        const banned = await me('guess-y');
        expect(errorCode(banned), 'the 10th rejection bans the address').to.equal('temporarily_banned');
        expect(banned.headers['retry-after']).to.equal('900');
        expect(errorCode(await me()), 'no key: the address is banned').to.equal('temporarily_banned');
        expect(errorCode(await t.get('/v1/pets')), 'on every path').to.equal('temporarily_banned');
        expect((await me(FREE)).status, 'a valid key is its own subject').to.equal(200);
      });

      it('HEAD answers as GET without a body; another method is 405 with Allow', async () => {
        t = await start();
        const head = await t.get('/v1/me', FREE, 'HEAD');
        expect(head.status).to.equal(200);
        expect(head.text).to.equal('');
        expect(rateLimitOf(head)).to.deep.include({ limit: 60, remaining: 60 });
        const post = await t.get('/v1/me', FREE, 'POST');
        expect(post.status).to.equal(405);
        expect(String(post.headers['allow'])).to.include('GET');
      });

      it('adds no store call to any other request; GET /v1/me itself makes its allowance’s and one read, and nothing else', async () => {
        t = await start();
        /** The store calls one request makes, by port and method. */
        const callsOf = async (request: () => Promise<Answer>): Promise<Record<string, number>> => {
          const from = t.faults.calls.length;
          await request();
          const made: Record<string, number> = {};
          for (const call of t.faults.calls.slice(from))
            made[`${call.port}.${call.method}`] = (made[`${call.port}.${call.method}`] ?? 0) + 1;
          return made;
        };
        expect(await callsOf(() => pets(FREE))).to.deep.equal({
          'ApiKeyStore.findByHash': 1,
          'QuotaStore.consume': 1,
          'PetRepository.list': 1,
        });
        expect(await callsOf(() => t.get('/v1/pets/1', FREE))).to.deep.equal({
          'ApiKeyStore.findByHash': 1,
          'QuotaStore.consume': 1,
          'PetRepository.findById': 1,
        });
        expect(await callsOf(() => t.get('/v1/nowhere', FREE))).to.deep.equal({
          'ApiKeyStore.findByHash': 1,
          'QuotaStore.consume': 1,
        });
        expect(await callsOf(() => me(FREE))).to.deep.equal({
          'ApiKeyStore.findByHash': 1,
          'QuotaStore.consume': 1,
          'QuotaStore.peek': 1,
        });
        expect(await callsOf(() => me('not-a-key')), 'a 401 is counted per address, nothing read').to.deep.equal({
          'ApiKeyStore.findByHash': 1,
          'QuotaStore.consume': 1,
        });
      });

      it('a store outage on its read is 503 unavailable with Retry-After, and it answers again by itself', async () => {
        t = await start();
        t.faults.use((call) => (call.port === 'QuotaStore' && call.method === 'peek' ? 'fail' : undefined));
        const out = await me(FREE);
        expect(out.status).to.equal(503);
        expect(errorCode(out)).to.equal('unavailable');
        expect(out.headers['retry-after']).to.match(/^[1-9][0-9]*$/);
        t.faults.use(undefined);
        t.clock.advance(STORE_CIRCUIT_OPEN_MS); // the store circuit lets the next request probe, and close it
        expect((await me(FREE)).status).to.equal(200);
      });

      it('is counted in the metrics under its route template, its allowance decisions with the rest', async () => {
        t = await start({ PETSTORE_METRICS_PORT: '0' });
        await me(FREE);
        const metrics = await send(Number(new URL(t.server.metricsUrl!).port), { path: '/metrics' });
        expect(metrics.text).to.match(/^http_requests_total\{method="GET",route="\/v1\/me",status="200"\} 1$/m);
        expect(metrics.text).to.match(/^petstore_rate_limit_decisions_total\{outcome="admitted"\} [1-9]/m);
      });
    });
  }
});

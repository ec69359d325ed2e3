// @petstore/client against a started server: pages through the Link iterator (docs/rules.md §2),
// the rate-limit headers read, a 429 waited out after Retry-After with backoff (docs/rules.md §5,
// on the server's manual clock: no test waits a minute), and creates retried under one
// Idempotency-Key replayed, never repeated (docs/rules.md §10).
import { expect } from 'chai';
import fc from 'fast-check';
import { PLAN_QUOTAS } from '@petstore/domain';
import {
  backoffDelayMs,
  createPetstoreClient,
  items,
  pages,
  PetstoreError,
  readRateLimit,
  retryAfterSeconds,
  type ListPath,
  type RetryOptions,
} from '../src/index.js';
import { KEYS, startServer, T0, type ClientTestServer } from './support/server.js';

/** Waits by moving the server's clock, and remembers each wait. */
const clockSleep =
  (s: ClientTestServer, waits: number[]): NonNullable<RetryOptions['sleep']> =>
  async (ms) => {
    waits.push(ms);
    s.clock.advance(ms);
  };

describe('@petstore/client against a started server', () => {
  let s: ClientTestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.close());

  const client = (apiKey: string = KEYS.business, extra: Partial<Parameters<typeof createPetstoreClient>[0]> = {}) =>
    createPetstoreClient({ baseUrl: s.baseUrl, apiKey, ...extra });

  const seed = async (n: number): Promise<number> => {
    const c = client();
    const category = await c.POST('/categories', { body: { name: 'Dogs' } });
    const categoryId = category.data!.id;
    for (let i = 0; i < n; i++) {
      const { response } = await c.POST('/pets', {
        body: { name: `Pet ${i}`, categoryId, status: i % 3 === 0 ? 'sold' : 'available' },
      });
      expect(response.status).to.equal(201);
    }
    return categoryId;
  };

  describe('pages (Link: rel="next")', () => {
    it('walks every page of a filtered list: each matching pet once, in ascending id order, pages of exactly limit but the last', async () => {
      const categoryId = await seed(25);
      const c = client();
      const sizes: number[] = [];
      const ids: number[] = [];
      for await (const page of pages(c, '/pets', { limit: 4, status: 'available', categoryId })) {
        sizes.push(page.items.length);
        for (const pet of page.items) {
          expect(pet.status).to.equal('available');
          ids.push(pet.id);
        }
      }
      const expected = (await s.pets.list({ statuses: ['available'], order: { sort: 'id' }, limit: 100 })).pets.map(
        (p) => p.id,
      );
      expect(expected).to.have.length(16);
      expect(ids).to.deep.equal(expected);
      expect(sizes).to.deep.equal([4, 4, 4, 4]);
      const all: number[] = [];
      for await (const pet of items(c, '/pets', { limit: 7 })) all.push(pet.id);
      expect(all).to.deep.equal(Array.from({ length: 25 }, (_, i) => i + 1));
    });

    it('the paged lists are the paths whose GET answers an array and takes no path parameter', () => {
      // Checked by the compiler: a list missing here, or a path that is not a list, does not compile.
      const lists: Record<ListPath, true> = {
        '/pets': true,
        '/categories': true,
        '/store/orders': true,
        '/admin/keys': true,
        '/webhooks': true,
      };
      expect(Object.keys(lists)).to.have.length(5);
    });

    it('walks the other lists alike (categories, orders), and an empty list is one empty page', async () => {
      const c = client();
      const empty = [];
      for await (const page of pages(c, '/store/orders', { limit: 5 })) empty.push(page.items.length);
      expect(empty).to.deep.equal([0]);
      for (let i = 0; i < 5; i++) await c.POST('/categories', { body: { name: `Category ${i}` } });
      const names: string[] = [];
      for await (const category of items(c, '/categories', { limit: 2 })) names.push(category.name);
      expect(names).to.deep.equal(['Category 0', 'Category 1', 'Category 2', 'Category 3', 'Category 4']);
    });

    it('an answer that is not a success throws PetstoreError with the Error body', async () => {
      const walk = async () => {
        // @ts-expect-error a status the API does not have: refused by the types, and by the API (400).
        for await (const _ of pages(client(), '/pets', { status: 'lost' })) expect.fail('no page');
      };
      const error = await walk().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(PetstoreError);
      expect(error).to.include({
        status: 400,
        code: 'validation_failed',
        message: "status must be one of available, pending, sold, or several of them separated by commas (got 'lost')",
      });
    });
  });

  it('reads the rate-limit headers of an answer: X-RateLimit-*, RateLimit-Policy, RateLimit', async () => {
    const { response } = await client(KEYS.free).GET('/pets');
    const state = readRateLimit(response)!;
    expect(state).to.deep.equal({
      limit: 60,
      remaining: 59,
      resetAt: new Date(Math.floor(T0 / 60_000) * 60_000 + 60_000),
      policies: [
        { name: 'minute', quota: PLAN_QUOTAS.free.perMinute, windowSeconds: 60 },
        { name: 'day', quota: PLAN_QUOTAS.free.perDay, windowSeconds: 86_400 },
      ],
      binding: { name: 'minute', remaining: 59, resetSeconds: 50 },
    });
    const document = await fetch(`${s.baseUrl}/openapi.json`);
    expect(readRateLimit(document), 'an answer outside the rate limit').to.equal(undefined);
  });

  describe('429: waits Retry-After, with exponential backoff and full jitter (a free key: 60 a minute)', () => {
    const spend = async (n: number) => {
      const c = client(KEYS.free, { retry: false });
      for (let i = 0; i < n; i++) expect((await c.GET('/pets')).response.status).to.equal(200);
    };

    it('the 61st request of the minute is answered 429, then retried after Retry-After (50 s here) plus jitter, and admitted', async () => {
      await spend(60);
      const waits: number[] = [];
      const seen: number[] = [];
      const c = client(KEYS.free, {
        retry: { sleep: clockSleep(s, waits), random: () => 0.5, onRetry: (r) => seen.push(r.response.status) },
      });
      const { data, response } = await c.GET('/pets');
      expect(response.status).to.equal(200);
      expect(data).to.deep.equal([]);
      expect(seen).to.deep.equal([429]);
      // Retry-After: the 50 s left in the minute; jitter: half of the first window (500 ms).
      expect(waits).to.deep.equal([50_000 + 250]);
      expect(readRateLimit(response)).to.include({ limit: 60, remaining: 59 });
    });

    it('gives up after maxAttempts in all and returns the last 429 as it is; waits grow by doubling windows', async () => {
      await spend(60);
      const waits: number[] = [];
      // A sleep that does not move the server's clock: every retry meets the same spent minute.
      const c = client(KEYS.free, {
        retry: { maxAttempts: 3, sleep: async (ms) => void waits.push(ms), random: () => 0.999 },
      });
      const { error, response } = await c.GET('/pets');
      expect(response.status).to.equal(429);
      expect(error).to.deep.include({ code: 'rate_limited', status: 429 });
      expect(waits).to.deep.equal([50_000 + 499, 50_000 + 999]);
    });

    it('a Retry-After longer than maxRetryAfterMs is not waited for: the 429 comes back at once', async () => {
      await spend(60);
      const waits: number[] = [];
      const c = client(KEYS.free, { retry: { maxRetryAfterMs: 10_000, sleep: async (ms) => void waits.push(ms) } });
      expect((await c.GET('/pets')).response.status).to.equal(429);
      expect(waits).to.deep.equal([]);
    });
  });

  describe('Idempotency-Key on creates (docs/rules.md §10)', () => {
    /** A fetch that lets the server answer, then tells the client 503 the first `lose` times: an answer lost on the way back. */
    const losing =
      (lose: number, sent: Request[]) =>
      async (request: Request): Promise<Response> => {
        sent.push(request.clone());
        const answer = await fetch(request);
        if (sent.length > lose) return answer;
        await answer.body?.cancel();
        return Response.json(
          { code: 'unavailable', message: 'the gateway lost the answer', status: 503 },
          { status: 503, headers: { 'Retry-After': '1' } },
        );
      };

    it('a create whose answer was lost is retried with the same key: the service replays it, one pet exists', async () => {
      const categoryId = await seed(0);
      const sent: Request[] = [];
      const waits: number[] = [];
      const c = client(KEYS.business, {
        fetch: losing(1, sent),
        retry: { sleep: clockSleep(s, waits), random: () => 0 },
      });
      const { data, response } = await c.POST('/pets', { body: { name: 'Rex', categoryId } });
      expect(response.status).to.equal(201);
      expect(response.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(data).to.deep.equal({ id: 1, name: 'Rex', categoryId, status: 'available' });
      expect(waits).to.deep.equal([1_000]);
      const keys = sent.map((r) => r.headers.get('Idempotency-Key'));
      expect(keys).to.have.length(2);
      expect(keys[0]).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(keys[1]).to.equal(keys[0]);
      expect((await s.pets.list({ order: { sort: 'id' }, limit: 10 })).pets).to.have.length(1);
    });

    it('each logical create has a key of its own; a key the caller gives is kept; creates that take none get none', async () => {
      const categoryId = await seed(0);
      const sent: Request[] = [];
      const c = client(KEYS.admin, { fetch: losing(0, sent) });
      await c.POST('/pets', { body: { name: 'Rex', categoryId } });
      await c.POST('/pets', { body: { name: 'Rex', categoryId } });
      await c.POST('/pets', {
        body: { name: 'Mia', categoryId },
        params: { header: { 'Idempotency-Key': 'my-own-key-1' } },
      });
      await c.POST('/admin/keys', { body: { plan: 'free' } });
      await c.GET('/pets');
      const keys = sent.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.headers.get('Idempotency-Key')}`);
      expect(keys[0]).to.not.equal(keys[1]);
      expect(keys.slice(2)).to.deep.equal([
        'POST /v1/pets my-own-key-1',
        'POST /v1/admin/keys null',
        'GET /v1/pets null',
      ]);
      expect(
        (await s.pets.list({ order: { sort: 'id' }, limit: 10 })).pets,
        'two Rexes: two logical creates',
      ).to.have.length(3);
    });

    it('a 503 is not retried for a request that is not safe to repeat (a POST without an Idempotency-Key)', async () => {
      const categoryId = await seed(0);
      const sent: Request[] = [];
      const c = client(KEYS.business, {
        fetch: losing(1, sent),
        idempotentCreates: false,
        retry: { sleep: async () => {} },
      });
      expect((await c.POST('/pets', { body: { name: 'Rex', categoryId } })).response.status).to.equal(503);
      expect(sent).to.have.length(1);
    });
  });
});

describe('@petstore/client: backoff and headers, as rules', () => {
  it('property: the wait is never before Retry-After, and within it plus a jitter window that doubles per retry up to the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 900 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (retry, afterSeconds, r, baseDelayMs, maxDelayMs) => {
          const window = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          const delay = backoffDelayMs(retry, afterSeconds * 1000, { baseDelayMs, maxDelayMs, random: () => r });
          expect(delay).to.be.at.least(afterSeconds * 1000);
          expect(delay).to.be.below(afterSeconds * 1000 + window);
          expect(backoffDelayMs(retry, afterSeconds * 1000, { baseDelayMs, maxDelayMs, random: () => 0 })).to.equal(
            afterSeconds * 1000,
          );
        },
      ),
    );
  });

  it('property: the rate-limit headers the service writes read back as the numbers in them', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1_000_000 }),
        fc.nat({ max: 1_000_000 }),
        fc.nat({ max: 4_000_000_000 }),
        fc.constantFrom('minute', 'day'),
        fc.nat({ max: 86_400 }),
        fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
        (limit, remaining, reset, name, t, retryAfter) => {
          const headers = new Headers({
            'X-RateLimit-Limit': String(limit),
            'X-RateLimit-Remaining': String(remaining),
            'X-RateLimit-Reset': String(reset),
            'RateLimit-Policy': `"minute";q=${limit};w=60, "day";q=${limit * 10};w=86400`,
            RateLimit: `"${name}";r=${remaining};t=${t}`,
            ...(retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) }),
          });
          expect(readRateLimit(headers)).to.deep.equal({
            limit,
            remaining,
            resetAt: new Date(reset * 1000),
            policies: [
              { name: 'minute', quota: limit, windowSeconds: 60 },
              { name: 'day', quota: limit * 10, windowSeconds: 86_400 },
            ],
            binding: { name, remaining, resetSeconds: t },
            ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
          });
        },
      ),
    );
  });

  it('Retry-After as an HTTP date counts from now; malformed rate-limit fields are left out, never guessed', () => {
    const now = Date.UTC(2027, 0, 1, 0, 0, 0);
    expect(retryAfterSeconds(new Headers({ 'Retry-After': 'Fri, 01 Jan 2027 00:00:42 GMT' }), now)).to.equal(42);
    expect(retryAfterSeconds(new Headers({ 'Retry-After': 'Thu, 31 Dec 2026 00:00:00 GMT' }), now)).to.equal(0);
    expect(retryAfterSeconds(new Headers({ 'Retry-After': 'soon' }), now)).to.equal(undefined);
    expect(retryAfterSeconds(new Headers(), now)).to.equal(undefined);
    const state = readRateLimit(
      new Headers({
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '1',
        'X-RateLimit-Reset': '7',
        'RateLimit-Policy': 'minute;q=',
        RateLimit: '"minute";r=-1;t=5',
      }),
    );
    expect(state).to.deep.equal({ limit: 60, remaining: 1, resetAt: new Date(7000), policies: [] });
    expect(
      readRateLimit(
        new Headers({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '-1', 'X-RateLimit-Reset': '7' }),
      ),
    ).to.equal(undefined);
  });
});

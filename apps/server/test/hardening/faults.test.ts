import { expect } from 'chai';
import fc from 'fast-check';
import { KEY_CACHE_MAX_AGE_MS, type ConsumeRequest, type Pet, type PetDraft } from '@petstore/domain';
import { FAULT_MODES, ManualClock, type FaultMode, nodeDigests } from '@petstore/domain/testing';
import { STORE_CIRCUIT_OPEN_MS } from '../../src/store-circuit.js';
import { errorOf, send, startHarness, type Answer, type Harness } from './support.js';

const KEY = 'faults-key';
const PER_MINUTE = 1_000_000;
const auth = { Authorization: `Bearer ${KEY}` };
const json = { ...auth, 'Content-Type': 'application/json' };

const allPets = async (h: Harness): Promise<readonly Pet[]> =>
  (await h.pets.list({ order: { sort: 'id' }, limit: Number.MAX_SAFE_INTEGER })).pets;

const create = (h: Harness, name: string): Promise<Answer> =>
  send(h.port, {
    method: 'POST',
    path: '/v1/pets',
    headers: json,
    body: JSON.stringify({ name, categoryId: 3 }),
    timeoutMs: 10_000,
  });

/** Failures never seen in this process while the tests run: an unhandled rejection would crash a server. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

describe('hardening: faults in the store (503 unavailable, no lost or phantom writes, exact quotas, recovery)', function () {
  this.timeout(60_000);
  let h: Harness;
  const clock = new ManualClock(Date.UTC(2027, 4, 5, 12, 0, 0));

  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    // Injected hangs (300 ms) outlast the service's deadline (100 ms): both bounds get exercised.
    h = await startHarness({
      env: { PETSTORE_API_KEYS: `${KEY}:enterprise:${PER_MINUTE}:${PER_MINUTE * 10}` },
      clock,
      storeDeadlineMs: 100,
      hangMs: 300,
    });
  });
  after(async () => {
    await h.stop();
    await new Promise((r) => setTimeout(r, 400)); // let every late (post-deadline) outcome land
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled, 'unhandled rejections').to.deep.equal([]);
  });

  it('each port failing answers 503 unavailable with Retry-After on every operation, and the service recovers with the store', async () => {
    for (const port of ['PetRepository', 'QuotaStore', 'ApiKeyStore'] as const) {
      for (const mode of ['fail', 'hang', 'fail-after-write', 'hang-after-write'] as const) {
        h.faults.use((call) => (call.port === port ? mode : undefined));
        const answers = await Promise.all([
          create(h, `p-${port}-${mode}`),
          send(h.port, { path: '/v1/pets', headers: auth }),
          send(h.port, { path: '/v1/pets/1', headers: auth }),
        ]);
        for (const a of answers) {
          expect(a.status, `${port} ${mode}: ${a.text}`).to.equal(503);
          expect(errorOf(a.text)).to.deep.include({ code: 'unavailable', status: 503 });
          expect(a.headers['retry-after']).to.equal('5');
          expect(a.text, 'no driver message leaks').not.to.contain('injected');
        }
        h.faults.reset();
        // The store circuit is open: once its interval has passed, the next call is the probe.
        clock.advance(STORE_CIRCUIT_OPEN_MS);
        expect(
          (await create(h, `recovered-${port}-${mode}`)).status,
          'recovers with the first call after the circuit interval',
        ).to.equal(201);
      }
    }
    expect((await send(h.port, { path: '/healthz' })).status).to.equal(200);
  });

  it('with the key lookup cache on, a key store outage is felt once the cached lookup is older than its bound (by the clock port), and the service recovers', async () => {
    const cacheClock = new ManualClock(Date.UTC(2027, 4, 5, 13, 0, 0));
    const cached = await startHarness({
      env: { PETSTORE_API_KEYS: 'cached-key:pro' },
      clock: cacheClock,
      storeDeadlineMs: 100,
      keyCacheMaxAgeMs: KEY_CACHE_MAX_AGE_MS,
    });
    try {
      const get = () => send(cached.port, { path: '/v1/pets', headers: { Authorization: 'Bearer cached-key' } });
      expect((await get()).status).to.equal(200);
      cached.faults.use((call) => (call.port === 'ApiKeyStore' ? 'fail' : undefined));
      cacheClock.advance(KEY_CACHE_MAX_AGE_MS - 1);
      expect((await get()).status, 'answered from the cached lookup').to.equal(200);
      cacheClock.advance(1);
      const out = await get();
      expect(out.status, 'the lookup is too old: the store is asked, and is out').to.equal(503);
      expect(errorOf(out.text).code).to.equal('unavailable');
      cached.faults.reset();
      cacheClock.advance(STORE_CIRCUIT_OPEN_MS); // the store circuit lets the next call probe
      expect((await get()).status).to.equal(200);
      expect(cached.faults.count({ port: 'ApiKeyStore', method: 'findByHash' })).to.equal(3);
    } finally {
      await cached.stop();
    }
  });

  it('property: under any faults, a 201 create is always found, a 5xx one at most once, ids are unique, and quota units are counted exactly once', async () => {
    let run = 0;
    const requestArb = fc.record({
      // What happens to this request's create call in the pet repository…
      create: fc.constantFrom<FaultMode>(...FAULT_MODES),
      // …and, with a lower weight, to its quota and key lookups.
      quota: fc.oneof(
        { weight: 4, arbitrary: fc.constant<FaultMode>('pass') },
        { weight: 1, arbitrary: fc.constantFrom<FaultMode>(...FAULT_MODES) },
      ),
      key: fc.oneof(
        { weight: 4, arbitrary: fc.constant<FaultMode>('pass') },
        { weight: 1, arbitrary: fc.constantFrom<FaultMode>('fail', 'hang') },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 12 }), async (requests) => {
        run += 1;
        // Each run starts with the store circuit closed: past its interval, one request closes it.
        clock.advance(STORE_CIRCUIT_OPEN_MS);
        expect((await send(h.port, { path: '/v1/pets?limit=1', headers: auth })).status, 'the probe').to.equal(200);
        const names = requests.map((_, i) => `run${run}-req${i}`);
        const byName = new Map(requests.map((r, i) => [names[i]!, r]));
        // Quota and key calls cannot be told apart by argument (same key): modes are drawn in call order.
        const quotaModes = requests.map((r) => r.quota);
        const keyModes = requests.map((r) => r.key);
        h.faults.use((call) => {
          if (call.port === 'PetRepository' && call.method === 'create')
            return byName.get((call.args[0] as PetDraft).name)?.create ?? 'pass';
          if (call.port === 'QuotaStore') return quotaModes.shift() ?? 'pass';
          if (call.port === 'ApiKeyStore') return keyModes.shift() ?? 'pass';
          return 'pass';
        });
        const answers = await Promise.all(names.map((name) => create(h, name)));
        h.faults.use(undefined);

        const stored = await allPets(h);
        const ids = stored.map((p) => p.id);
        expect(new Set(ids).size, 'ids are never duplicated').to.equal(ids.length);
        answers.forEach((a, i) => {
          const copies = stored.filter((p) => p.name === names[i]);
          if (a.status === 201) {
            const pet = JSON.parse(a.text) as Pet;
            expect(copies, `${names[i]} answered 201`).to.deep.equal([pet]);
            expect(a.headers['location']).to.equal(`/v1/pets/${pet.id}`);
          } else {
            expect(a.status, a.text).to.equal(503);
            expect(errorOf(a.text).code).to.equal('unavailable');
            expect(copies.length, `${names[i]} answered 503`).to.be.at.most(1);
          }
        });
      }),
      { numRuns: 40 },
    );
    // Quota: every consume that reached the store counted one unit, no more (nothing retried or
    // counted twice), none that did not reach it counted; remaining never below 0.
    h.faults.reset();
    clock.advance(STORE_CIRCUIT_OPEN_MS);
    const reached = h.faults.count({ port: 'QuotaStore', reached: true });
    const probe = await send(h.port, { path: '/v1/pets?limit=1', headers: auth });
    expect(probe.status).to.equal(200);
    expect(Number(probe.headers['x-ratelimit-remaining'])).to.equal(PER_MINUTE - reached - 1);
  });

  it('quota state stays exact across failures mid-request: a unit is consumed only by a consume the store applied', async () => {
    const small = await startHarness({
      env: { PETSTORE_API_KEYS: 'small-key:enterprise:5:50' },
      clock,
      storeDeadlineMs: 100,
      hangMs: 300,
    });
    try {
      const get = () => send(small.port, { path: '/v1/pets', headers: { Authorization: 'Bearer small-key' } });
      // 1 admitted, then the store fails before (not counted) and after (counted) applying consume.
      expect((await get()).status).to.equal(200);
      // After each 503 the store circuit is open: past its interval, the next request's first call probes.
      const afterOutage = (): void => clock.advance(STORE_CIRCUIT_OPEN_MS);
      small.faults.queue('pass', 'fail'); // key lookup passes, consume fails before the write
      expect((await get()).status).to.equal(503);
      afterOutage();
      small.faults.queue('pass', 'hang'); // consume hangs, never applied
      expect((await get()).status).to.equal(503);
      afterOutage();
      small.faults.queue('pass', 'fail-after-write'); // applied, the answer lost
      expect((await get()).status).to.equal(503);
      afterOutage();
      small.faults.queue('pass', 'hang-after-write'); // applied, then the deadline
      expect((await get()).status).to.equal(503);
      afterOutage();
      const next = await get();
      expect(next.status).to.equal(200);
      // Units used: 1 + 2 applied-but-lost + this one = 4 of 5.
      expect(next.headers['x-ratelimit-remaining']).to.equal('1');
      expect((await get()).status).to.equal(200);
      const over = await get();
      expect(over.status).to.equal(429);
      expect(over.headers['x-ratelimit-remaining']).to.equal('0');
      // The memory adapter's state agrees: direct look at the count (a consume at the same instant, over the limit, consumes nothing).
      const state = await small.quotas.consume({
        subject: `k:${nodeDigests.sha256Hex('small-key')}`,
        now: clock.now(),
        quota: { perMinute: 5, perDay: 50 },
        ban: { threshold: 1_000, seconds: 1 },
      } satisfies ConsumeRequest);
      expect(state).to.deep.include({ outcome: 'rejected', minuteCount: 5, dayCount: 5 });
    } finally {
      await small.stop();
    }
  });

  it('never crashes or hangs under a burst of 300 concurrent requests with random faults on every port, then recovers', async () => {
    const rng = fc.sample(fc.constantFrom<FaultMode>(...FAULT_MODES), { numRuns: 5_000, seed: 42 });
    let i = 0;
    h.faults.use(() => rng[i++ % rng.length]!);
    const paths = ['/v1/pets', '/v1/pets?limit=2', '/v1/pets/1', '/readyz', '/healthz'];
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, n) =>
        n % 3 === 0
          ? create(h, `burst-${n}`)
          : send(h.port, { path: paths[n % paths.length]!, headers: auth, timeoutMs: 10_000 }),
      ),
    );
    for (const a of answers) {
      expect(a.status, a.text).to.be.oneOf([200, 201, 404, 503]);
      if (a.status >= 400) errorOf(a.text);
    }
    expect(answers.filter((a) => a.status === 503).length).to.be.greaterThan(0);
    h.faults.reset();
    // Past the store circuit's interval, one request probes and closes it; then every create goes through.
    clock.advance(STORE_CIRCUIT_OPEN_MS);
    expect((await send(h.port, { path: '/v1/pets?limit=1', headers: auth })).status, 'the probe').to.equal(200);
    const after = await Promise.all(Array.from({ length: 20 }, (_, n) => create(h, `after-burst-${n}`)));
    expect(after.map((a) => a.status)).to.deep.equal(Array(20).fill(201));
  });
});

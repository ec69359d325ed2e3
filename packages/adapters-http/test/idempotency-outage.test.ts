// docs/rules.md §10 when the idempotency store fails (§3: an outage is 503 `unavailable`, the
// service recovers by itself): the store is wrapped by the FaultInjector of @petstore/domain/testing.
import { expect } from 'chai';
import { IN_PROGRESS_LEASE_MS, ORDER_STATES } from '@petstore/domain';
import { OrderRepositoryInMemory } from '@petstore/adapters-memory';
import { FaultInjector, type FaultMode, entryOf } from '@petstore/domain/testing';
import { expectError, KEYS, startServer, type RawResponse, type TestServer } from './support/server.js';

const NEW_PET = '{"name":"Rex","categoryId":1}';

describe('Idempotency-Key when the idempotency store fails (docs/rules.md §10, §3)', () => {
  let s: TestServer;
  let faults: FaultInjector;
  beforeEach(async () => {
    // A hang ends (as the server's store deadline would end it) after 5 ms.
    faults = new FaultInjector({ hangMs: 5 });
    s = await startServer({ wrapIdempotencyStore: (inner) => faults.idempotencyStore(inner) });
  });
  afterEach(async () => {
    faults.reset();
    await s.close();
  });

  const post = (key: string): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path: '/v1/pets',
      key: KEYS.huge,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: NEW_PET,
    });
  const petCount = async (): Promise<number> =>
    ((await s.request({ path: '/v1/pets?limit=100', key: KEYS.huge })).json() as unknown[]).length;
  const failOn = (method: string, mode: FaultMode) => faults.use((call) => (call.method === method ? mode : undefined));

  for (const mode of ['fail', 'hang'] as const) {
    it(`the claim ${mode === 'fail' ? 'fails' : 'hangs'} → 503 unavailable with Retry-After, nothing created; once the store answers, the same key creates once`, async () => {
      failOn('claim', mode);
      const refused = await post('outage-claim');
      expectError(refused, 503, 'unavailable');
      expect(refused.header('retry-after')).to.match(/^[1-9]\d*$/);
      expect(await petCount(), 'no pet created').to.equal(0);
      expect(s.idempotencyStore.size, 'no claim left behind').to.equal(0);

      faults.use(undefined);
      const created = await post('outage-claim');
      expect(created.status).to.equal(201);
      const again = await post('outage-claim');
      expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([
        201,
        created.text,
        'true',
      ]);
      expect(await petCount()).to.equal(1);
    });
  }

  it('the claim lands but its answer is lost → 503, nothing created; a retry with the key is 409 while the claim lasts, then creates once', async () => {
    failOn('claim', 'fail-after-write');
    expectError(await post('lost-claim'), 503, 'unavailable');
    faults.use(undefined);
    expect(await petCount()).to.equal(0);
    // The store holds a claim no request will finish: it frees itself when its lease ends.
    expectError(await post('lost-claim'), 409, 'conflict');
    s.clock.advance(IN_PROGRESS_LEASE_MS);
    expect((await post('lost-claim')).status).to.equal(201);
    expect(await petCount()).to.equal(1);
  });

  for (const mode of ['fail', 'hang'] as const) {
    it(`keeping the answer ${mode === 'fail' ? 'fails' : 'hangs'} after the create → the client still gets its 201; a retry is 409 while the claim lasts (never a second pet then)`, async () => {
      failOn('complete', mode);
      const created = await post('lost-answer');
      expect(created.status, 'the pet was created: a 503 would invite a retry that creates again').to.equal(201);
      faults.use(undefined);
      expect(await petCount()).to.equal(1);
      expectError(await post('lost-answer'), 409, 'conflict');
      s.clock.advance(IN_PROGRESS_LEASE_MS - 1);
      expectError(await post('lost-answer'), 409, 'conflict');
      expect(await petCount(), 'no second pet while the claim lasts').to.equal(1);
    });
  }

  it('a store outage of every call: every idempotent create is 503, creates without the header still work, and the service recovers by itself', async () => {
    faults.set('fail');
    expectError(await post('down-1'), 503, 'unavailable');
    expectError(await post('down-2'), 503, 'unavailable');
    const plain = await s.postJson(NEW_PET);
    expect(plain.status, 'a create without Idempotency-Key does not touch the idempotency store').to.equal(201);
    faults.set('pass');
    expect((await post('down-1')).status).to.equal(201);
    expect(await petCount()).to.equal(2);
  });
});

describe('Idempotency-Key when the idempotency store fails, on each create it applies to: pets, categories, orders (docs/rules.md §10, §3)', () => {
  let s: TestServer;
  let faults: FaultInjector;
  let orders: OrderRepositoryInMemory;
  let petId: number;
  beforeEach(async () => {
    faults = new FaultInjector({ hangMs: 5 });
    orders = new OrderRepositoryInMemory();
    s = await startServer({ orders, wrapIdempotencyStore: (inner) => faults.idempotencyStore(inner) });
    petId = (await s.repository.create(entryOf({ name: 'Orderable', categoryId: 1, status: 'available' }))).id;
  });
  afterEach(async () => {
    faults.reset();
    await s.close();
  });

  /** Each create, and how many entries one of it adds or changes in each store (an order also moves its pet). */
  const CREATES = [
    { path: '/v1/pets', body: () => NEW_PET, once: { pets: 1, categories: 0, orders: 0 } },
    { path: '/v1/categories', body: () => '{"name":"Ferrets"}', once: { pets: 0, categories: 1, orders: 0 } },
    { path: '/v1/store/orders', body: () => `{"petId":${petId}}`, once: { pets: 1, categories: 0, orders: 1 } },
  ] as const;
  type Create = (typeof CREATES)[number];
  const post = (create: Create, key: string): Promise<RawResponse> =>
    s.request({
      method: 'POST',
      path: create.path,
      key: KEYS.huge,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: create.body(),
    });
  /** What the three stores hold: every pet with its status, every category, every order record with its state. */
  const stored = async () => ({
    pets: (await s.repository.list({ order: { sort: 'id' }, limit: 1_000 })).pets.map((p) => `${p.id}:${p.status}`),
    categories: (await s.categoryRepository.list({ afterId: 0, limit: 1_000 })).map((c) => `${c.id}:${c.name}`),
    orders: (await orders.list({ states: ORDER_STATES, afterId: 0, limit: 1_000 })).map((o) => `${o.id}:${o.state}`),
  });
  /** How each store changed from `before`: the entries added or changed. */
  const changes = async (before: Awaited<ReturnType<typeof stored>>) => {
    const now = await stored();
    return {
      pets: now.pets.filter((p) => !before.pets.includes(p)),
      categories: now.categories.filter((c) => !before.categories.includes(c)),
      orders: now.orders.filter((o) => !before.orders.includes(o)),
    };
  };
  const counted = (changed: Awaited<ReturnType<typeof changes>>) => ({
    pets: changed.pets.length,
    categories: changed.categories.length,
    orders: changed.orders.length,
  });
  const failOn = (method: string, mode: FaultMode) => faults.use((call) => (call.method === method ? mode : undefined));

  for (const create of CREATES) {
    for (const mode of ['fail', 'hang'] as const) {
      it(`POST ${create.path}: the claim ${mode === 'fail' ? 'fails' : 'hangs'} → 503 unavailable with Retry-After and no pet, category or order created or changed; once the store is back the service answers by itself`, async () => {
        const before = await stored();
        failOn('claim', mode);
        for (const key of ['down-a', 'down-b']) {
          const refused = await post(create, key);
          expectError(refused, 503, 'unavailable');
          expect(refused.header('retry-after')).to.match(/^[1-9]\d*$/);
        }
        expect(await changes(before), 'nothing created or changed in any store').to.deep.equal({
          pets: [],
          categories: [],
          orders: [],
        });
        expect(s.idempotencyStore.size, 'no claim left behind').to.equal(0);

        faults.use(undefined);
        const created = await post(create, 'down-a');
        expect(created.status, created.text).to.equal(201);
        expect(created.header('location')).to.match(/^\/v1\//);
        const replayed = await post(create, 'down-a');
        expect([replayed.status, replayed.text, replayed.header('idempotent-replayed')]).to.deep.equal([
          201,
          created.text,
          'true',
        ]);
        expect(counted(await changes(before)), 'created once').to.deep.equal(create.once);
      });

      it(`POST ${create.path}: keeping the answer ${mode === 'fail' ? 'fails' : 'hangs'} → the client still gets its 201; a retry with the key is 409 conflict for the whole claim lease, creating nothing`, async () => {
        const before = await stored();
        failOn('complete', mode);
        const created = await post(create, 'lost-answer');
        expect(created.status, 'created: a 503 would invite a retry that creates again').to.equal(201);
        faults.use(undefined);
        const afterCreate = await stored();
        for (const step of [0, IN_PROGRESS_LEASE_MS - 1]) {
          s.clock.advance(step);
          expectError(await post(create, 'lost-answer'), 409, 'conflict');
        }
        expect(await changes(afterCreate), 'the retries created or changed nothing').to.deep.equal({
          pets: [],
          categories: [],
          orders: [],
        });
        expect(counted(await changes(before)), 'created once').to.deep.equal(create.once);
      });
    }
  }

  // After the claim's lease a retry takes the claim over and answers what the first attempt created
  // under the key's creation token (docs/rules.md §10: a create never happens twice under one key).
  for (const create of CREATES) {
    it(`POST ${create.path}: keeping the answer failed and the claim's lease has ended → a retry answers the same resource again (201, same body and Location, Idempotent-Replayed: true), nothing created twice`, async () => {
      failOn('complete', 'fail');
      const first = await post(create, 'late-retry');
      expect(first.status).to.equal(201);
      faults.use(undefined);
      const afterCreate = await stored();
      s.clock.advance(IN_PROGRESS_LEASE_MS);
      const retried = await post(create, 'late-retry');
      expect([
        retried.status,
        retried.text,
        retried.header('location'),
        retried.header('idempotent-replayed'),
      ]).to.deep.equal([201, first.text, first.header('location'), 'true']);
      expect(await changes(afterCreate)).to.deep.equal({ pets: [], categories: [], orders: [] });
    });
  }
});

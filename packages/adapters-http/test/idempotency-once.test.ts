// docs/rules.md §10, its last paragraph: a create never happens twice under one Idempotency-Key.
// When an attempt was answered 5xx (or never answered: its process died) but its write landed, a
// repeat with the same key and request answers that resource (201, `Idempotent-Replayed: true`)
// instead of creating a second one, also after the claim's lease, also through another process.
// The faults come from the FaultInjector of @petstore/domain/testing around the memory stores; two
// apps given the same stores stand for two server processes sharing one database.
import { expect } from 'chai';
import { IN_PROGRESS_LEASE_MS, ORDER_STATES, type PortName } from '@petstore/domain';
import {
  CategoryRepositoryInMemory,
  IdempotencyStoreInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
} from '@petstore/adapters-memory';
import { FaultInjector, ManualClock, type FaultMode, entryOf } from '@petstore/domain/testing';
import { expectError, KEYS, startServer, T0, type RawResponse, type TestServer } from './support/server.js';

const LEASE = IN_PROGRESS_LEASE_MS;

describe('a create never happens twice under one Idempotency-Key: a write that landed under a 5xx or a lost answer is found, not made again (docs/rules.md §10)', () => {
  let pets: PetRepositoryInMemory;
  let categories: CategoryRepositoryInMemory;
  let orders: OrderRepositoryInMemory;
  let faults: FaultInjector;
  /** The process the first attempts go to: every store behind the fault injector. */
  let a: TestServer;
  /** Another process over the same stores (and clock), without faults. */
  let b: TestServer;
  let petId: number;

  beforeEach(async () => {
    const clock = new ManualClock(T0);
    // A hang lasts until `reset()`: a process that never answers (it died).
    faults = new FaultInjector({ hangMs: 10 * LEASE });
    pets = new PetRepositoryInMemory();
    categories = new CategoryRepositoryInMemory();
    orders = new OrderRepositoryInMemory();
    const idempotencyStore = new IdempotencyStoreInMemory();
    a = await startServer({
      clock,
      repository: faults.petRepository(pets),
      categoryRepository: faults.categoryRepository(categories),
      categories: 1,
      orders: faults.orderRepository(orders),
      idempotencyStore,
      wrapIdempotencyStore: (inner) => faults.idempotencyStore(inner),
    });
    b = await startServer({
      clock,
      repository: pets,
      categoryRepository: categories,
      categories: 0,
      orders,
      idempotencyStore,
    });
    petId = (await pets.create(entryOf({ name: 'Orderable', categoryId: 1, status: 'available' }))).id;
  });
  afterEach(async () => {
    faults.reset();
    await a.close();
    await b.close();
  });

  /** Each create, the port that writes it, and what one of it adds to the stores. */
  const CREATES = [
    {
      what: 'a pet',
      path: '/v1/pets',
      port: 'PetRepository',
      body: () => '{"name":"Rex","categoryId":1}',
      adds: { pets: 1, categories: 0, orders: 0 },
    },
    {
      what: 'a category',
      path: '/v1/categories',
      port: 'CategoryRepository',
      body: () => '{"name":"Ferrets"}',
      adds: { pets: 0, categories: 1, orders: 0 },
    },
    {
      what: 'an order',
      path: '/v1/store/orders',
      port: 'OrderRepository',
      body: () => `{"petId":${petId}}`,
      adds: { pets: 0, categories: 0, orders: 1 },
    },
  ] as const;
  type Create = (typeof CREATES)[number];

  const post = (
    server: TestServer,
    create: Create,
    key: string | undefined,
    apiKey: string = KEYS.huge,
  ): Promise<RawResponse> =>
    server.request({
      method: 'POST',
      path: create.path,
      key: apiKey,
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: create.body(),
    });
  /** What the three stores hold, read from the stores themselves. */
  const stored = async () => ({
    pets: (await pets.list({ order: { sort: 'id' }, limit: 1_000 })).pets,
    categories: await categories.list({ afterId: 0, limit: 1_000 }),
    orders: await orders.list({ states: ORDER_STATES, afterId: 0, limit: 1_000 }),
  });
  type Stored = Awaited<ReturnType<typeof stored>>;
  const failOn = (port: PortName, method: string, mode: FaultMode) =>
    faults.use((call) => (call.port === port && call.method === method ? mode : undefined));

  /** Exactly one resource was created since `before`, and `answer` (a 201) names it as it is stored. */
  const expectCreatedOnce = async (create: Create, before: Stored, answer: RawResponse): Promise<void> => {
    const now = await stored();
    const added = {
      pets: now.pets.length - before.pets.length,
      categories: now.categories.length - before.categories.length,
      orders: now.orders.length - before.orders.length,
    };
    expect(added, 'created exactly once').to.deep.equal(create.adds);
    expect(answer.status, answer.text).to.equal(201);
    const body = answer.json() as { id: number };
    expect(answer.header('location')).to.equal(`${create.path}/${body.id}`);
    if (create.port === 'PetRepository') {
      const pet = await pets.findById(body.id);
      expect(body).to.deep.equal(pet && { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });
    }
    if (create.port === 'CategoryRepository') expect(body).to.deep.equal({ ...(await categories.findById(body.id)) });
    if (create.port === 'OrderRepository') {
      expect(body).to.deep.include({ petId, status: 'placed' });
      expect((await orders.findById(body.id))?.state).to.equal('placed');
      expect(await pets.findHold(petId), 'the pet is held by that order').to.deep.equal({
        status: 'pending',
        orderId: body.id,
      });
    }
  };
  const expectReplayed = (res: RawResponse) =>
    expect([res.status, res.header('idempotent-replayed')], res.text).to.deep.equal([201, 'true']);

  for (const create of CREATES) {
    describe(`${create.what} (POST ${create.path})`, () => {
      it('the write lands, its answer is lost (503): a repeat answers what was created (201, Idempotent-Replayed: true) instead of creating again; then that answer is kept', async () => {
        const before = await stored();
        failOn(create.port, 'create', 'fail-after-write');
        expectError(await post(a, create, 'lost-1'), 503, 'unavailable');
        faults.use(undefined);
        const retried = await post(a, create, 'lost-1');
        expectReplayed(retried);
        await expectCreatedOnce(create, before, retried);
        const again = await post(a, create, 'lost-1');
        expect([again.status, again.text, again.header('location'), again.header('idempotent-replayed')]).to.deep.equal(
          [201, retried.text, retried.header('location'), 'true'],
        );
        await expectCreatedOnce(create, before, again);
      });

      it('the write lands, its answer is lost and the claim is not released (the process died before): 409 while the lease lasts, then, past the lease (60 s), what was created', async () => {
        const before = await stored();
        faults.use((call) =>
          call.port === create.port && call.method === 'create'
            ? 'fail-after-write'
            : call.port === 'IdempotencyStore' && call.method === 'release'
              ? 'fail'
              : undefined,
        );
        expectError(await post(a, create, 'left-1'), 503, 'unavailable');
        faults.use(undefined);
        expectError(await post(a, create, 'left-1'), 409, 'conflict');
        a.clock.advance(LEASE - 1);
        expectError(await post(b, create, 'left-1'), 409, 'conflict');
        a.clock.advance(1);
        const retried = await post(a, create, 'left-1');
        expectReplayed(retried);
        await expectCreatedOnce(create, before, retried);
      });

      it('the 201 was answered but keeping it failed: past the lease a repeat answers the same resource (same body and Location, replayed), never a second one', async () => {
        const before = await stored();
        failOn('IdempotencyStore', 'complete', 'fail');
        const first = await post(a, create, 'unkept-1');
        expect(first.status, first.text).to.equal(201);
        expect(first.header('idempotent-replayed')).to.equal('');
        faults.use(undefined);
        expectError(await post(a, create, 'unkept-1'), 409, 'conflict');
        a.clock.advance(LEASE);
        const retried = await post(a, create, 'unkept-1');
        expectReplayed(retried);
        expect([retried.text, retried.header('location')]).to.deep.equal([first.text, first.header('location')]);
        await expectCreatedOnce(create, before, retried);
      });

      it('another process: the first answered 503 after its write landed; the repeat, sent to another process over the same stores, answers what was created', async () => {
        const before = await stored();
        failOn(create.port, 'create', 'fail-after-write');
        expectError(await post(a, create, 'moved-1'), 503, 'unavailable');
        faults.use(undefined);
        const retried = await post(b, create, 'moved-1');
        expectReplayed(retried);
        await expectCreatedOnce(create, before, retried);
      });

      it("another process: the first dies mid-request after its write landed (no answer, no release); the other answers 409 while the lease lasts, then what was created; the first one's late end changes nothing", async () => {
        const before = await stored();
        failOn(create.port, 'create', 'hang-after-write');
        const dying = post(a, create, 'died-1');
        while (faults.count({ port: create.port, method: 'create', mode: 'hang-after-write' }) === 0)
          await new Promise((resolve) => setImmediate(resolve));
        faults.use(undefined);
        expectError(await post(b, create, 'died-1'), 409, 'conflict');
        b.clock.advance(LEASE);
        const retried = await post(b, create, 'died-1');
        expectReplayed(retried);
        await expectCreatedOnce(create, before, retried);
        // The first process's request ends at last (503); its claim was taken over, so it frees nothing.
        faults.reset();
        expectError(await dying, 503, 'unavailable');
        const again = await post(b, create, 'died-1');
        expect([again.status, again.text, again.header('idempotent-replayed')]).to.deep.equal([
          201,
          retried.text,
          'true',
        ]);
        await expectCreatedOnce(create, before, again);
      });
    });
  }

  describe('an order, by the write its placement stopped after (packages/domain/src/order/transitions.ts)', () => {
    const order = CREATES[2];
    for (const [port, method, step] of [
      ['PetRepository', 'swapHold', '(2) the pet reserved'],
      ['OrderRepository', 'updateState', '(3) the record placed'],
    ] as const) {
      it(`write ${step} lands, its answer is lost (503): a repeat answers that order, placed (201, Idempotent-Replayed: true)`, async () => {
        const before = await stored();
        failOn(port, method, 'fail-after-write');
        expectError(await post(a, order, 'step-1'), 503, 'unavailable');
        faults.use(undefined);
        const retried = await post(b, order, 'step-1');
        expectReplayed(retried);
        await expectCreatedOnce(order, before, retried);
      });
    }

    it('write (1) landed and the pet was ordered by another key meanwhile: the repeat is 409 (the pet is pending), no second record; the first record stays placing, invisible', async () => {
      failOn('OrderRepository', 'create', 'fail-after-write');
      expectError(await post(a, order, 'late-1'), 503, 'unavailable');
      faults.use(undefined);
      const other = await post(b, order, undefined, KEYS.pro);
      expect(other.status, other.text).to.equal(201);
      const refused = expectError(await post(a, order, 'late-1'), 409, 'conflict');
      expect(refused.message).to.contain(`pet ${petId} is pending`);
      expect((await orders.list({ states: ORDER_STATES, afterId: 0, limit: 10 })).map((o) => o.state)).to.deep.equal([
        'placing',
        'placed',
      ]);
      expect(
        ((await a.request({ path: '/v1/store/orders', key: KEYS.huge })).json() as unknown[]).length,
        'the caller sees no order',
      ).to.equal(0);
    });
  });

  it('a pet: the write lands, its answer is lost (503), the pet is withdrawn (docs/rules.md §12), then the repeat: 201 replayed, that pet as it was when withdrawn; no second pet', async () => {
    const create = CREATES[0];
    failOn('PetRepository', 'create', 'fail-after-write');
    expectError(await post(a, create, 'gone-1'), 503, 'unavailable');
    faults.use(undefined);
    const created = (await stored()).pets.at(-1)!;
    expect(created.name, 'the write landed').to.equal('Rex');
    const withdrawn = await b.request({ method: 'DELETE', path: `/v1/pets/${created.id}`, key: KEYS.admin });
    expect(withdrawn.status, withdrawn.text).to.equal(204);
    const before = await stored();
    for (const server of [a, b]) {
      const retried = await post(server, create, 'gone-1');
      expectReplayed(retried);
      expect(retried.json()).to.deep.equal({ id: created.id, name: 'Rex', categoryId: 1, status: 'available' });
      expect(retried.header('location')).to.equal(`/v1/pets/${created.id}`);
    }
    expect(await stored(), 'nothing created').to.deep.equal(before);
    expect((await b.request({ path: `/v1/pets/${created.id}`, key: KEYS.huge })).status, 'still withdrawn').to.equal(
      404,
    );
  });

  it('without Idempotency-Key, a create answered 503 may have happened: its write landed, and a retry creates a second one (docs/using-the-api.md says so, and says to send the header)', async () => {
    const pet = CREATES[0];
    failOn('PetRepository', 'create', 'fail-after-write');
    expectError(await post(a, pet, undefined), 503, 'unavailable');
    faults.use(undefined);
    expect((await stored()).pets).to.have.length(2);
    expect((await post(a, pet, undefined)).status).to.equal(201);
    expect((await stored()).pets).to.have.length(3);
  });
});

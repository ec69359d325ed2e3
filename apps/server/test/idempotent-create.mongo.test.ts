// docs/rules.md §10, its last paragraph, on MongoDB: a create never happens twice under one
// Idempotency-Key, also through another process. Two apps composed as the server composes them
// (use cases over the store-deadline ports), each with its own MongoDB client and pool, over one
// database: the first one's stores behind the FaultInjector of @petstore/domain/testing.
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import {
  Admission,
  Adoption,
  apiKeyRecord,
  Authenticator,
  CategoryCatalog,
  IdempotentRequests,
  IN_PROGRESS_LEASE_MS,
  KeyAdmin,
  PetCatalog,
  PetMaintenance,
  type ApiKeyRecord,
  type Clock,
  type PortName,
  type StorePorts,
} from '@petstore/domain';
import { FaultInjector, ManualClock, type FaultMode, nodeDigests, entryOf } from '@petstore/domain/testing';
import {
  ApiKeyStoreMongo,
  CategoryRepositoryMongo,
  COLLECTIONS,
  ensureIndexes,
  IdempotencyStoreMongo,
  OrderRepositoryMongo,
  PetRepositoryMongo,
  QuotaStoreMongo,
  resolveMongoSettings,
} from '@petstore/adapters-mongo';
import { createHttpApp, listen, type RunningServer } from '@petstore/adapters-http';
import { boundedPorts } from '../src/deadline.js';
import { StoreCircuit } from '../src/store-circuit.js';
import { SystemRandom } from '../src/system-random.js';

const KEY = 'idempotent-mongo-key-0123456789';
const ADMIN = 'idempotent-mongo-admin-0123456789';

describe('a create never happens twice under one Idempotency-Key, on MongoDB, through another process (docs/rules.md §10)', function () {
  this.timeout(60_000);
  const uri = process.env['MONGODB_URI'];
  if (uri === undefined || uri === '') {
    // Pending on purpose, the reason in its title: it needs a MongoDB (or a compatible server) to share.
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }

  let clients: MongoClient[];
  let db: Db;
  let faults: FaultInjector;
  let clock: ManualClock;
  let servers: RunningServer[];
  let petId: number;

  /** The server's composition, over one client's view of the database: each port call bounded by the store deadline. */
  const compose = (view: Db, clockOf: Clock, wrap: (ports: StorePorts) => StorePorts) => {
    const raw: StorePorts = {
      pets: new PetRepositoryMongo(view),
      categories: new CategoryRepositoryMongo(view),
      orders: new OrderRepositoryMongo(view),
      quotas: new QuotaStoreMongo(view),
      keys: new ApiKeyStoreMongo(view),
      idempotency: new IdempotencyStoreMongo(view),
    };
    // A circuit that lets the next call probe at once: these tests retry right after a fault they injected.
    const ports = boundedPorts(wrap(raw), 5_000, new StoreCircuit(clockOf, 0, { failure: () => {}, change: () => {} }));
    return createHttpApp({
      catalog: new PetCatalog(ports.pets, ports.categories, clockOf, new SystemRandom()),
      categories: new CategoryCatalog(ports.categories),
      adoption: new Adoption(ports.pets, ports.orders, clockOf),
      maintenance: new PetMaintenance(ports.pets, ports.orders, ports.categories, clockOf),
      authenticator: new Authenticator(ports.keys, nodeDigests),
      admission: new Admission(ports.quotas, clockOf),
      keyAdmin: new KeyAdmin(ports.keys, new SystemRandom(), clockOf, clockOf.now(), nodeDigests),
      idempotency: new IdempotentRequests(ports.idempotency, clockOf, nodeDigests),
    });
  };

  beforeEach(async () => {
    const database = `petstore_idem_${process.pid}_${Date.now().toString(36)}`;
    clients = await Promise.all([0, 1].map(() => MongoClient.connect(uri, resolveMongoSettings(uri).driverOptions)));
    db = clients[0]!.db(database);
    await ensureIndexes(db);
    await new ApiKeyStoreMongo(db).save(
      apiKeyRecord(nodeDigests, KEY, 'enterprise', { perMinute: 1_000_000, perDay: 10_000_000 }) as ApiKeyRecord,
    );
    await new ApiKeyStoreMongo(db).save(
      apiKeyRecord(nodeDigests, ADMIN, 'business', undefined, 'admin') as ApiKeyRecord,
    );
    const category = await new CategoryRepositoryMongo(db).create({ name: 'Dogs' });
    if (!category.ok || category.value.id !== 1) throw new Error('seeding category 1');
    petId = (
      await new PetRepositoryMongo(db).create(entryOf({ name: 'Orderable', categoryId: 1, status: 'available' }))
    ).id;
    clock = new ManualClock(Date.now());
    faults = new FaultInjector({ hangMs: 10 * IN_PROGRESS_LEASE_MS });
    const first = compose(db, clock, (ports) => ({
      ...ports,
      pets: faults.petRepository(ports.pets),
      categories: faults.categoryRepository(ports.categories),
      orders: faults.orderRepository(ports.orders),
      idempotency: faults.idempotencyStore(ports.idempotency),
    }));
    const second = compose(clients[1]!.db(database), clock, (ports) => ports);
    servers = await Promise.all([first, second].map((app) => listen(app, { port: 0, host: '127.0.0.1' })));
  });
  afterEach(async () => {
    faults.reset();
    await Promise.all(servers.map((s) => s.close(1_000)));
    await db.dropDatabase();
    await Promise.all(clients.map((c) => c.close()));
  });

  const CREATES = [
    {
      what: 'a pet',
      path: '/v1/pets',
      port: 'PetRepository',
      collection: COLLECTIONS.pets,
      body: () => '{"name":"Rex","categoryId":1}',
    },
    {
      what: 'a category',
      path: '/v1/categories',
      port: 'CategoryRepository',
      collection: COLLECTIONS.categories,
      body: () => '{"name":"Ferrets"}',
    },
    {
      what: 'an order',
      path: '/v1/store/orders',
      port: 'OrderRepository',
      collection: COLLECTIONS.orders,
      body: () => `{"petId":${petId}}`,
    },
  ] as const;
  type Create = (typeof CREATES)[number];

  const post = (server: number, create: Create, key: string) =>
    fetch(`${servers[server]!.url}${create.path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: create.body(),
    });
  const failOn = (port: PortName, method: string, mode: FaultMode) =>
    faults.use((call) => (call.port === port && call.method === method ? mode : undefined));
  /** What the database holds of this create's collection (the seeded category and pet aside). */
  const count = (create: Create) =>
    db
      .collection<{ _id: number }>(create.collection)
      .countDocuments(create.path === '/v1/store/orders' ? {} : { _id: { $gt: 1 } });
  const expectReplayOf = async (create: Create, res: Response): Promise<void> => {
    const text = await res.text();
    expect([res.status, res.headers.get('idempotent-replayed')], text).to.deep.equal([201, 'true']);
    const body = JSON.parse(text) as { id: number; status?: string };
    expect(res.headers.get('location')).to.equal(`${create.path}/${body.id}`);
    expect(await count(create), 'created exactly once').to.equal(1);
    const stored = await db
      .collection<{ _id: number; token?: string; state?: string }>(create.collection)
      .findOne({ _id: body.id });
    expect(stored?.token, 'written with its creation token').to.match(/^[0-9a-f]{64}$/);
    if (create.path === '/v1/store/orders') {
      expect([body.status, stored?.state]).to.deep.equal(['placed', 'placed']);
      expect(await new PetRepositoryMongo(db).findHold(petId)).to.deep.equal({ status: 'pending', orderId: body.id });
    }
  };

  for (const create of CREATES) {
    it(`${create.what}: the first process answers 503 after its write landed; the repeat through the other process answers what was created (201, Idempotent-Replayed: true)`, async () => {
      failOn(create.port, 'create', 'fail-after-write');
      expect((await post(0, create, 'lost-1')).status).to.equal(503);
      faults.use(undefined);
      await expectReplayOf(create, await post(1, create, 'lost-1'));
    });

    it(`${create.what}: the first process dies mid-request after its write landed (no answer, no release); the other answers 409 while the lease lasts, then what was created`, async () => {
      failOn(create.port, 'create', 'hang-after-write');
      const dying = post(0, create, 'died-1');
      while (
        faults.count({ port: create.port, method: 'create', mode: 'hang-after-write' }) === 0 ||
        (await count(create)) === 0
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      faults.use(undefined);
      expect((await post(1, create, 'died-1')).status).to.equal(409);
      clock.advance(IN_PROGRESS_LEASE_MS);
      await expectReplayOf(create, await post(1, create, 'died-1'));
      faults.reset();
      expect((await dying).status).to.equal(503);
    });
  }

  const withdraw = (server: number, id: number) =>
    fetch(`${servers[server]!.url}/v1/pets/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${ADMIN}` } });

  it('a pet: the first process answers 503 after its write landed, the pet is withdrawn through the other (docs/rules.md §12); the repeat through either answers that pet as it was (201 replayed), nothing created', async () => {
    const create = CREATES[0];
    failOn('PetRepository', 'create', 'fail-after-write');
    expect((await post(0, create, 'gone-1')).status).to.equal(503);
    faults.use(undefined);
    const stored = await db.collection<{ _id: number; name: string }>(COLLECTIONS.pets).findOne({ name: 'Rex' });
    expect(stored, 'the write landed').not.to.equal(null);
    expect((await withdraw(1, stored!._id)).status).to.equal(204);
    const pets = await db.collection(COLLECTIONS.pets).countDocuments();
    for (const server of [1, 0]) {
      const res = await post(server, create, 'gone-1');
      expect([res.status, res.headers.get('idempotent-replayed'), res.headers.get('location')]).to.deep.equal([
        201,
        'true',
        `/v1/pets/${stored!._id}`,
      ]);
      expect(await res.json()).to.deep.equal({ id: stored!._id, name: 'Rex', categoryId: 1, status: 'available' });
    }
    expect(await db.collection(COLLECTIONS.pets).countDocuments(), 'nothing created').to.equal(pets);
    expect(
      (await fetch(`${servers[0]!.url}/v1/pets/${stored!._id}`, { headers: { Authorization: `Bearer ${KEY}` } }))
        .status,
      'still withdrawn',
    ).to.equal(404);
  });

  it('an order: the first process answers 503 after its placement landed; the order is cancelled and its pet withdrawn through the other; the repeat answers that order as it is now (cancelled, 201 replayed), no second record', async () => {
    const create = CREATES[2];
    failOn('PetRepository', 'swapHold', 'fail-after-write');
    expect((await post(0, create, 'cancelled-1')).status).to.equal(503);
    faults.use(undefined);
    const [record] = await db.collection<{ _id: number }>(COLLECTIONS.orders).find({}).toArray();
    const cancelled = await fetch(`${servers[1]!.url}/v1/store/orders/${record!._id}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    expect(cancelled.status, await cancelled.text()).to.equal(200);
    expect((await withdraw(1, petId)).status).to.equal(204);
    const res = await post(1, create, 'cancelled-1');
    expect([res.status, res.headers.get('idempotent-replayed')]).to.deep.equal([201, 'true']);
    expect(await res.json()).to.deep.include({ id: record!._id, petId, status: 'cancelled' });
    expect(await db.collection(COLLECTIONS.orders).countDocuments(), 'no second record').to.equal(1);
  });
});

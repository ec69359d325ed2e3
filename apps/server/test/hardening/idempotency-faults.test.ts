// docs/rules.md §10, its last paragraph, under injected faults, through the real composition root:
// a create never happens twice under one Idempotency-Key, for a pet, a category, an order and a
// photo, whatever store call of any attempt fails, hangs, or loses the answer of a write that
// landed, and whatever happens to what was created between the attempts: a pet withdrawn (§12), a
// photo deleted or gone with its withdrawn pet (§13), an order cancelled and its pet withdrawn
// (§8). Run on the memory stores, and on MongoDB when MONGODB_URI is set. The faults come from the
// FaultInjector of @petstore/domain/testing; under it, a spy counts what the stores really created.
import { expect } from 'chai';
import fc from 'fast-check';
import { MongoClient } from 'mongodb';
import {
  IN_PROGRESS_LEASE_MS,
  type CategoryRepository,
  type OrderRepository,
  type PetRepository,
  type PhotoStore,
  type StoredPhoto,
} from '@petstore/domain';
import {
  FAULT_MODES,
  FaultInjector,
  forwardingCategories,
  forwardingOrders,
  forwardingPets,
  ManualClock,
  type FaultMode,
} from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  IdempotencyStoreInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
  PhotoStoreInMemory,
  QuotaStoreInMemory,
} from '@petstore/adapters-memory';
import {
  ApiKeyStoreMongo,
  CategoryRepositoryMongo,
  ensureIndexes,
  IdempotencyStoreMongo,
  OrderRepositoryMongo,
  PetRepositoryMongo,
  PhotoStoreMongo,
  QuotaStoreMongo,
  resolveMongoSettings,
} from '@petstore/adapters-mongo';
import { silentLogger } from '@petstore/adapters-http';
import { testImage } from '@petstore/adapters-sharp/testing';
import type { ProvidedStores } from '../../src/container.js';
import { parseSettings } from '../../src/settings.js';
import { startServer, type StartedServer } from '../../src/server.js';
import { STORE_CIRCUIT_OPEN_MS } from '../../src/store-circuit.js';
import { send, type Answer } from './support.js';

const KEY = 'idempotent-faults-key-0123456789';
const ADMIN = 'idempotent-faults-admin-0123456789';

/** What the stores really created, by the tag of each logical create (a pet's or category's name; an order's or a photo's pet). */
class Created {
  readonly ids = new Map<string, Set<number>>();
  add(tag: string, id: number): void {
    const ids = this.ids.get(tag) ?? new Set<number>();
    ids.add(id);
    this.ids.set(tag, ids);
  }
  of(tag: string): readonly number[] {
    return [...(this.ids.get(tag) ?? [])];
  }
}

/** The stores as the server gets them: each create-bearing port spied on (what it really created), then behind the fault injector. */
const spied = (
  created: Created,
  faults: FaultInjector,
  real: Omit<ProvidedStores, 'photos'> & { readonly photos: PhotoStore },
): ProvidedStores => {
  const pets: PetRepository = {
    ...forwardingPets(real.pets),
    create: async (draft, token) => {
      const pet = await real.pets.create(draft, token);
      created.add(`pet ${draft.name}`, pet.id);
      return pet;
    },
  };
  const categories: CategoryRepository = {
    ...forwardingCategories(real.categories),
    create: async (category, token) => {
      const outcome = await real.categories.create(category, token);
      if (outcome.ok) created.add(`category ${category.name}`, outcome.value.id);
      return outcome;
    },
  };
  const orders: OrderRepository = {
    ...forwardingOrders(real.orders),
    create: async (draft, token) => {
      const record = await real.orders.create(draft, token);
      created.add(`order of ${draft.petId}`, record.id);
      return record;
    },
  };
  // A photo is created by the publish that answers `true` (one meeting its token answers the earlier photo).
  const photos = new Proxy(real.photos, {
    get: (target, name) => {
      if (name === 'publish') {
        return async (...args: Parameters<PhotoStore['publish']>) => {
          const outcome = await target.publish(...args);
          if (outcome === true) created.add(`photo of ${args[0].petId}`, (args[1] as StoredPhoto).id);
          return outcome;
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    pets: faults.petRepository(pets),
    categories: faults.categoryRepository(categories),
    orders: faults.orderRepository(orders),
    idempotency: faults.idempotencyStore(real.idempotency!),
    photos: faults.photoStore(photos),
    quotas: real.quotas,
    keys: real.keys,
  };
};

type Kind = 'pet' | 'category' | 'order' | 'photo';
/** What happens between two attempts (with no fault): nothing, or something done to what the create made or to its pet. */
type Between = 'nothing' | 'withdraw the pet' | 'delete the photo' | 'cancel the order';
const BETWEEN: Readonly<Record<Kind, readonly Between[]>> = {
  pet: ['nothing', 'withdraw the pet'],
  category: ['nothing'],
  order: ['nothing', 'cancel the order', 'withdraw the pet'],
  photo: ['nothing', 'delete the photo', 'withdraw the pet'],
};
interface Attempt {
  /** The store call of the attempt (counted over every faulty port) that gets `mode`. */
  readonly at: number;
  readonly mode: FaultMode;
  readonly between: number;
}
/** Faults of every mode, the two that lose the answer of a write that landed (the case of §10) the most often. */
const modeArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<FaultMode>('fail-after-write', 'hang-after-write') },
  { weight: 2, arbitrary: fc.constantFrom<FaultMode>(...FAULT_MODES) },
);
/** The faulty call: among the first few more often (a pet's or a category's create is the 2nd or 3rd call of its attempt), up to a photo's last. */
const atArb = fc.oneof({ weight: 2, arbitrary: fc.nat(3) }, { weight: 1, arbitrary: fc.nat(10) });
const attemptArb = fc.record({ at: atArb, mode: modeArb, between: fc.nat() });
const createArb = fc.record({
  kind: fc.constantFrom<Kind>('pet', 'category', 'order', 'photo'),
  attempts: fc.array(attemptArb, { minLength: 1, maxLength: 4 }),
});

interface Subject {
  readonly server: StartedServer;
  readonly faults: FaultInjector;
  readonly created: Created;
  readonly clock: ManualClock;
  stop(): Promise<void>;
}

const start = async (
  real: Omit<ProvidedStores, 'photos'> & { readonly photos: PhotoStore },
  clock: ManualClock,
  stop: () => Promise<void>,
): Promise<Subject> => {
  const faults = new FaultInjector({ hangMs: 50 });
  const created = new Created();
  const settings = parseSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000`,
    PETSTORE_ADMIN_KEYS: ADMIN,
  });
  // An injected hang ends after 50 ms with the driver's timeout (the write landed or not): the
  // service's own store deadline stays the product's 5 s, which a real store's calls never reach
  // here, however busy the machine (at 100 ms a slow MongoDB call was a 503 of no fault).
  const server = await startServer(settings, { logger: silentLogger, clock, stores: spied(created, faults, real) });
  return {
    server,
    faults,
    created,
    clock,
    async stop() {
      faults.reset();
      await server.stop();
      await stop();
    },
  };
};

const property = (subject: () => Subject, numRuns: number) => async () => {
  const { server, faults, created, clock } = subject();
  const json = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });
  const call = (method: string, path: string, key = ADMIN): Promise<Answer> =>
    send(server.port, { method, path, headers: json(key) });
  const newPet = async (): Promise<number> => {
    const res = await send(server.port, {
      method: 'POST',
      path: '/v1/pets',
      headers: json(KEY),
      body: '{"name":"Host","categoryId":1}',
    });
    expect(res.status, res.text).to.equal(201);
    return (JSON.parse(res.text) as { id: number }).id;
  };
  const photo = await testImage({ format: 'jpeg', width: 64, height: 48 });
  let run = 0;

  await fc.assert(
    fc.asyncProperty(fc.array(createArb, { minLength: 1, maxLength: 3 }), async (creates) => {
      run += 1;
      // A fresh minute for the admin key's limits, past any lease, and past the store circuit.
      clock.advance(IN_PROGRESS_LEASE_MS);
      for (const [i, { kind, attempts }] of creates.entries()) {
        const name = `r${run}c${i}`;
        const host = kind === 'order' || kind === 'photo' ? await newPet() : undefined;
        const tag = kind === 'pet' ? `pet ${name}` : kind === 'category' ? `category ${name}` : `${kind} of ${host}`;
        const idempotencyKey = `${name}-${kind}`;
        const post = (): Promise<Answer> =>
          kind === 'photo'
            ? send(server.port, {
                method: 'POST',
                path: `/v1/pets/${host}/photos`,
                headers: {
                  Authorization: `Bearer ${ADMIN}`,
                  'Content-Type': 'image/jpeg',
                  'Idempotency-Key': idempotencyKey,
                },
                body: photo,
              })
            : send(server.port, {
                method: 'POST',
                path: kind === 'pet' ? '/v1/pets' : kind === 'category' ? '/v1/categories' : '/v1/store/orders',
                headers: { ...json(KEY), 'Idempotency-Key': idempotencyKey },
                body:
                  kind === 'pet'
                    ? JSON.stringify({ name, categoryId: 1 })
                    : kind === 'category'
                      ? JSON.stringify({ name })
                      : JSON.stringify({ petId: host }),
              });
        let withdrawn = false;
        const answered: { status: number; id?: number; faulty: boolean }[] = [];
        const what = () =>
          `${kind} ${name}: ${answered.map((a) => `${a.status}${a.id === undefined ? '' : `#${a.id}`}${a.faulty ? '' : ' (clean)'}`).join(', ')}`;

        // The attempts with their faults, then clean ones until the claim is free: each one until it answers.
        const plan: (Attempt | undefined)[] = [...attempts, undefined];
        for (let n = 0; n < plan.length; n++) {
          const attempt = plan[n];
          if (attempt !== undefined) {
            let calls = 0;
            faults.use(() => (calls++ === attempt.at ? attempt.mode : 'pass'));
          }
          const res = await post();
          faults.reset();
          // Past the store circuit a fault may have opened: the next call is its probe.
          clock.advance(STORE_CIRCUIT_OPEN_MS);
          const body = JSON.parse(res.text) as { id?: number; code?: string; message?: string };
          answered.push({
            status: res.status,
            ...(res.status === 201 ? { id: body.id! } : {}),
            faulty: attempt !== undefined,
          });
          const ids = created.of(tag);
          expect(ids.length, `created at most once: ${what()}`).to.be.at.most(1);
          expect(res.status, `never a 500: ${what()}`).not.to.equal(500);
          if (attempt === undefined) {
            // A claim left in progress by a fault (its release failed or hung): taken over once its lease is over.
            if (res.status === 409 && /still being processed/.test(body.message ?? '')) {
              clock.advance(IN_PROGRESS_LEASE_MS);
              plan.push(undefined);
              continue;
            }
            expect(res.status, `a clean attempt is never a 5xx: ${what()}`).to.be.below(500);
          }
          if (res.status === 201) {
            expect(ids, `a 201 names what was created: ${what()}`).to.deep.equal([body.id]);
            // As it was created (a pet as it was when withdrawn: it never moved here), never in a state a client cannot be shown.
            const shown = JSON.parse(res.text) as Record<string, unknown>;
            if (kind === 'pet')
              expect(shown, what()).to.deep.equal({ id: body.id, name, categoryId: 1, status: 'available' });
            if (kind === 'category') expect(shown, what()).to.deep.equal({ id: body.id, name });
            if (kind === 'order')
              expect(shown, what())
                .to.deep.include({ id: body.id, petId: host })
                .and.to.have.property('status')
                .that.is.oneOf(['placed', 'cancelled']);
            if (kind === 'photo')
              expect(shown, what()).to.deep.include({
                id: body.id,
                petId: host,
                contentType: 'image/jpeg',
                width: 64,
                height: 48,
              });
          }
          // Between attempts: something done to what was created (or its pet), with no fault.
          const between = attempt === undefined ? 'nothing' : BETWEEN[kind][attempt.between % BETWEEN[kind].length]!;
          const [id] = ids;
          if (between === 'withdraw the pet') {
            const petId = kind === 'pet' ? id : host;
            if (petId !== undefined) {
              const gone = await call('DELETE', `/v1/pets/${petId}`);
              expect([204, 404, 409], gone.text).to.include(gone.status);
              withdrawn ||= gone.status === 204;
            }
          }
          if (between === 'delete the photo' && id !== undefined)
            expect([204, 404]).to.include((await call('DELETE', `/v1/pets/${host}/photos/${id}`)).status);
          if (between === 'cancel the order' && id !== undefined)
            expect([200, 404, 409]).to.include((await call('POST', `/v1/store/orders/${id}/cancel`)).status);
        }

        // What the key answers in the end: what was created, if anything was, whatever became of it since.
        const ids = created.of(tag);
        const last = answered.at(-1)!;
        const created201 = answered.filter((a) => a.status === 201);
        expect(new Set(created201.map((a) => a.id)).size, `every 201 names one resource: ${what()}`).to.be.at.most(1);
        if (kind === 'pet' || kind === 'category') expect([last.status, last.id], what()).to.deep.equal([201, ids[0]]);
        if (kind === 'photo') {
          // A photo, once published, is the answer, deleted or gone with its pet since; none was: the pet went first (404).
          if (ids.length === 1) expect([last.status, last.id], what()).to.deep.equal([201, ids[0]]);
          else expect([last.status, withdrawn], what()).to.deep.equal([404, true]);
        }
        if (kind === 'order') {
          // 201 with the order; or, its record never placed and the pet gone meanwhile, 400 (no pet) or 409 (the record lost it).
          if (last.status === 201) expect(last.id, what()).to.equal(ids[0]);
          else expect([400, 409], what()).to.include(last.status);
          if (last.status === 400) expect(withdrawn, what()).to.equal(true);
        }
      }
    }),
    { numRuns },
  );
};

describe('hardening: a create never happens twice under one Idempotency-Key, under faults in any store call, also after what it created was withdrawn or deleted (docs/rules.md §10, §12, §13)', function () {
  this.timeout(600_000);

  describe('on the memory stores', () => {
    let subject: Subject;
    before(async () => {
      const clock = new ManualClock(Date.UTC(2027, 5, 1, 12));
      const categories = new CategoryRepositoryInMemory();
      categories.createSync({ name: 'Dogs' });
      subject = await start(
        {
          pets: new PetRepositoryInMemory(),
          categories,
          orders: new OrderRepositoryInMemory(),
          quotas: new QuotaStoreInMemory(),
          keys: new ApiKeyStoreInMemory(),
          idempotency: new IdempotencyStoreInMemory(),
          photos: new PhotoStoreInMemory(),
        },
        clock,
        async () => {},
      );
    });
    after(() => subject.stop());
    it(
      'property: pets, categories, orders and photos, each create repeated under its key until it answers, faults and withdrawals in between: one resource at most, every 201 names it, the last answer is it',
      property(() => subject, 100),
    );
  });

  describe('on MongoDB (needs MONGODB_URI)', () => {
    const uri = process.env['MONGODB_URI'];
    if (uri === undefined || uri === '') {
      it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
      return;
    }
    let subject: Subject;
    before(async () => {
      const client = await MongoClient.connect(uri, resolveMongoSettings(uri).driverOptions);
      const db = client.db(`petstore_idem_faults_${process.pid}_${Date.now().toString(36)}`);
      await ensureIndexes(db);
      const categories = new CategoryRepositoryMongo(db);
      const dogs = await categories.create({ name: 'Dogs' });
      if (!dogs.ok || dogs.value.id !== 1) throw new Error('seeding category 1');
      subject = await start(
        {
          pets: new PetRepositoryMongo(db),
          categories,
          orders: new OrderRepositoryMongo(db),
          quotas: new QuotaStoreMongo(db),
          keys: new ApiKeyStoreMongo(db),
          idempotency: new IdempotencyStoreMongo(db),
          photos: new PhotoStoreMongo(db),
        },
        new ManualClock(Date.now()),
        async () => {
          await db.dropDatabase();
          await client.close();
        },
      );
    });
    after(() => subject.stop());
    it(
      'property: pets, categories, orders and photos, each create repeated under its key until it answers, faults and withdrawals in between: one resource at most, every 201 names it, the last answer is it',
      property(() => subject, 40),
    );
  });
});

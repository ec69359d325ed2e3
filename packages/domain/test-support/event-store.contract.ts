import { expect } from 'chai';
import fc from 'fast-check';
import type {
  ApiKey,
  ApiKeyStore,
  Caller,
  Category,
  CategoryRepository,
  Event,
  EventStore,
  IdempotentCreation,
  Order,
  OrderAction,
  OrderRepository,
  Pet,
  PetRepository,
  PetStatus,
  Photo,
  PhotoStore,
} from '../src/index.js';
import {
  Adoption,
  CategoryCatalog,
  EVENT_ID,
  EventFeed,
  EventRelay,
  EventRetention,
  KeyAdmin,
  ORDER_STATES,
  PET_STATUSES,
  PetCatalog,
  PetMaintenance,
  PhotoLibrary,
  eventSource,
  sourceKey,
  toPhoto,
} from '../src/index.js';
import { FaultInjector, FAULT_MODES, type FaultMode } from './fault-injection.js';
import { forwardingEvents } from './forwarding.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';
import { SeededRandom } from './seeded-random.js';
import { TextImageProcessor, textImage } from './text-images.js';

// Timers are the one platform facility used here; declared locally so that test-support stays
// free of any runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;

/**
 * The stores of one adapter whose writes record events (docs/rules.md §15), sharing one store: what
 * the repositories record, `events` moves and reads.
 */
export interface EventStores {
  readonly pets: PetRepository;
  readonly categories: CategoryRepository;
  readonly orders: OrderRepository;
  readonly photos: PhotoStore;
  readonly keys: ApiKeyStore;
  readonly events: EventStore;
}

const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
const CLIENTS: readonly Caller[] = ['a', 'b'].map((c) => ({ keyId: `key_${c.repeat(12)}`, role: 'client' }));
const CALLERS: readonly Caller[] = [...CLIENTS, ADMIN];
const T0 = Date.UTC(2027, 0, 1);
const MANY = 1_000_000;
const JPEG = 'image/jpeg';

// ---------------------------------------------------------------------------------------------
// The use cases over a store, and the relay
// ---------------------------------------------------------------------------------------------

interface World {
  readonly stores: EventStores;
  readonly clock: ManualClock;
  readonly catalog: PetCatalog;
  readonly categories: CategoryCatalog;
  readonly adoption: Adoption;
  readonly maintenance: PetMaintenance;
  readonly library: PhotoLibrary;
  readonly keys: KeyAdmin;
}

const worldOf = (stores: EventStores, clock: ManualClock, random: SeededRandom): World => {
  const library = new PhotoLibrary(stores.pets, stores.photos, new TextImageProcessor(), clock);
  return {
    stores,
    clock,
    catalog: new PetCatalog(stores.pets, stores.categories, clock),
    categories: new CategoryCatalog(stores.categories, clock),
    adoption: new Adoption(stores.pets, stores.orders, clock),
    maintenance: new PetMaintenance(
      stores.pets,
      stores.orders,
      stores.categories,
      clock,
      async (petId) => void (await library.removeAllOf(petId)),
    ),
    library,
    keys: new KeyAdmin(stores.keys, random, clock, T0),
  };
};

/** The relay every check drains with: one holder, so its lease is always its own. */
const HOLDER = 'contract-relay';

/** Runs relays until no entry waits (a healthy store: at most a few runs). */
const drain = async (events: EventStore, clock: ManualClock): Promise<void> => {
  const relay = new EventRelay(events, clock, HOLDER, { batch: 7 });
  for (let run = 0; run < 20; run++) {
    await relay.run();
    if ((await events.pending(1)).length === 0) return;
  }
  expect.fail('entries still wait after 20 relay runs on a healthy store');
};

/** Every event kept, read a page at a time. */
const readFeed = async (events: EventStore): Promise<readonly Event[]> => {
  const out: Event[] = [];
  for (let after = (await events.firstSequence()) - 1; ;) {
    const page = await events.after(after, { limit: 100 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.sequence;
    expect(out.length, 'a walk of the feed ends').to.be.below(MANY);
  }
};

// ---------------------------------------------------------------------------------------------
// Guarantees 1–3, checked on the feed against what the store holds
// ---------------------------------------------------------------------------------------------

/** Guarantee 2: sequences `first`, `first + 1`, … without a gap, ids unique and shaped `evt_…`. */
const expectGapFree = (feed: readonly Event[], first: number): void => {
  const ids = new Set<string>();
  feed.forEach((event, i) => {
    expect(event.sequence, `the event after ${feed[i - 1]?.sequence ?? first - 1} (no gap, no repeat)`).to.equal(
      first + i,
    );
    expect(event.id, 'an event id').to.match(EVENT_ID);
    expect(ids.has(event.id), `event ${event.id} is in the feed once`).to.equal(false);
    ids.add(event.id);
  });
};

/** What the feed says each resource is, replayed from its events. */
interface Replayed {
  readonly pets: Map<number, { pet: Pet; withdrawn: boolean; pendings: number; placed: number }>;
  readonly categories: Map<number, Category>;
  readonly orders: Map<number, Order>;
  readonly photos: Map<number, { photo: Photo; removed: boolean }>;
  readonly keys: Map<string, { key: ApiKey; revoked: boolean }>;
}

const ORDER_FROM: Readonly<Record<string, readonly string[]>> = {
  'order.approved': ['placed'],
  'order.delivered': ['approved'],
  'order.cancelled': ['placed', 'approved'],
};

/**
 * Replays the feed, checking that each event is a change its resource can make from the state the
 * events before it left (guarantee 3: a resource's events in the order of its changes; and 1: no
 * event repeats a change, none changes nothing), that every `order.placed` comes while its pet is
 * `pending`, after a `pet.updated` to `pending` that no earlier placement took, and that a pet
 * leaves `pending` only once its open order was cancelled or delivered (cause before effect).
 */
const replay = (feed: readonly Event[]): Replayed => {
  const r: Replayed = { pets: new Map(), categories: new Map(), orders: new Map(), photos: new Map(), keys: new Map() };
  for (const event of feed) {
    const what = `event ${event.sequence} (${event.type} ${JSON.stringify(event.data)})`;
    switch (event.type) {
      case 'pet.created':
        expect(r.pets.has(event.data.id), `${what}: a pet is created once, first`).to.equal(false);
        r.pets.set(event.data.id, { pet: event.data, withdrawn: false, pendings: 0, placed: 0 });
        break;
      case 'pet.updated': {
        const pet = r.pets.get(event.data.id);
        expect(
          pet !== undefined && !pet.withdrawn,
          `${what}: after the pet's creation, before its withdrawal`,
        ).to.equal(true);
        expect(event.data, `${what}: a change (not a repeat of the pet as it was)`).not.to.deep.equal(pet!.pet);
        if (pet!.pet.status === 'pending' && event.data.status !== 'pending') {
          const open = [...r.orders.values()].find(
            (o) => o.petId === event.data.id && (o.status === 'placed' || o.status === 'approved'),
          );
          expect(open, `${what}: a pet leaves pending only after its open order's cancellation or delivery`).to.equal(
            undefined,
          );
        }
        if (event.data.status === 'pending' && pet!.pet.status !== 'pending') pet!.pendings++;
        pet!.pet = event.data;
        break;
      }
      case 'pet.withdrawn': {
        const pet = r.pets.get(event.data.id);
        expect(pet !== undefined && !pet.withdrawn, `${what}: a pet created and not yet withdrawn`).to.equal(true);
        pet!.withdrawn = true;
        break;
      }
      case 'category.created':
        expect(r.categories.has(event.data.id), `${what}: a category is created once`).to.equal(false);
        r.categories.set(event.data.id, event.data);
        break;
      case 'order.placed': {
        expect(r.orders.has(event.data.id), `${what}: an order is placed once, first`).to.equal(false);
        expect(event.data.status, what).to.equal('placed');
        const pet = r.pets.get(event.data.petId);
        expect(
          pet !== undefined && pet.pendings > pet.placed && pet.pet.status === 'pending',
          `${what}: after its pet's pet.updated to pending`,
        ).to.equal(true);
        pet!.placed++;
        r.orders.set(event.data.id, event.data);
        break;
      }
      case 'order.approved':
      case 'order.delivered':
      case 'order.cancelled': {
        const order = r.orders.get(event.data.id);
        expect(
          order !== undefined && ORDER_FROM[event.type]!.includes(order.status),
          `${what}: from ${ORDER_FROM[event.type]!.join(' or ')}`,
        ).to.equal(true);
        expect(event.data.status, what).to.equal(event.type.slice('order.'.length));
        expect({ petId: event.data.petId, placedAt: event.data.placedAt }, what).to.deep.equal({
          petId: order!.petId,
          placedAt: order!.placedAt,
        });
        r.orders.set(event.data.id, event.data);
        break;
      }
      case 'photo.added':
        expect(r.photos.has(event.data.id), `${what}: a photo is added once, first`).to.equal(false);
        expect(r.pets.has(event.data.petId), `${what}: after its pet's creation`).to.equal(true);
        r.photos.set(event.data.id, { photo: event.data, removed: false });
        break;
      case 'photo.removed': {
        const photo = r.photos.get(event.data.id);
        expect(
          photo !== undefined && !photo.removed && photo.photo.petId === event.data.petId,
          `${what}: a photo added and not yet removed`,
        ).to.equal(true);
        photo!.removed = true;
        break;
      }
      case 'key.created':
        expect(r.keys.has(event.data.id), `${what}: a key is created once, first`).to.equal(false);
        r.keys.set(event.data.id, { key: event.data, revoked: false });
        break;
      case 'key.updated':
      case 'key.revoked': {
        const key = r.keys.get(event.data.id);
        expect(key !== undefined && !key.revoked, `${what}: a key created and not yet revoked`).to.equal(true);
        if (event.type === 'key.updated') expect(event.data, `${what}: a change`).not.to.deep.equal(key!.key);
        else {
          expect(event.data, `${what}: the key as it was`).to.deep.equal(key!.key);
          key!.revoked = true;
        }
        key!.key = event.data;
        break;
      }
    }
  }
  return r;
};

/** The public view of a key without its `key`. */
const keyView = (key: ApiKey & { readonly key?: string }): ApiKey => {
  const { key: _secret, ...view } = key;
  return view;
};

/**
 * Guarantee 1: the feed, replayed, is exactly what the store holds, resource by resource: every pet,
 * category, visible order, published photo and key has its events, and nothing the store does not
 * hold (or never held) has any. `petIds`: every pet id ever seen (a withdrawn pet is not listed).
 * Called on a healed store (every order settled, the photos' sweep run, the outboxes drained).
 */
export const expectFeedMatchesStore = async (stores: EventStores, petIds: ReadonlySet<number>): Promise<void> => {
  const feed = await readFeed(stores.events);
  expectGapFree(feed, await stores.events.firstSequence());
  const r = replay(feed);
  for (const id of r.pets.keys())
    expect(petIds.has(id), `pet ${id} of the feed is a pet the store has or had`).to.equal(true);
  for (const id of petIds) {
    const stored = await stores.pets.findById(id);
    const replayed = r.pets.get(id);
    if (stored === undefined) expect(replayed?.withdrawn, `pet ${id} was withdrawn: the feed says so`).to.equal(true);
    else {
      expect(
        replayed !== undefined && !replayed.withdrawn,
        `pet ${id} is in the store: the feed has it, not withdrawn`,
      ).to.equal(true);
      expect(replayed!.pet, `pet ${id}: its last event is the pet as stored`).to.deep.equal({
        id,
        name: stored.name,
        categoryId: stored.categoryId,
        status: stored.status,
      });
    }
    const photos = (await stores.photos.list(id)).map(toPhoto);
    const kept = [...r.photos.values()].filter((p) => !p.removed && p.photo.petId === id).map((p) => p.photo);
    expect(
      kept.sort((a, b) => a.id - b.id),
      `the photos of pet ${id}`,
    ).to.deep.equal(photos);
  }
  const categories = await stores.categories.list({ afterId: 0, limit: MANY });
  expect(
    [...r.categories.values()].sort((a, b) => a.id - b.id),
    'the categories',
  ).to.deep.equal(categories.map((c) => ({ id: c.id, name: c.name })));
  const records = await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: MANY });
  const visible: Order[] = [];
  for (const record of records) {
    const hold = await stores.pets.findHold(record.petId);
    expect(
      ['placing', 'cancelling', 'delivering'].includes(record.state) &&
        (record.state !== 'placing' || hold?.orderId === record.id),
      `order ${record.id} (${record.state}) left half done by the healing pass`,
    ).to.equal(false);
    if (record.state === 'placing' || record.state === 'abandoned')
      expect(r.orders.has(record.id), `order ${record.id} (${record.state}) was never placed: no event`).to.equal(
        false,
      );
    else
      visible.push({
        id: record.id,
        petId: record.petId,
        status: record.state as Order['status'],
        placedAt: record.placedAt,
        updatedAt: record.updatedAt,
      });
  }
  expect(
    [...r.orders.values()].sort((a, b) => a.id - b.id),
    'the orders clients see',
  ).to.deep.equal(visible);
  const keys = (await stores.keys.list(0, MANY)).filter((k) => k.source === 'api');
  const live = [...r.keys.values()].filter((k) => !k.revoked).map((k) => k.key);
  expect(live.map((k) => k.id).sort(), 'the keys made through the admin API').to.deep.equal(
    keys.map((k) => `key_${k.keyHash.slice(0, 12)}`).sort(),
  );
  for (const { key, revoked } of r.keys.values()) {
    const stored = await stores.keys.findById(key.id);
    if (revoked) expect(stored, `key ${key.id} was revoked`).to.equal(undefined);
    else
      expect(
        stored && { plan: stored.plan, quota: stored.quota, label: stored.label },
        `key ${key.id}: its last event is the key as stored`,
      ).to.deep.equal({ plan: key.plan, quota: key.quota, label: key.label });
  }
};

// ---------------------------------------------------------------------------------------------
// The changes a property makes
// ---------------------------------------------------------------------------------------------

type Op =
  | {
      readonly kind: 'createPet';
      readonly category: number;
      readonly status: PetStatus;
      readonly token: number | undefined;
    }
  | { readonly kind: 'createCategory'; readonly name: number; readonly token: number | undefined }
  | { readonly kind: 'place'; readonly caller: number; readonly pet: number; readonly token: number | undefined }
  | { readonly kind: 'act'; readonly action: OrderAction; readonly caller: number; readonly order: number }
  | {
      readonly kind: 'patch';
      readonly pet: number;
      readonly name: string | undefined;
      readonly category: number | undefined;
      readonly status: PetStatus | undefined;
    }
  | { readonly kind: 'withdraw'; readonly pet: number }
  | { readonly kind: 'upload'; readonly pet: number; readonly token: number | undefined }
  | { readonly kind: 'deletePhoto'; readonly photo: number }
  | { readonly kind: 'createKey'; readonly plan: 'free' | 'pro' }
  | {
      readonly kind: 'patchKey';
      readonly key: number;
      readonly label: string | undefined;
      readonly plan: 'free' | 'pro' | undefined;
    }
  | { readonly kind: 'revokeKey'; readonly key: number }
  | { readonly kind: 'relay' };

/** The item at `index` (modulo), or the last one for a negative index: the newest resources are the ones most often still in play. */
const pick = <T>(items: readonly T[], index: number, none: T): T =>
  items.length === 0 ? none : index < 0 ? items[items.length - 1]! : items[index % items.length]!;
/** An index for `pick`: the newest twice as often as any other. */
const indexArb = fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() });
const tokenArb = fc.option(fc.nat(3), { nil: undefined, freq: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('createPet' as const),
      category: fc.nat(),
      status: fc.oneof(
        { weight: 4, arbitrary: fc.constant<PetStatus>('available') },
        { weight: 1, arbitrary: fc.constantFrom(...PET_STATUSES) },
      ),
      token: tokenArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('createCategory' as const), name: fc.nat(4), token: tokenArb }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      caller: fc.nat(CALLERS.length - 1),
      pet: indexArb,
      token: tokenArb,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      action: fc.constantFrom<OrderAction>('approve', 'approve', 'deliver', 'deliver', 'cancel'),
      caller: fc.constantFrom(CALLERS.length - 1, CALLERS.length - 1, 0),
      order: indexArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      pet: fc.nat(),
      name: fc.option(fc.constantFrom('Rex', 'Max'), { nil: undefined }),
      category: fc.option(fc.nat(), { nil: undefined }),
      status: fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), pet: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('upload' as const), pet: indexArb, token: tokenArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deletePhoto' as const), photo: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('createKey' as const),
      plan: fc.constantFrom('free' as const, 'pro' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('patchKey' as const),
      key: fc.nat(),
      label: fc.option(fc.constantFrom('shelter', 'site'), { nil: undefined }),
      plan: fc.option(fc.constantFrom('free' as const, 'pro' as const), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revokeKey' as const), key: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'relay' as const }) },
);

/** What the store holds, read healthily before an op picks its targets. */
interface Known {
  readonly pets: readonly number[];
  readonly categories: readonly number[];
  readonly orders: readonly number[];
  readonly photos: readonly Photo[];
  readonly keys: readonly string[];
}

const known = async (stores: EventStores, everPets: Set<number>): Promise<Known> => {
  const pets = (await stores.pets.list({ afterId: 0, limit: MANY })).map((p) => p.id);
  for (const id of pets) everPets.add(id);
  const photos: Photo[] = [];
  for (const id of pets) photos.push(...(await stores.photos.list(id)).map(toPhoto));
  return {
    pets,
    categories: (await stores.categories.list({ afterId: 0, limit: MANY })).map((c) => c.id),
    orders: (await stores.orders.list({ states: ORDER_STATES, afterId: 0, limit: MANY })).map((o) => o.id),
    photos,
    keys: (await stores.keys.list(0, MANY))
      .filter((k) => k.source === 'api')
      .map((k) => `key_${k.keyHash.slice(0, 12)}`),
  };
};

/** The creation of an op under an `Idempotency-Key` (docs/rules.md §10): resumed once an attempt with that key ran. */
const creationOf = (kind: string, token: number | undefined, tried: Set<string>): IdempotentCreation | undefined => {
  if (token === undefined) return undefined;
  const name = `${kind}-${token}`;
  const creation = { token: name, resumed: tried.has(name) };
  tried.add(name);
  return creation;
};

/** What an op changed, as far as its answer tells (for the exact check of a run without faults). */
type Expected = { readonly type: string; readonly data: unknown }[];

/**
 * Runs `op` in `world` (whose stores may be faulty) as the service would: a create under a key asks
 * what an earlier attempt created first. Answers the events the op must have recorded, judged from its
 * answer and the store as read healthily (`healthy`) before and after it.
 */
const runOp = async (world: World, healthy: EventStores, op: Op, k: Known, tried: Set<string>): Promise<Expected> => {
  const { catalog, adoption, maintenance, library, keys } = world;
  switch (op.kind) {
    case 'createPet': {
      const creation = creationOf('pet', op.token, tried);
      if (creation !== undefined && (await catalog.petCreatedUnder(creation)) !== undefined) return [];
      const created = await catalog.createPet(
        { name: 'Rex', categoryId: pick(k.categories, op.category, 1), status: op.status },
        creation,
      );
      return created.ok ? [{ type: 'pet.created', data: created.value }] : [];
    }
    case 'createCategory': {
      const creation = creationOf('category', op.token, tried);
      if (creation !== undefined && (await world.categories.categoryCreatedUnder(creation)) !== undefined) return [];
      const before = (await healthy.categories.list({ afterId: 0, limit: MANY })).length;
      const created = await world.categories.createCategory({ name: `Kind ${op.name}` }, creation);
      const after = (await healthy.categories.list({ afterId: 0, limit: MANY })).length;
      return created.ok && after > before ? [{ type: 'category.created', data: created.value }] : [];
    }
    case 'place': {
      const creation = creationOf('order', op.token, tried);
      if (creation !== undefined) {
        const earlier = await adoption.placedUnder(creation);
        if (earlier !== undefined) return [];
      }
      const petId = pick(k.pets, op.pet, 1);
      const placed = await adoption.place(CALLERS[op.caller]!, { petId }, creation);
      if (!placed.ok) return [];
      const pet = (await healthy.pets.findById(petId))!;
      return [
        { type: 'pet.updated', data: { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: 'pending' } },
        { type: 'order.placed', data: placed.value },
      ];
    }
    case 'act': {
      const id = pick(k.orders, op.order, 1);
      const before = await adoption.getOrder(ADMIN, id);
      const acted = await adoption.act(CALLERS[op.caller]!, op.action, id);
      if (!acted.ok || (before.ok && before.value.status === acted.value.status)) return [];
      const order = acted.value;
      const events: Expected = [{ type: `order.${order.status}`, data: order }];
      if (op.action !== 'approve') {
        const pet = (await healthy.pets.findById(order.petId))!;
        events.push({
          type: 'pet.updated',
          data: { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status },
        });
      }
      return events;
    }
    case 'patch': {
      const petId = pick(k.pets, op.pet, 1);
      const before = await healthy.pets.findById(petId);
      const body = {
        ...(op.name === undefined ? {} : { name: op.name }),
        ...(op.category === undefined ? {} : { categoryId: pick(k.categories, op.category, 1) }),
        ...(op.status === undefined ? {} : { status: op.status }),
      };
      const patched = await maintenance.patch(ADMIN, petId, Object.keys(body).length === 0 ? { name: 'Rex' } : body);
      if (!patched.ok || patched.value.revision === before?.revision) return [];
      const pet = patched.value;
      return [
        { type: 'pet.updated', data: { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status } },
      ];
    }
    case 'withdraw': {
      const petId = pick(k.pets, op.pet, 1);
      const photos = k.photos.filter((p) => p.petId === petId);
      const withdrawn = await maintenance.withdraw(ADMIN, petId);
      if (!withdrawn.ok) return [];
      return [
        { type: 'pet.withdrawn', data: { id: petId } },
        ...photos.map((p) => ({ type: 'photo.removed', data: { id: p.id, petId } })),
      ];
    }
    case 'upload': {
      const creation = creationOf('photo', op.token, tried);
      if (creation !== undefined && (await library.photoCreatedUnder(creation)) !== undefined) return [];
      const petId = pick(k.pets, op.pet, 1);
      const uploaded = await library.upload(
        ADMIN,
        String(petId),
        JPEG,
        async () => textImage({ format: 'jpeg', width: 200, height: 100 }, `p${petId}`),
        creation,
      );
      return uploaded.ok ? [{ type: 'photo.added', data: uploaded.value }] : [];
    }
    case 'deletePhoto': {
      const photo = pick(k.photos, op.photo, { id: 1, petId: 1 } as Photo);
      const deleted = await library.delete(ADMIN, String(photo.petId), String(photo.id));
      return deleted.ok ? [{ type: 'photo.removed', data: { id: photo.id, petId: photo.petId } }] : [];
    }
    case 'createKey': {
      const created = await keys.create(ADMIN, { plan: op.plan });
      return created.ok ? [{ type: 'key.created', data: keyView(created.value) }] : [];
    }
    case 'patchKey': {
      const id = pick(k.keys, op.key, 'key_000000000000');
      const before = await keys.get(ADMIN, id);
      const body = {
        ...(op.label === undefined ? {} : { label: op.label }),
        ...(op.plan === undefined ? {} : { plan: op.plan }),
      };
      const patched = await keys.patch(ADMIN, id, Object.keys(body).length === 0 ? { label: 'shelter' } : body);
      if (!patched.ok || (before.ok && JSON.stringify(before.value) === JSON.stringify(patched.value))) return [];
      return [{ type: 'key.updated', data: patched.value }];
    }
    case 'revokeKey': {
      const id = pick(k.keys, op.key, 'key_000000000000');
      const before = await keys.get(ADMIN, id);
      const revoked = await keys.revoke(ADMIN, id);
      return revoked.ok && before.ok ? [{ type: 'key.revoked', data: before.value }] : [];
    }
    case 'relay':
      await new EventRelay(world.stores.events, world.clock, HOLDER, { batch: 3 }).run();
      return [];
  }
};

/**
 * The "next request" after a fault: every order settled (an admin's listing settles each record it
 * reads), the photos' start-up sweep (uploads cut short, photos of withdrawn pets), every outbox drained.
 */
const heal = async (world: World): Promise<void> => {
  world.clock.advance(1);
  let cursor: string | undefined;
  do {
    const page = await world.adoption.listOrders(ADMIN, cursor === undefined ? { limit: 100 } : { limit: 100, cursor });
    if (!page.ok) throw new Error(page.error.message);
    cursor = page.value.nextCursor;
  } while (cursor !== undefined);
  await world.library.sweep();
  await drain(world.stores.events, world.clock);
};

/** The feed's events after `from`, as (type, data) per resource, in feed order. */
const bySourceOf = (
  events: readonly { readonly type: string; readonly data: unknown }[],
): Map<string, { type: string; data: unknown }[]> => {
  const out = new Map<string, { type: string; data: unknown }[]>();
  for (const { type, data } of events) {
    const key = sourceKey(eventSource({ type, data, occurredAt: '' } as never));
    const list = out.get(key) ?? [];
    list.push({ type, data });
    out.set(key, list);
  }
  return out;
};

/**
 * Holds an adapter of `EventStore`, with the repositories that record into it, to guarantees 1–3 of
 * docs/rules.md §15: every change the use cases make has exactly one event, none other has any
 * (also when a write landed but its answer was lost, a create is repeated under its key, or a
 * placement is undone), the feed is numbered without a gap with each event visible only after every
 * smaller one, and each resource's events keep the order of its changes; under concurrent writers
 * and relays, and with a store fault injected between any two store calls. `make` gives fresh,
 * empty stores of one adapter, sharing one store.
 */
export const eventStoreContract = (
  name: string,
  make: MakeFixture<EventStores>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`EventStore contract (docs/rules.md §15): ${name}`, () => {
    const setUp = async <R>(body: (world: World) => Promise<R>): Promise<R> =>
      withFixture(make, async (stores) => body(worldOf(stores, new ManualClock(T0), new SeededRandom('events'))));
    /** The same, with category 1 there (its \`category.created\` waiting in its outbox). */
    const withDogs = async <R>(body: (world: World) => Promise<R>): Promise<R> =>
      setUp(async (world) => {
        expect((await world.categories.createCategory({ name: 'Dogs' })).ok).to.equal(true);
        return body(world);
      });

    it('each change records its event, with the data of docs/rules.md §15; a relay moves them into the feed, numbered 1, 2, 3…', () =>
      setUp(async (w) => {
        const { stores, clock } = w;
        const at = (): string => new Date(clock.now()).toISOString();
        const dogs = await w.categories.createCategory({ name: 'Dogs' });
        if (!dogs.ok) throw new Error(dogs.error.message);
        const t1 = at();
        clock.advance(1);
        const rex = await w.catalog.createPet({ name: 'Rex', categoryId: dogs.value.id });
        if (!rex.ok) throw new Error(rex.error.message);
        const t2 = at();
        expect(
          await stores.events.after(0, { limit: 100 }),
          'nothing is in the feed before a relay runs',
        ).to.deep.equal([]);
        expect(
          (await stores.events.pending(100)).map((e) => e.type),
          'the outboxes hold them',
        ).to.have.members(['category.created', 'pet.created']);
        // A relay after each change: the feed then shows the changes in the order they were made.
        await drain(stores.events, clock);
        clock.advance(1);
        const order = await w.adoption.place(CLIENTS[0]!, { petId: rex.value.id });
        if (!order.ok) throw new Error(order.error.message);
        const t3 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const approved = await w.adoption.approve(ADMIN, order.value.id);
        const t4 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const delivered = await w.adoption.deliver(ADMIN, order.value.id);
        const t5 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const photo = await w.library.upload(ADMIN, String(rex.value.id), JPEG, async () =>
          textImage({ format: 'jpeg', width: 100, height: 80 }),
        );
        if (!photo.ok) throw new Error(photo.error.message);
        const t6 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const patched = await w.maintenance.patch(ADMIN, rex.value.id, { name: 'Rex II', status: 'available' });
        const t7 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        expect((await w.maintenance.withdraw(ADMIN, rex.value.id)).ok).to.equal(true);
        const t8 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const key = await w.keys.create(ADMIN, { plan: 'pro', label: 'shelter site' });
        if (!key.ok) throw new Error(key.error.message);
        const t9 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        const changed = await w.keys.patch(ADMIN, key.value.id, { plan: 'free' });
        if (!changed.ok) throw new Error(changed.error.message);
        const t10 = at();
        await drain(stores.events, clock);
        clock.advance(1);
        expect((await w.keys.revoke(ADMIN, key.value.id)).ok).to.equal(true);
        const t11 = at();
        await drain(stores.events, clock);
        await drain(stores.events, clock);
        const feed = await readFeed(stores.events);
        expectGapFree(feed, 1);
        const pet = (status: PetStatus, name = 'Rex') => ({
          id: rex.value.id,
          name,
          categoryId: dogs.value.id,
          status,
        });
        const expected = [
          { type: 'category.created', occurredAt: t1, data: dogs.value },
          { type: 'pet.created', occurredAt: t2, data: pet('available') },
          { type: 'pet.updated', occurredAt: t3, data: pet('pending') },
          { type: 'order.placed', occurredAt: t3, data: order.value },
          { type: 'order.approved', occurredAt: t4, data: approved.ok && approved.value },
          { type: 'order.delivered', occurredAt: t5, data: delivered.ok && delivered.value },
          { type: 'pet.updated', occurredAt: t5, data: pet('sold') },
          { type: 'photo.added', occurredAt: t6, data: photo.value },
          { type: 'pet.updated', occurredAt: t7, data: patched.ok && pet('available', 'Rex II') },
          { type: 'pet.withdrawn', occurredAt: t8, data: { id: rex.value.id } },
          { type: 'photo.removed', occurredAt: t8, data: { id: photo.value.id, petId: rex.value.id } },
          { type: 'key.created', occurredAt: t9, data: keyView(key.value) },
          { type: 'key.updated', occurredAt: t10, data: changed.value },
          { type: 'key.revoked', occurredAt: t11, data: changed.value },
        ];
        expect(
          feed.map(({ type, occurredAt, data }) => ({ type, occurredAt, data })),
          'the feed, in the order of the changes',
        ).to.deep.equal(expected);
        expect(JSON.stringify(feed), 'never the key, never its hash')
          .not.to.include(key.value.key)
          .and.not.include('keyHash');
        expect(await stores.events.pending(100), 'the outboxes are empty').to.deep.equal([]);
        expect(await stores.events.lastSequence()).to.equal(expected.length);
        expect(await stores.events.firstSequence()).to.equal(1);
      }));

    it('a change that does not happen records nothing: refusals, lost races, a PATCH that changes nothing, a create repeated under its Idempotency-Key', () =>
      setUp(async (w) => {
        const dogs = await w.categories.createCategory({ name: 'Dogs' });
        expect((await w.categories.createCategory({ name: 'DOGS' })).ok, 'a name taken').to.equal(false);
        const creation = { token: 'k1', resumed: false };
        const rex = await w.catalog.createPet({ name: 'Rex', categoryId: 1 }, creation);
        if (!rex.ok || !dogs.ok) throw new Error('setup');
        // A repeat of the create under its key: the use case answers the pet the token has, the store records nothing.
        expect(await w.catalog.createPet({ name: 'Rex', categoryId: 1 }, { token: 'k1', resumed: true })).to.deep.equal(
          rex,
        );
        expect(await w.catalog.petCreatedUnder({ token: 'k1', resumed: true })).to.deep.equal(rex.value);
        expect((await w.categories.createCategory({ name: 'Dogs' }, { token: 'c1', resumed: false })).ok).to.equal(
          false,
        );
        expect(
          (await w.maintenance.patch(ADMIN, rex.value.id, { name: 'Rex', status: 'available' })).ok,
          'a PATCH that changes nothing',
        ).to.equal(true);
        const placed = await Promise.all([
          w.adoption.place(CLIENTS[0]!, { petId: rex.value.id }),
          w.adoption.place(CLIENTS[1]!, { petId: rex.value.id }),
        ]);
        expect(
          placed.filter((p) => p.ok),
          'one placement wins',
        ).to.have.length(1);
        const order = placed.find((p) => p.ok)!;
        if (!order.ok) throw new Error('setup');
        expect((await w.adoption.approve(ADMIN, order.value.id)).ok).to.equal(true);
        expect((await w.adoption.approve(ADMIN, order.value.id)).ok, 'a repeat of an action').to.equal(true);
        expect((await w.adoption.deliver(ADMIN, 999)).ok).to.equal(false);
        expect((await w.maintenance.withdraw(ADMIN, rex.value.id)).ok, 'a reserved pet is not withdrawn').to.equal(
          false,
        );
        const key = await w.keys.create(ADMIN, { plan: 'pro', label: 'a' });
        if (!key.ok) throw new Error('setup');
        expect(
          (await w.keys.patch(ADMIN, key.value.id, { plan: 'pro', label: 'a' })).ok,
          'a key PATCH that changes nothing',
        ).to.equal(true);
        await drain(w.stores.events, w.clock);
        expect((await readFeed(w.stores.events)).map((e) => e.type)).to.deep.equal([
          'category.created',
          'pet.created',
          'pet.updated',
          'order.placed',
          'order.approved',
          'key.created',
        ]);
      }));

    it("the earlier attempt's abandon lands late, after the repeat's swap: the pet's two changes are recorded, the order that never was has no event (docs/rules.md §10)", () =>
      setUp(async (w) => {
        const { stores, clock } = w;
        const pet = await stores.pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
        // The first attempt wrote its record (write 1) and stopped; its abandon is still on its way.
        const record = await stores.orders.create(
          { petId: pet.id, owner: CLIENTS[0]!.keyId, state: 'placing', placedAt: 'x', updatedAt: 'x' },
          'late',
        );
        const orders: OrderRepository = {
          create: (draft, token) => stores.orders.create(draft, token),
          findByCreationToken: (token) => stores.orders.findByCreationToken(token),
          findById: (id) => stores.orders.findById(id),
          list: (query) => stores.orders.list(query),
          updateState: async (id, expected, next, updatedAt, recorder) => {
            if (id === record.id && expected === 'placing' && next === 'placed')
              await stores.orders.updateState(id, 'placing', 'abandoned', updatedAt);
            return stores.orders.updateState(id, expected, next, updatedAt, recorder);
          },
        };
        const adoption = new Adoption(stores.pets, orders, clock);
        const repeat = await adoption.placedUnder({ token: 'late', resumed: true });
        expect(repeat?.ok, 'the repeat answers 409').to.equal(false);
        await drain(stores.events, clock);
        const feed = await readFeed(stores.events);
        expect(
          feed.map((e) => e.type),
          'the pet went pending and back; no order was placed',
        ).to.deep.equal(['pet.updated', 'pet.updated']);
        expect(feed.map((e) => e.type === 'pet.updated' && e.data.status)).to.deep.equal(['pending', 'available']);
      }));

    it('a long history relayed at once, its resources taken in any order, is moved cause before effect: each pet reserved before its order is placed, released after its order is cancelled or delivered, withdrawn before its photos go', () =>
      withDogs(async (w) => {
        const { stores, clock } = w;
        const rex = await w.catalog.createPet({ name: 'Rex', categoryId: 1 });
        if (!rex.ok) throw new Error(rex.error.message);
        for (let round = 0; round < 3; round++) {
          const placed = await w.adoption.place(CLIENTS[round % 2]!, { petId: rex.value.id });
          if (!placed.ok) throw new Error(placed.error.message);
          await w.adoption.cancel(ADMIN, placed.value.id);
        }
        await w.library.upload(ADMIN, String(rex.value.id), JPEG, async () =>
          textImage({ format: 'jpeg', width: 100, height: 80 }),
        );
        const sold = await w.adoption.place(CLIENTS[0]!, { petId: rex.value.id });
        if (!sold.ok) throw new Error(sold.error.message);
        await w.adoption.approve(ADMIN, sold.value.id);
        await w.adoption.deliver(ADMIN, sold.value.id);
        expect((await w.maintenance.patch(ADMIN, rex.value.id, { status: 'available' })).ok).to.equal(true);
        expect((await w.maintenance.withdraw(ADMIN, rex.value.id)).ok).to.equal(true);
        // The outboxes read newest resource first: the relay must reach back for every cause by itself.
        const reversed: EventStore = {
          ...forwardingEvents(stores.events),
          pending: async (limit) => {
            const waiting = await stores.events.pending(limit);
            const groups = new Map<string, (typeof waiting)[number][]>();
            for (const entry of waiting) {
              const key = sourceKey(eventSource(entry));
              groups.set(key, [...(groups.get(key) ?? []), entry]);
            }
            return [...groups.values()].reverse().flat();
          },
        };
        await new EventRelay(reversed, clock, HOLDER, { batch: 3 }).run();
        await drain(stores.events, clock);
        await expectFeedMatchesStore(stores, new Set([rex.value.id]));
        const types = (await readFeed(stores.events)).map((e) => e.type);
        expect(types.filter((t) => t === 'order.placed')).to.have.length(4);
        expect(types.indexOf('pet.withdrawn'), 'the withdrawal before its photo goes').to.be.below(
          types.lastIndexOf('photo.removed'),
        );
      }));

    it('a write that lands but whose answer is lost records its event once; a relay that dies between any two steps loses and repeats nothing', () =>
      withDogs(async (w) => {
        const { stores, clock } = w;
        const faults = new FaultInjector({ hangMs: 1 });
        const faulty = worldOf(
          { ...stores, pets: faults.petRepository(stores.pets), events: faults.eventStore(stores.events) },
          clock,
          new SeededRandom('lost'),
        );
        faults.use((call) => (call.method === 'create' ? 'fail-after-write' : undefined));
        const lost = await faulty.catalog.createPet({ name: 'Rex', categoryId: 1 }).catch((error: unknown) => error);
        expect(lost).to.be.instanceOf(Error);
        faults.use(undefined);
        for (let i = 0; i < 5; i++) await w.catalog.createPet({ name: `P${i}`, categoryId: 1 });
        // Each relay step in turn: a fault there (the step failing, or landing with its answer lost), then a healthy run.
        for (const method of ['lease', 'pending', 'lastSequence', 'append', 'clear']) {
          for (const mode of ['fail', 'fail-after-write', 'hang-after-write'] as FaultMode[]) {
            await w.catalog.createPet({ name: `${method} ${mode}`, categoryId: 1 });
            let seen = 0;
            faults.use((call) =>
              call.port === 'EventStore' && call.method === method && seen++ === 0 ? mode : undefined,
            );
            await Promise.resolve(new EventRelay(faulty.stores.events, clock, HOLDER, { batch: 2 }).run()).catch(
              () => undefined,
            );
            faults.use(undefined);
          }
        }
        await drain(stores.events, clock);
        const feed = await readFeed(stores.events);
        expectGapFree(feed, 1);
        expect(feed.map((e) => e.type === 'pet.created' && e.data.id)).to.deep.equal([
          false,
          ...Array.from({ length: 21 }, (_, i) => i + 1),
        ]);
        await expectFeedMatchesStore(stores, new Set(feed.map((e) => (e.data as Pet).id)));
      }));

    it('append refuses a taken sequence and an id already in the feed, writing nothing; the lease goes to one holder until it runs out', () =>
      setUp(async (w) => {
        const { stores, clock } = w;
        await w.categories.createCategory({ name: 'Dogs' });
        await w.categories.createCategory({ name: 'Cats' });
        const [first, second] = await stores.events.pending(10);
        if (first === undefined || second === undefined) throw new Error('two entries wait');
        const event = (entry: typeof first, sequence: number): Event =>
          ({ id: entry.id, sequence, type: entry.type, occurredAt: entry.occurredAt, data: entry.data }) as Event;
        expect(await stores.events.lastSequence()).to.equal(0);
        expect(await stores.events.firstSequence()).to.equal(1);
        expect(await stores.events.append(event(first, 1))).to.equal('appended');
        expect(await stores.events.append(event(first, 2)), 'the same id again').to.equal('duplicate');
        expect(await stores.events.append(event(second, 1)), 'the same sequence again').to.equal('taken');
        expect(await stores.events.lastSequence()).to.equal(1);
        expect(await stores.events.after(0, { limit: 10 })).to.deep.equal([event(first, 1)]);
        expect(await stores.events.append(event(second, 2))).to.equal('appended');
        expect((await stores.events.after(0, { limit: 10 })).map((e) => e.sequence)).to.deep.equal([1, 2]);
        expect((await stores.events.after(1, { limit: 10 })).map((e) => e.sequence)).to.deep.equal([2]);
        expect(await stores.events.after(0, { limit: 1 })).to.have.length(1);
        expect(await stores.events.after(2, { limit: 10 })).to.deep.equal([]);
        await stores.events.clear(eventSource(first), [first.id]);
        expect((await stores.events.pending(10)).map((e) => e.id)).to.deep.equal([second.id]);
        expect(await stores.events.pendingOf(eventSource(second))).to.deep.equal([second]);
        await stores.events.clear(eventSource(second), [second.id, 'evt_none']);
        await stores.events.clear(eventSource(second), [second.id]);
        expect(await stores.events.pending(10)).to.deep.equal([]);
        expect(await stores.events.pendingOf(eventSource(second))).to.deep.equal([]);
        const now = clock.now();
        const won = await Promise.all(['a', 'b', 'c'].map((h) => stores.events.lease(h, now, now + 100)));
        expect(won.filter(Boolean), 'of racing takes of a free lease, one succeeds').to.have.length(1);
        const holder = ['a', 'b', 'c'][won.indexOf(true)]!;
        expect(await stores.events.lease(holder, now + 50, now + 150), 'renewed by its holder').to.equal(true);
        expect(await stores.events.lease('z', now + 149, now + 300), 'held until it runs out').to.equal(false);
        expect(await stores.events.lease('z', now + 150, now + 300), 'taken over once it has').to.equal(true);
        expect(await stores.events.lease(holder, now + 151, now + 300)).to.equal(false);
      }));

    it('after reads by type in sequence order; purge removes the start only and never the newest; firstSequence and lastSequence follow; a wait ends with the next event, at its timeout, or when told', () =>
      setUp(async (w) => {
        const { stores, clock } = w;
        const cats = await w.categories.createCategory({ name: 'Cats' });
        for (let i = 0; i < 4; i++) {
          await w.catalog.createPet({ name: `P${i}`, categoryId: 1 });
          await w.categories.createCategory({ name: `C${i}` });
        }
        expect(cats.ok).to.equal(true);
        await drain(stores.events, clock);
        const feed = await readFeed(stores.events);
        expect(feed).to.have.length(9);
        const ofTypes = async (after: number, types: Event['type'][], limit = 100) =>
          (await stores.events.after(after, { types, limit })).map((e) => e.sequence);
        const seqOf = (type: string) => feed.filter((e) => e.type === type).map((e) => e.sequence);
        expect(await ofTypes(0, ['pet.created'])).to.deep.equal(seqOf('pet.created'));
        expect(await ofTypes(0, ['category.created', 'pet.created'])).to.deep.equal(feed.map((e) => e.sequence));
        expect(await ofTypes(3, ['category.created'], 2)).to.deep.equal(
          seqOf('category.created')
            .filter((s) => s > 3)
            .slice(0, 2),
        );
        expect(await ofTypes(0, ['order.placed'])).to.deep.equal([]);
        const last = await stores.events.lastSequence();
        expect(await stores.events.purge(3)).to.equal(3);
        expect(await stores.events.firstSequence()).to.equal(4);
        expect(
          (await stores.events.after(0, { limit: 100 })).map((e) => e.sequence),
          'the start is gone',
        ).to.deep.equal(feed.slice(3).map((e) => e.sequence));
        expect(await ofTypes(0, ['pet.created'])).to.deep.equal(seqOf('pet.created').filter((s) => s > 3));
        expect(await stores.events.purge(2), 'nothing before the first kept').to.equal(0);
        expect(await stores.events.purge(last - 1)).to.equal(last - 4);
        expect(
          (await stores.events.after(0, { limit: 100 })).map((e) => e.sequence),
          'the newest stays',
        ).to.deep.equal([last]);
        expect(await stores.events.lastSequence(), 'the last sequence never goes down').to.equal(last);
        // What the retention removed is not what a store bounded in size evicted (nothing did, at 10 events).
        expect(await stores.events.evictedThrough()).to.equal(0);
        expect(await stores.events.evictedThrough(['pet.created'])).to.equal(0);
        // A relay numbers on from there.
        const waited = stores.events.waitBeyond(last, 5_000);
        const timedOut = await stores.events.waitBeyond(last, 5);
        expect(timedOut, 'a wait that times out answers the last sequence').to.equal(last);
        let told!: () => void;
        const toldWait = stores.events.waitBeyond(last, 5_000, new Promise<void>((resolve) => (told = resolve)));
        told();
        expect(await toldWait, 'a wait ended by its caller').to.equal(last);
        expect(await stores.events.waitBeyond(last - 1, 5_000), 'at once when the feed is beyond').to.equal(last);
        await w.catalog.createPet({ name: 'Late', categoryId: 1 });
        await drain(stores.events, clock);
        expect(await waited, 'a wait ends with the next event').to.equal(last + 1);
        expect((await stores.events.after(last, { limit: 10 })).map((e) => [e.sequence, e.type])).to.deep.equal([
          [last + 1, 'pet.created'],
        ]);
      }));

    it('retention (guarantee 5): EventRetention removes the events older than the retention from the start, up to the first younger one; a reader behind it is told the first kept sequence', () =>
      setUp(async (w) => {
        const { stores, clock } = w;
        for (let day = 0; day < 5; day++) {
          await w.categories.createCategory({ name: `Day ${day}` });
          clock.advance(24 * 60 * 60 * 1000);
        }
        await drain(stores.events, clock);
        // Day 0 and 1 are more than 3 days old at day 5 (now: the start of day 5).
        expect(await new EventRetention(stores.events, clock, 3).purge()).to.equal(2);
        expect(await stores.events.firstSequence()).to.equal(3);
        const feed = new EventFeed(stores.events, clock);
        const behind = await feed.read({ after: 1, limit: 10, waitMs: 0 });
        expect(behind.ok || behind.error.code).to.equal('gone');
        expect(behind.ok || behind.error.message).to.include('first kept event is 3');
        const onTime = await feed.read({ after: 2, limit: 10, waitMs: 0 });
        expect(onTime.ok && onTime.value.events.map((e) => e.sequence)).to.deep.equal([3, 4, 5]);
        clock.advance(365 * 24 * 60 * 60 * 1000);
        expect(await new EventRetention(stores.events, clock, 1).purge(), 'never the newest').to.equal(2);
        expect((await readFeed(stores.events)).map((e) => e.sequence)).to.deep.equal([5]);
      }));

    it('a reader polling the feed while relays run sees every event once, gap-free: an event is visible as soon as its append answered, never before a smaller sequence', () =>
      withDogs(async (w) => {
        const { stores, clock } = w;
        for (let i = 0; i < 40; i++) await w.catalog.createPet({ name: `P${i}`, categoryId: 1 });
        const reader = pollingReader(stores.events);
        const problems: string[] = [];
        let seen: readonly number[];
        try {
          // Two relays at once, as when a lease ran out under a paused holder; each append looked at as it answers.
          const unleased = visibleOnAppend(stores.events, stores.events, problems);
          await Promise.all([
            new EventRelay(unleased, clock, 'a', { batch: 3 }).run(),
            new EventRelay(unleased, clock, 'b', { batch: 5 }).run(),
          ]);
          await drain(stores.events, clock);
        } finally {
          seen = await reader.stop();
        }
        expect(problems, 'every event visible once its append answered, with every smaller one').to.deep.equal([]);
        expect(seen, 'the reader saw the feed, in order, each once').to.deep.equal(
          Array.from({ length: 41 }, (_, i) => i + 1),
        );
        expectGapFree(await readFeed(stores.events), 1);
      }));

    it("property: every change has exactly its events, in each resource's order; nothing else is in the feed (sequential, no faults)", () =>
      fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 50, size: 'medium' }), (ops) =>
          withDogs(async (w) => {
            const everPets = new Set<number>();
            const tried = new Set<string>();
            let owed: Expected = [{ type: 'category.created', data: { id: 1, name: 'Dogs' } }];
            let read = 0;
            const settle = async (): Promise<void> => {
              await drain(w.stores.events, w.clock);
              const feed = await readFeed(w.stores.events);
              expectGapFree(feed, 1);
              const fresh = feed.slice(read);
              read = feed.length;
              const got = bySourceOf(fresh);
              const want = bySourceOf(owed);
              expect(
                fresh.length,
                `new events: ${JSON.stringify(fresh.map((e) => e.type))}, owed ${JSON.stringify(owed.map((e) => e.type))}`,
              ).to.equal(owed.length);
              for (const [source, events] of want)
                expect(got.get(source), `the events of ${source}, in order`).to.deep.equal(events);
              owed = [];
            };
            for (const op of ops) {
              w.clock.advance(1);
              const k = await known(w.stores, everPets);
              const expected = await runOp(w, w.stores, op, k, tried);
              owed = [...owed, ...expected];
              if (op.kind === 'relay') await settle();
            }
            await settle();
            await known(w.stores, everPets);
            await expectFeedMatchesStore(w.stores, everPets);
          }),
        ),
        { ...runs },
      ));

    it('property: with a store fault in any one store call of each change or relay run (it fails, hangs, or lands with its answer lost), then the next request, the feed holds exactly one event per change the store holds, gap-free, each resource in order', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(opArb, fc.nat(30), fc.constantFrom(...FAULT_MODES.filter((m) => m !== 'pass'))), {
            minLength: 3,
            maxLength: 30,
            size: 'medium',
          }),
          (steps) =>
            withDogs(async (w) => {
              const faults = new FaultInjector({ hangMs: 1 });
              const s = w.stores;
              const faulty = worldOf(
                {
                  pets: faults.petRepository(s.pets),
                  categories: faults.categoryRepository(s.categories),
                  orders: faults.orderRepository(s.orders),
                  photos: faults.photoStore(s.photos),
                  keys: faults.apiKeyStore(s.keys),
                  events: faults.eventStore(s.events),
                },
                w.clock,
                new SeededRandom('faulty'),
              );
              const everPets = new Set<number>();
              const tried = new Set<string>();
              for (const [op, at, mode] of steps) {
                w.clock.advance(1);
                const k = await known(s, everPets);
                let call = 0;
                faults.use(() => (call++ === at ? mode : 'pass'));
                await runOp(faulty, s, op, k, tried).catch(() => undefined);
                // A relay run in the same window: the fault may come between any two of its steps too.
                await Promise.resolve(new EventRelay(faulty.stores.events, w.clock, HOLDER, { batch: 2 }).run()).catch(
                  () => undefined,
                );
                faults.use(undefined);
                await heal(w);
                await known(s, everPets);
                await expectFeedMatchesStore(s, everPets);
              }
            }),
        ),
        { ...runs },
      ));

    it('property: concurrent writers, two relays at once (a lapsed lease) and a reader polling the feed, with a fault in one store call of each round: the reader never sees a gap, and after the next request the feed holds exactly the changes', () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(fc.array(opArb, { minLength: 1, maxLength: 6 }), fc.nat(60), fc.constantFrom(...FAULT_MODES)),
            { minLength: 2, maxLength: 10, size: 'medium' },
          ),
          (rounds) =>
            withDogs(async (w) => {
              const faults = new FaultInjector({ hangMs: 1 });
              const s = w.stores;
              const problems: string[] = [];
              const unleased = visibleOnAppend(faults.eventStore(s.events), s.events, problems);
              const faulty = worldOf(
                {
                  pets: faults.petRepository(s.pets),
                  categories: faults.categoryRepository(s.categories),
                  orders: faults.orderRepository(s.orders),
                  photos: faults.photoStore(s.photos),
                  keys: faults.apiKeyStore(s.keys),
                  events: unleased,
                },
                w.clock,
                new SeededRandom('concurrent'),
              );
              const everPets = new Set<number>();
              const tried = new Set<string>();
              const reader = pollingReader(s.events);
              try {
                for (const [ops, at, mode] of rounds) {
                  w.clock.advance(1);
                  const k = await known(s, everPets);
                  let call = 0;
                  faults.use(() => (call++ === at ? mode : 'pass'));
                  await Promise.all([
                    ...ops.map((op) => runOp(faulty, s, op, k, tried).catch(() => undefined)),
                    Promise.resolve(new EventRelay(unleased, w.clock, 'one', { batch: 2 }).run()).catch(
                      () => undefined,
                    ),
                    Promise.resolve(new EventRelay(unleased, w.clock, 'two', { batch: 3 }).run()).catch(
                      () => undefined,
                    ),
                  ]);
                  faults.use(undefined);
                  expect(
                    problems,
                    'every event visible once its append answered, with every smaller one',
                  ).to.deep.equal([]);
                  await heal(w);
                  await known(s, everPets);
                  await expectFeedMatchesStore(s, everPets);
                }
              } finally {
                await reader.halt();
              }
              const seen = await reader.stop();
              expect(seen, 'the reader saw every event once, in order').to.deep.equal(
                (await readFeed(s.events)).map((e) => e.sequence),
              );
            }),
        ),
        { ...runs, numRuns: Math.min(runs.numRuns ?? 60, 60) },
      ));
  });
};

/**
 * `events` for relays that run at once (no lease: as when one ran out under a paused holder), with a
 * look at the feed (`healthy`) each time an `append` answers `appended`: the event must be visible at
 * once, and every smaller sequence kept with it (guarantee 2). What breaks that goes to `problems`
 * (a relay run's own failures are expected under faults; these must not be lost with them).
 */
const visibleOnAppend = (events: EventStore, healthy: EventStore, problems: string[]): EventStore => ({
  ...forwardingEvents(events),
  lease: async () => true,
  append: async (event) => {
    const outcome = await events.append(event);
    if (outcome === 'appended') {
      const first = await healthy.firstSequence();
      const shown = (await healthy.after(first - 1, { limit: event.sequence - first + 1 })).map((e) => e.sequence);
      const whole = Array.from({ length: event.sequence - first + 1 }, (_, i) => first + i);
      if (JSON.stringify(shown) !== JSON.stringify(whole))
        problems.push(`once event ${event.sequence} was appended, the feed showed ${JSON.stringify(shown)}`);
    }
    return outcome;
  },
});

/**
 * A reader following the feed in the background, as a client long-polling it would: each read must
 * continue exactly where the last one ended (an event seen after a gap, or a sequence seen again,
 * fails it). `stop` answers the sequences seen, in order, after a last read.
 */
const pollingReader = (events: EventStore): { stop(): Promise<readonly number[]>; halt(): Promise<void> } => {
  const seen: number[] = [];
  let stopped = false;
  let failure: unknown;
  const readOnce = async (): Promise<void> => {
    const page = await events.after(seen[seen.length - 1] ?? 0, { limit: 100 });
    page.forEach((event, i) => {
      const expected = (seen[seen.length - 1] ?? 0) + 1;
      if (event.sequence !== expected)
        throw new Error(
          `the reader after ${expected - 1} was shown ${event.sequence} (page ${JSON.stringify(page.map((e) => e.sequence))}, at ${i}): an event visible before a smaller one`,
        );
      seen.push(event.sequence);
    });
  };
  const loop = (async () => {
    while (!stopped && failure === undefined) {
      await readOnce().catch((error: unknown) => (failure = error));
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  })();
  return {
    async halt() {
      stopped = true;
      await loop;
    },
    async stop() {
      stopped = true;
      await loop;
      if (failure === undefined) await readOnce().catch((error: unknown) => (failure = error));
      if (failure !== undefined) throw failure;
      return seen;
    },
  };
};

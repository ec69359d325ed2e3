import { expect } from 'chai';
import type {
  ApiKey,
  ApiKeyStore,
  Caller,
  Category,
  CategoryRepository,
  Event,
  EventStore,
  Order,
  OrderRepository,
  Pet,
  PetRepository,
  Photo,
  PhotoStore,
} from '../src/index.js';
import {
  Adoption,
  CategoryCatalog,
  EVENT_ID,
  EventRelay,
  KeyAdmin,
  ORDER_STATES,
  PetCatalog,
  PetMaintenance,
  PhotoLibrary,
  toPhoto,
} from '../src/index.js';
import { withFixture, type MakeFixture } from './fixture.js';
import { ManualClock } from './manual-clock.js';
import { SeededRandom } from './seeded-random.js';
import { TextImageProcessor } from './text-images.js';
import { nodeDigests } from './node-digests.js';
import { testPhotoLinks } from './photo-links.js';

// The event store contract's world (the use cases over an adapter's stores, and the relay) and its
// model of the feed: what each resource's events must replay to, held against what the store holds.

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

export const ADMIN: Caller = { keyId: 'key_ad00000000ad', role: 'admin' };
export const CLIENTS: readonly Caller[] = ['a', 'b'].map((c) => ({ keyId: `key_${c.repeat(12)}`, role: 'client' }));
export const CALLERS: readonly Caller[] = [...CLIENTS, ADMIN];
const T0 = Date.UTC(2027, 0, 1);
export const MANY = 1_000_000;
export const JPEG = 'image/jpeg';

// ---------------------------------------------------------------------------------------------
// The use cases over a store, and the relay
// ---------------------------------------------------------------------------------------------

export interface World {
  readonly stores: EventStores;
  readonly clock: ManualClock;
  readonly catalog: PetCatalog;
  readonly categories: CategoryCatalog;
  readonly adoption: Adoption;
  readonly maintenance: PetMaintenance;
  readonly library: PhotoLibrary;
  readonly keys: KeyAdmin;
}

export const worldOf = (stores: EventStores, clock: ManualClock, random: SeededRandom): World => {
  const library = new PhotoLibrary(stores.pets, stores.photos, new TextImageProcessor(), clock, nodeDigests);
  return {
    stores,
    clock,
    catalog: new PetCatalog(stores.pets, stores.categories, clock, random, {
      store: stores.photos,
      links: testPhotoLinks,
    }),
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
    keys: new KeyAdmin(stores.keys, random, clock, T0, nodeDigests),
  };
};

/** The relay every check drains with: one holder, so its lease is always its own. */
export const HOLDER = 'contract-relay';

/** Runs relays until no entry waits (a healthy store: at most a few runs). */
export const drain = async (events: EventStore, clock: ManualClock): Promise<void> => {
  const relay = new EventRelay(events, clock, HOLDER, { batch: 7 });
  for (let run = 0; run < 20; run++) {
    await relay.run();
    if ((await events.pending(1)).length === 0) return;
  }
  expect.fail('entries still wait after 20 relay runs on a healthy store');
};

/** Every event kept, read a page at a time. */
export const readFeed = async (events: EventStore): Promise<readonly Event[]> => {
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
export const expectGapFree = (feed: readonly Event[], first: number): void => {
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
export const keyView = (key: ApiKey & { readonly key?: string }): ApiKey => {
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

/** Runs `body` with fresh stores of `make`, the use cases over them, a manual clock and a seeded random. */
export const setUpWorld = async <R>(make: MakeFixture<EventStores>, body: (world: World) => Promise<R>): Promise<R> =>
  withFixture(make, async (stores) => body(worldOf(stores, new ManualClock(T0), new SeededRandom('events'))));

/** The same, with category 1 there (its `category.created` waiting in its outbox). */
export const withDogs = async <R>(make: MakeFixture<EventStores>, body: (world: World) => Promise<R>): Promise<R> =>
  setUpWorld(make, async (world) => {
    expect((await world.categories.createCategory({ name: 'Dogs' })).ok).to.equal(true);
    return body(world);
  });

import fc from 'fast-check';
import type { EventStore, IdempotentCreation, OrderAction, PetStatus, Photo } from '../src/index.js';
import { EventRelay, ORDER_STATES, PET_STATUSES, eventSource, sourceKey, toPhoto } from '../src/index.js';
import { forwardingEvents } from './forwarding.js';
import { textImage } from './text-images.js';
import {
  ADMIN,
  CALLERS,
  drain,
  type EventStores,
  HOLDER,
  JPEG,
  keyView,
  MANY,
  type World,
} from './event-store.model.js';

// Timers are the one platform facility used here; declared locally so that test-support stays
// free of any runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;

// The changes the event store contract's properties make (random ops of every kind, each through the
// use cases), and the wrappers its properties watch the store through.

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
export const opArb: fc.Arbitrary<Op> = fc.oneof(
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

export const known = async (stores: EventStores, everPets: Set<number>): Promise<Known> => {
  const pets = (await stores.pets.list({ order: { sort: 'id' }, limit: MANY })).pets.map((p) => p.id);
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
export type Expected = { readonly type: string; readonly data: unknown }[];

/**
 * Runs `op` in `world` (whose stores may be faulty) as the service would: a create under a key asks
 * what an earlier attempt created first. Answers the events the op must have recorded, judged from its
 * answer and the store as read healthily (`healthy`) before and after it.
 */
export const runOp = async (
  world: World,
  healthy: EventStores,
  op: Op,
  k: Known,
  tried: Set<string>,
): Promise<Expected> => {
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
export const heal = async (world: World): Promise<void> => {
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
export const bySourceOf = (
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
 * `events` for relays that run at once (no lease: as when one ran out under a paused holder), with a
 * look at the feed (`healthy`) each time an `append` answers `appended`: the event must be visible at
 * once, and every smaller sequence kept with it (guarantee 2). What breaks that goes to `problems`
 * (a relay run's own failures are expected under faults; these must not be lost with them).
 */
export const visibleOnAppend = (events: EventStore, healthy: EventStore, problems: string[]): EventStore => ({
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
export const pollingReader = (events: EventStore): { stop(): Promise<readonly number[]>; halt(): Promise<void> } => {
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

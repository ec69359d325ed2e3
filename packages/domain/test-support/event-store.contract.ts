import { expect } from 'chai';
import type { Event, EventStore, OrderRepository, Pet, PetStatus } from '../src/index.js';
import { Adoption, EventFeed, EventRelay, EventRetention, eventSource, sourceKey } from '../src/index.js';
import { FaultInjector, type FaultMode } from './fault-injection.js';
import { forwardingEvents } from './forwarding.js';
import { type ContractOptions, type MakeFixture } from './fixture.js';
import { SeededRandom } from './seeded-random.js';
import { textImage } from './text-images.js';
import {
  ADMIN,
  CLIENTS,
  drain,
  type EventStores,
  expectFeedMatchesStore,
  expectGapFree,
  HOLDER,
  JPEG,
  keyView,
  readFeed,
  setUpWorld,
  withDogs,
  type World,
  worldOf,
} from './event-store.model.js';
import { pollingReader, visibleOnAppend } from './event-store.operations.js';

import { eventStoreProperties } from './event-store.properties.js';
import { entryOf } from './pet-entries.js';

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
    const setUp = <R>(body: (world: World) => Promise<R>): Promise<R> => setUpWorld(make, body);

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
        const pet = await stores.pets.create(entryOf({ name: 'Rex', categoryId: 1, status: 'available' }));
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
      withDogs(make, async (w) => {
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
      withDogs(make, async (w) => {
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
      withDogs(make, async (w) => {
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

    eventStoreProperties(make, runs);
  });
};

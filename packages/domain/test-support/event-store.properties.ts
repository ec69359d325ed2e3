import { expect } from 'chai';
import fc from 'fast-check';
import { EventRelay } from '../src/index.js';
import { FaultInjector, FAULT_MODES } from './fault-injection.js';
import { type MakeFixture } from './fixture.js';
import { SeededRandom } from './seeded-random.js';
import {
  drain,
  type EventStores,
  expectFeedMatchesStore,
  expectGapFree,
  HOLDER,
  readFeed,
  withDogs,
  worldOf,
} from './event-store.model.js';
import {
  bySourceOf,
  type Expected,
  heal,
  known,
  opArb,
  pollingReader,
  runOp,
  visibleOnAppend,
} from './event-store.operations.js';

// The event store contract's properties: random changes of every kind, sequential, with a store
// fault in any one call, and concurrent with relays and a reader (event-store.contract.ts runs them).

/** Declares the contract's properties over `make`'s stores. */
export const eventStoreProperties = (make: MakeFixture<EventStores>, runs: { readonly numRuns?: number }): void => {
  it("property: every change has exactly its events, in each resource's order; nothing else is in the feed (sequential, no faults)", () =>
    fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 50, size: 'medium' }), (ops) =>
        withDogs(make, async (w) => {
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
          withDogs(make, async (w) => {
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
          withDogs(make, async (w) => {
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
                  Promise.resolve(new EventRelay(unleased, w.clock, 'one', { batch: 2 }).run()).catch(() => undefined),
                  Promise.resolve(new EventRelay(unleased, w.clock, 'two', { batch: 3 }).run()).catch(() => undefined),
                ]);
                faults.use(undefined);
                expect(problems, 'every event visible once its append answered, with every smaller one').to.deep.equal(
                  [],
                );
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
};

import { expect } from 'chai';
import fc from 'fast-check';
import { EVENT_TYPES, type Event, type EventType } from '@petstore/domain';
import { EventStoreInMemory } from '../src/index.js';

const eventOf = (sequence: number, type: EventType): Event =>
  ({ id: `evt_${sequence}`, sequence, type, occurredAt: '2027-01-01T00:00:00.000Z', data: { id: sequence } }) as Event;

/** One step: an append of the next event (of a type), or a purge through a sequence. */
type Step = { readonly append: EventType } | { readonly purge: number };

const TYPES = EVENT_TYPES.slice(0, 3);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ append: fc.constantFrom(...TYPES) }), weight: 6 },
  fc.record({ purge: fc.nat(40) }),
);
const typesArb = fc.option(fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1 }), { nil: undefined });

describe('EventStoreInMemory beyond the contract: its bound (PETSTORE_EVENT_MEMORY_MAX, docs/rules.md §15)', () => {
  it('property: it keeps the newest `maxEvents` events not purged; the oldest leave first, each remembered by type; reads, the first sequence and the last follow', () =>
    fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(stepArb, { maxLength: 40 }),
        typesArb,
        async (max, steps, types) => {
          const store = new EventStoreInMemory(undefined, max);
          // What the port and the bound say, step by step: an append past the bound drops the oldest
          // (evicted), a purge drops the start up to the one before the newest (not evicted).
          let last = 0;
          let kept: Event[] = [];
          const evicted: Event[] = [];
          for (const step of steps) {
            if ('append' in step) {
              const event = eventOf(++last, step.append);
              expect(store.append(event)).to.equal('appended');
              kept.push(event);
              if (kept.length > max) evicted.push(kept.shift()!);
            } else {
              await store.purge(step.purge);
              kept = kept.filter((e) => e.sequence > Math.min(step.purge, last - 1));
            }
          }
          expect(store.size).to.equal(kept.length);
          expect(store.lastSequence()).to.equal(last);
          expect(await store.firstSequence()).to.equal(kept[0]?.sequence ?? last + 1);
          const asked = (e: Event) => types === undefined || types.includes(e.type);
          expect(store.after(0, { limit: 100, ...(types === undefined ? {} : { types }) })).to.deep.equal(
            kept.filter(asked),
          );
          expect(await store.evictedThrough(types)).to.equal(evicted.filter(asked).at(-1)?.sequence ?? 0);
        },
      ),
    ));

  it('holds its bound over many thousands of events: reads after any kept sequence stay right, and an evicted id may be appended again', async () => {
    const store = new EventStoreInMemory(undefined, 10);
    for (let sequence = 1; sequence <= 5_000; sequence++) store.append(eventOf(sequence, TYPES[sequence % 3]!));
    expect(store.size).to.equal(10);
    expect(await store.firstSequence()).to.equal(4_991);
    expect(store.after(4_995, { limit: 3 }).map((e) => e.sequence)).to.deep.equal([4_996, 4_997, 4_998]);
    expect(store.after(0, { limit: 2, types: [TYPES[1]!] }).map((e) => e.sequence)).to.deep.equal([4_993, 4_996]);
    expect(await store.evictedThrough([TYPES[1]!])).to.equal(4_990);
    // Its id is no longer in the feed (the port's duplicate check need not count what left).
    expect(store.append({ ...eventOf(5_001, TYPES[0]!), id: 'evt_1' })).to.equal('appended');
  });

  it('refuses a bound below one event (the newest always stays)', () => {
    for (const max of [0, -1, 1.5, Number.NaN])
      expect(() => new EventStoreInMemory(undefined, max)).to.throw(RangeError);
  });
});

// The public catalogue (docs/rules.md §16), `sort=random` with `seed`: an order fixed by the seed, the same
// on every call and page, another for another seed, in which over many seeds every pet reaches the
// first page. Each pet has a random 32-bit key from its creation; the seed picks a start on the
// circle of keys.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Random } from '../src/index.js';
import {
  compareShuffled,
  drawShuffleKey,
  SEED_MAX,
  SHUFFLE_CIRCLE,
  shufflePosition,
  shuffleRanges,
  shuffleStart,
} from '../src/index.js';
import { SeededRandom } from '../test-support/index.js';

interface Row {
  readonly key: number;
  readonly id: number;
}
const keyArb = fc.oneof(
  fc.constantFrom(0, 1, SHUFFLE_CIRCLE - 1, 2 ** 31),
  fc.integer({ min: 0, max: SHUFFLE_CIRCLE - 1 }),
);
const seedArb = fc.oneof(fc.constantFrom(0, 1, SEED_MAX), fc.integer({ min: 0, max: SEED_MAX }));
/** Pets with distinct ids; keys may repeat (then the id decides). */
const rowsArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 30 })
  .chain((ids) => fc.tuple(...ids.map((id) => keyArb.map((key): Row => ({ key, id })))));
/** MurmurHash3's 32-bit finalizer, spelt out in BigInt arithmetic. */
const fmix32 = (value: bigint): bigint => {
  const mask = 2n ** 32n - 1n;
  let h = value & mask;
  h = ((h ^ (h >> 16n)) * 0x85ebca6bn) & mask;
  h = ((h ^ (h >> 13n)) * 0xc2b2ae35n) & mask;
  return h ^ (h >> 16n);
};
/** A `Random` that gives these bytes once. */
const bytesOnce = (bytes: number[]): Random => ({ bytes: () => Uint8Array.from(bytes) });
/** The rows in the order of `start`, by the comparator. */
const ordered = (rows: readonly Row[], start: number): Row[] => [...rows].sort(compareShuffled(start));
/** The rows as a store reads them: each range ascending by (key, id), the first range, then the second. */
const readByRanges = (rows: readonly Row[], start: number): Row[] =>
  shuffleRanges(start).flatMap(({ low, high }) =>
    rows.filter((row) => row.key >= low && row.key < high).sort((a, b) => a.key - b.key || a.id - b.id),
  );

describe('the shuffle (docs/rules.md §16, sort=random)', () => {
  it('property: a pet’s key is the 4 random bytes read big-endian: every integer from 0 to 2^32 − 1, and only those', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (bytes) => {
        const expected = ((bytes[0]! * 256 + bytes[1]!) * 256 + bytes[2]!) * 256 + bytes[3]!;
        expect(drawShuffleKey(bytesOnce(bytes))).to.equal(expected);
      }),
    );
    expect(drawShuffleKey(bytesOnce([255, 255, 255, 255]))).to.equal(SHUFFLE_CIRCLE - 1);
    expect(() => drawShuffleKey(bytesOnce([1, 2, 3]))).to.throw(/3 bytes/);
  });

  it('property: a seed’s start is MurmurHash3’s finalizer of seed + 0x9e3779b9 (fixed: every process and version orders alike)', () => {
    fc.assert(
      fc.property(seedArb, (seed) => {
        expect(shuffleStart(seed), String(seed)).to.equal(Number(fmix32(BigInt(seed) + 0x9e3779b9n)));
      }),
    );
  });

  it('property: a seed’s start is a point of the circle, and two seeds never share one', () => {
    fc.assert(
      fc.property(seedArb, seedArb, (a, b) => {
        const start = shuffleStart(a);
        expect(Number.isInteger(start) && start >= 0 && start < SHUFFLE_CIRCLE, String(start)).to.equal(true);
        expect(shuffleStart(a), 'the same seed, the same start').to.equal(start);
        if (a !== b) expect(shuffleStart(b), `${a} and ${b}`).to.not.equal(start);
      }),
    );
    const starts = new Set(Array.from({ length: 65_536 }, (_, seed) => shuffleStart(seed)));
    expect(starts.size, 'seeds 0–65535').to.equal(65_536);
  });

  it('spreads neighbouring seeds over the whole circle: seeds 0–4095 leave no gap over 4/1024 of it', () => {
    const starts = Array.from({ length: 4096 }, (_, seed) => shuffleStart(seed)).sort((a, b) => a - b);
    const gaps = starts.map((start, i) =>
      i === 0 ? start + SHUFFLE_CIRCLE - starts[starts.length - 1]! : start - starts[i - 1]!,
    );
    expect(Math.max(...gaps)).to.be.below((SHUFFLE_CIRCLE / 1024) * 4);
  });

  it('property: a key’s position is its distance from the start, going round the circle', () => {
    fc.assert(
      fc.property(keyArb, keyArb, (key, start) => {
        const expected = Number((BigInt(key) - BigInt(start) + 2n ** 32n) % 2n ** 32n);
        expect(shufflePosition(key, start), `${key} from ${start}`).to.equal(expected);
      }),
    );
  });

  it('property: the order of a seed is one order of the pets, the same whatever order they are given in; the first pet is the first key at or after the start', () => {
    fc.assert(
      fc.property(rowsArb, seedArb, fc.nat(), (rows, seed, turn) => {
        const start = shuffleStart(seed);
        const order = ordered(rows, start);
        const turned = [
          ...rows.slice(turn % (rows.length || 1)),
          ...rows.slice(0, turn % (rows.length || 1)),
        ].reverse();
        expect(ordered(turned, start), 'the same order from another input order').to.deep.equal(order);
        expect(
          [...order].sort((a, b) => a.id - b.id),
          'each pet once',
        ).to.deep.equal([...rows].sort((a, b) => a.id - b.id));
        for (let i = 1; i < order.length; i++) {
          const [a, b] = [order[i - 1]!, order[i]!];
          const [pa, pb] = [shufflePosition(a.key, start), shufflePosition(b.key, start)];
          expect(pa < pb || (pa === pb && a.id < b.id), `${JSON.stringify(a)} before ${JSON.stringify(b)}`).to.equal(
            true,
          );
        }
        if (rows.length > 0) {
          const after = rows.filter((row) => row.key >= start);
          const pool = after.length > 0 ? after : rows;
          const first = Math.min(...pool.map((row) => row.key));
          expect(order[0]!.key, `the first key at or after ${start}`).to.equal(first);
        }
      }),
    );
  });

  it('property: reading the two ranges one after the other gives the order of the seed, each pet once', () => {
    fc.assert(
      fc.property(rowsArb, fc.oneof(seedArb.map(shuffleStart), keyArb), (rows, start) => {
        expect(readByRanges(rows, start), `start ${start}`).to.deep.equal(ordered(rows, start));
      }),
    );
    expect(shuffleRanges(0)[1], 'from 0, the second range is empty').to.deep.equal({ low: 0, high: 0 });
  });

  it('property: over 200 seeds in a row, each of 100 pets with random keys is on the first page (20) for some seed', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: SEED_MAX - 199 }), (randomSeed, firstSeed) => {
        const random = new SeededRandom(randomSeed);
        const rows = Array.from({ length: 100 }, (_, i): Row => ({ key: drawShuffleKey(random), id: i + 1 }));
        const reached = new Set<number>();
        for (let seed = firstSeed; seed < firstSeed + 200; seed++)
          for (const row of ordered(rows, shuffleStart(seed)).slice(0, 20)) reached.add(row.id);
        expect(reached.size, `pets never on the first page, seeds from ${firstSeed}`).to.equal(rows.length);
      }),
      { numRuns: 30 },
    );
  });
});

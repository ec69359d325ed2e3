/**
 * `sort=random` (docs/rules.md §16): an order fixed by a seed that pages like any other sort. Each
 * pet holds a random 32-bit key, drawn once at its creation; the keys sit on a circle of 2^32
 * points, a seed picks where on it the list starts, and the list goes round from there: by the
 * key's distance from the start, then by id. Over many seeds every pet comes first for some.
 */
import type { Random } from '../ports/random.port.js';

/** Points on the circle of shuffle keys: a key is an integer from 0 to 2^32 − 1. */
export const SHUFFLE_CIRCLE = 2 ** 32;
/** Largest `seed` (2^31 − 1); the smallest is 0. */
export const SEED_MAX = 2147483647;

/** A pet's shuffle key: 4 bytes from `random`, big-endian, so 0 to 2^32 − 1, each alike likely. */
export const drawShuffleKey = (random: Random): number => {
  const bytes = random.bytes(4);
  if (bytes.length !== 4) throw new Error(`the random source gave ${bytes.length} bytes where 4 were asked for`);
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
};

/**
 * Where the list of `seed` starts on the circle: MurmurHash3's 32-bit finalizer of the seed plus a
 * constant. The finalizer is a bijection of 32-bit integers that spreads neighbouring inputs over
 * the whole circle (so seeds 0, 1, 2… start far apart) and two seeds never share a start. Plain
 * arithmetic, not cryptography: a seed is no secret.
 */
export const shuffleStart = (seed: number): number => {
  let h = (seed + 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/** A key's place in the list that starts at `start`: its distance from the start, going round, 0 to 2^32 − 1. */
export const shufflePosition = (key: number, start: number): number => (key - start + SHUFFLE_CIRCLE) % SHUFFLE_CIRCLE;

/** The order of pets (their shuffle key and id) in the list that starts at `start`: by position, then id. */
export const compareShuffled =
  (start: number) =>
  (a: { readonly key: number; readonly id: number }, b: { readonly key: number; readonly id: number }): number =>
    shufflePosition(a.key, start) - shufflePosition(b.key, start) || a.id - b.id;

/**
 * The two ranges of keys (`low` included, `high` excluded) that a store indexed by (key, id) reads,
 * one after the other, each ascending, to list in the order that starts at `start`: `[start, 2^32)`
 * then `[0, start)` (empty when `start` is 0).
 */
export const shuffleRanges = (start: number): readonly [ShuffleRange, ShuffleRange] => [
  { low: start, high: SHUFFLE_CIRCLE },
  { low: 0, high: start },
];

/** Keys from `low` to `high`, `high` excluded. */
export interface ShuffleRange {
  readonly low: number;
  readonly high: number;
}

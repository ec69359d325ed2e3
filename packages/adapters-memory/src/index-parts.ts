import { shuffleRanges, type KeyedRow } from '@petstore/domain';
import { concatWalks, NO_ROWS, type RowWalk } from './row-walk.js';
import type { KeyRange, SortedIndex } from './sorted-index.js';

/** The rows of `index` in `range`, after the row `after` when given: one stretch of a list's rows. */
export interface IndexPart<K extends string | number> {
  readonly index: SortedIndex<K>;
  readonly range: KeyRange<K>;
  readonly after: KeyedRow<K> | undefined;
}

/**
 * The parts of a shuffle index (rows of (shuffle key, id)) in the order of the circle that starts at
 * `start` (docs/rules.md §16), from the position `after` on: `[start, 2^32)` then `[0, start)`. A
 * position in the top part continues there, then reads the bottom; one in the bottom continues there.
 */
export const shuffleParts = (
  index: SortedIndex<number>,
  start: number,
  after: KeyedRow<number> | undefined,
): readonly IndexPart<number>[] => {
  const [top, bottom] = shuffleRanges(start);
  if (after === undefined || after.key >= start)
    return [
      { index, range: top, after },
      { index, range: bottom, after: undefined },
    ];
  return [{ index, range: bottom, after }];
};

/** The rows of the parts, one part after the other; a part is placed (a seek) only when the one before runs out. */
export const walkParts = <K extends string | number>(parts: readonly IndexPart<K>[]): RowWalk<KeyedRow<K>> => {
  const walkOf = ({ index, range, after }: IndexPart<K>): RowWalk<KeyedRow<K>> => index.walk(range, after);
  const [first, ...next] = parts;
  if (first === undefined) return NO_ROWS;
  return next.reduce((walk, part) => concatWalks(walk, () => walkOf(part)), walkOf(first));
};

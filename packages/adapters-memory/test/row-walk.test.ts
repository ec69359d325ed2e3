// The walks the memory store's lists read its indexes with (docs/rules.md §16): several in one order,
// merged, and one after another.
import { expect } from 'chai';
import fc from 'fast-check';
import { concatWalks, mergeWalks, NO_ROWS, type RowWalk } from '../src/row-walk.js';

const walkOf = <T>(rows: readonly T[]): RowWalk<T> => {
  let i = 0;
  return { next: () => rows[i++] };
};
const all = <T>(walk: RowWalk<T>): T[] => {
  const out: T[] = [];
  for (let row = walk.next(); row !== undefined; row = walk.next()) out.push(row);
  return out;
};

describe('row walks of the memory store', () => {
  it('property: merging walks that are each in order and share no row gives every row once, in that order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { maxLength: 60 }), fc.nat(), fc.boolean(), (values, split, down) => {
        const compare = down ? (a: number, b: number) => b - a : (a: number, b: number) => a - b;
        // Deal the values to 1…5 walks, each sorted.
        const count = 1 + (split % 5);
        const parts = Array.from({ length: count }, (_, k) => values.filter((_, i) => i % count === k).sort(compare));
        expect(all(mergeWalks(parts.map(walkOf), compare))).to.deep.equal([...values].sort(compare));
      }),
    );
  });

  it('a merge of no walk has no row; a concatenation reads the first walk, then the second, then no more', () => {
    expect(all(mergeWalks([], (a: number, b: number) => a - b))).to.deep.equal([]);
    expect(NO_ROWS.next()).to.equal(undefined);
    let made = 0;
    const then = (rows: number[]) => () => (made++, walkOf(rows));
    const both = concatWalks(walkOf([3, 1]), then([2]));
    expect([both.next(), both.next(), made], 'the second walk is made only when the first runs out').to.deep.equal([
      3, 1, 0,
    ]);
    expect(all(both)).to.deep.equal([2]);
    expect(both.next()).to.equal(undefined);
    expect(made, 'once').to.equal(1);
    expect(all(concatWalks(walkOf([]), then([5])))).to.deep.equal([5]);
  });
});

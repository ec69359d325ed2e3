// The parts of an index a list reads one after the other (docs/rules.md §16): a shuffle's circle,
// proved against a sort of the rows by the domain's own order of a shuffle.
import { expect } from 'chai';
import fc from 'fast-check';
import { compareShuffled, SHUFFLE_CIRCLE, type KeyedRow } from '@petstore/domain';
import { shuffleParts, walkParts } from '../src/index-parts.js';
import { SortedIndex } from '../src/sorted-index.js';
import type { RowWalk } from '../src/row-walk.js';

const all = <T>(walk: RowWalk<T>): T[] => {
  const out: T[] = [];
  for (let row = walk.next(); row !== undefined; row = walk.next()) out.push(row);
  return out;
};

/** Shuffle keys, with the circle's ends and a few shared keys likely. */
const keyArb = fc.oneof(
  fc.integer({ min: 0, max: SHUFFLE_CIRCLE - 1 }),
  fc.constantFrom(0, 1, 7, 8, SHUFFLE_CIRCLE - 1),
);

describe('the parts of an index a list reads (the memory store, docs/rules.md §16)', () => {
  it('property: a shuffle index read by its parts from a position gives the rows after it, in the order of the circle from its start', () =>
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ key: keyArb, id: fc.integer({ min: 1, max: 40 }) }), {
          selector: (row) => `${row.key}/${row.id}`,
          maxLength: 40,
        }),
        keyArb,
        fc.option(fc.record({ key: keyArb, id: fc.double({ min: 0, max: 41, noNaN: true }) }), { nil: undefined }),
        fc.boolean(),
        (rows, start, position, fromARow) => {
          const index = new SortedIndex<number>(4);
          for (const { key, id } of rows) index.insert(key, id);
          // The position: an arbitrary one (a withdrawn pet's, between rows), or a row's own.
          const after: KeyedRow<number> | undefined = fromARow && rows.length > 0 ? rows[0] : position;
          const order = compareShuffled(start);
          const expected = [...rows]
            .filter((row) => after === undefined || order(row, after) > 0)
            .sort(order)
            .map((row) => ({ key: row.key, id: row.id }));
          expect(all(walkParts(shuffleParts(index, start, after)))).to.deep.equal(expected);
        },
      ),
    ));

  it('no parts are no rows', () => {
    expect(walkParts([]).next()).to.equal(undefined);
  });
});

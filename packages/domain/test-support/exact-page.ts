import { expect } from 'chai';
import fc from 'fast-check';

/**
 * The list rules every exported contract suite checks exactly against its model (docs/rules.md §2):
 * a port's `list` answers the first min(limit, remaining) matching rows after `afterId`, in
 * ascending position, no more and no fewer; a page of a use case holds the first min(limit,
 * remaining) items after the page before it, and a next cursor exactly when more remain. Length,
 * order and bound are checked one by one, so that a failure names the rule that broke.
 */

const plain = <T>(row: T): T => ({ ...row });

/**
 * One answer of a port's `list(query)`. `matching`: every row of the model that matches the
 * query's filters (any position, any order).
 */
export const expectListAnswer = <T>(
  what: string,
  answer: readonly T[],
  matching: readonly T[],
  query: { readonly afterId: number; readonly limit: number },
  positionOf: (row: T) => number,
): void => {
  const remaining = matching
    .filter((row) => positionOf(row) > query.afterId)
    .sort((a, b) => positionOf(a) - positionOf(b));
  const expected = remaining.slice(0, query.limit);
  const positions = answer.map(positionOf);
  const context = `${what} after ${query.afterId}, limit ${query.limit}: answered ${JSON.stringify(positions)}`;
  expect(answer.length, `${context}; length = min(limit ${query.limit}, ${remaining.length} remaining)`).to.equal(
    expected.length,
  );
  positions.forEach((position, i) => {
    expect(position, `${context}; every row after ${query.afterId}`).to.be.greaterThan(query.afterId);
    if (i > 0) expect(position, `${context}; ascending`).to.be.greaterThan(positions[i - 1]!);
  });
  expect(positions, `${context}; the first ${expected.length} matching rows`).to.deep.equal(expected.map(positionOf));
  expect(answer.map(plain), `${context}; the rows as stored`).to.deep.equal(expected.map(plain));
};

/**
 * One page of a use case's listing. `remaining`: the items of the model the listing still owes, in
 * ascending position (those after the previous page's last item; all of them for the first page).
 * Answers the items the next page owes.
 */
export const expectExactPage = <T>(
  what: string,
  page: { readonly items: readonly T[]; readonly nextCursor?: string },
  remaining: readonly T[],
  limit: number,
  positionOf: (item: T) => number,
): readonly T[] => {
  const positions = page.items.map(positionOf);
  const context = `${what}, limit ${limit}: page ${JSON.stringify(positions)}`;
  expect(page.items.length, `${context}; length = min(limit ${limit}, ${remaining.length} remaining)`).to.equal(
    Math.min(limit, remaining.length),
  );
  expect(positions, `${context}; the next ${Math.min(limit, remaining.length)} items in ascending order`).to.deep.equal(
    remaining.slice(0, limit).map(positionOf),
  );
  expect(page.items.map(plain), `${context}; the items`).to.deep.equal(remaining.slice(0, limit).map(plain));
  expect(
    page.nextCursor !== undefined,
    `${context}; a next cursor exactly when more remain (${remaining.length} > ${limit})`,
  ).to.equal(remaining.length > limit);
  return remaining.slice(limit);
};

/** Where a list query starts: the start (`null`), or at the position of a row picked by `pick`, moved by `offset`. */
export type AfterPick = { readonly pick: number; readonly offset: number } | null;
/** The start, just at a row, or one short of or past it (a position no row has). */
export const afterArb: fc.Arbitrary<AfterPick> = fc.oneof(
  fc.constant(null),
  fc.record({ pick: fc.nat(), offset: fc.constantFrom(0, 0, 0, -1, 1) }),
);
/** The position `after` names among the rows at `positions` (0 for the start or an empty store). */
export const afterFrom = (after: AfterPick, positions: readonly number[]): number =>
  after === null || positions.length === 0 ? 0 : Math.max(0, positions[after.pick % positions.length]! + after.offset);

/** Most pages a walk may take before it is called endless (a store that ignores where to start). */
export const MAX_WALK_PAGES = 1_000;

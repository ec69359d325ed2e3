/** Rows one at a time, in an index's order, from a position on: `next()` until it answers `undefined`. */
export interface RowWalk<T> {
  next(): T | undefined;
}

/** No rows. */
export const NO_ROWS: RowWalk<never> = { next: () => undefined };

/**
 * The rows of `first`, then those of the walk `then` makes: made only when `first` runs out, so a
 * reader that stops within `first` never pays for placing the second (a seek, in an index).
 */
export const concatWalks = <T>(first: RowWalk<T>, then: () => RowWalk<T>): RowWalk<T> => {
  let current = first;
  let second: RowWalk<T> | undefined;
  return {
    next: () => {
      const row = current.next();
      if (row !== undefined || second !== undefined) return row;
      current = second = then();
      return second.next();
    },
  };
};

/**
 * The rows of several walks, each in `compare`'s order and no row in two of them, as one walk in
 * that order. Each step compares the heads of the walks (a page's few indexes: 1 to 60), so reading
 * n rows costs O(n × walks) comparisons; one walk is answered as it is.
 */
export const mergeWalks = <T>(walks: readonly RowWalk<T>[], compare: (a: T, b: T) => number): RowWalk<T> => {
  if (walks.length === 0) return NO_ROWS;
  if (walks.length === 1) return walks[0]!;
  const heads = walks.map((walk) => walk.next());
  return {
    next: () => {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head !== undefined && (best < 0 || compare(head, heads[best]!) < 0)) best = i;
      }
      if (best < 0) return undefined;
      const row = heads[best];
      heads[best] = walks[best]!.next();
      return row;
    },
  };
};

import type { PetListQuery, PetStatus } from '@petstore/domain';
import { drivingWord, PET_STATUSES, prefixRange, shuffleRanges, type ShuffleRange } from '@petstore/domain';
import type { Document } from 'mongodb';
import { indexName, petListIndex } from './indexes.js';

/**
 * What a pet's document keeps for the public catalogue (docs/rules.md §16), exactly as the domain
 * computed it (`PetEntry`, `PetEdit`): never folded or drawn here. Missing on a pet stored before
 * this version until the start-up backfill writes them (pet-backfill.mongo.ts).
 */
export interface PetSearchFields {
  /** The folded words of the name: a multikey array, the last key of the search indexes. */
  readonly words?: readonly string[];
  /** The folded name, the key of `sort=name`. */
  readonly nameKey?: string;
  /** The place on the shuffle circle (0 to 2^32 − 1), the key of `sort=random`. */
  readonly shuffleKey?: number;
}

/** One `find` of a list: its filter, its sort and the name of the index it is served from (its hint). */
interface PetListFind {
  readonly filter: Document;
  readonly sort: Readonly<Record<string, 1 | -1>>;
  readonly hint: string;
}

/** One value as itself (the plain list's query stays what it was), several as `$in`. */
const oneOf = <T>(values: readonly T[]): T | { $in: T[] } => (values.length === 1 ? values[0]! : { $in: [...values] });

/** "Not withdrawn": the three statuses a listed pet can have (a withdrawn pet's is `withdrawn`). */
const LISTED_STATUSES = PET_STATUSES as PetStatus[];

/** `value`, or a range of strings beginning with it (`prefixRange`: `high` absent when nothing is above). */
const prefixOf = (word: string): Document => {
  const { low, high } = prefixRange(word);
  return high === undefined ? { $gte: low } : { $gte: low, $lt: high };
};

/**
 * The equality part of every list filter: the statuses (those asked, or the three a listed pet
 * has, so no withdrawn pet is ever read), the category ids, and the words: each query word must
 * begin some word of the name (`$elemMatch` of its prefix's range, one element for both bounds).
 * The longest word (`drivingWord`) comes first: its range is the one an index bounds `words` with.
 */
const matchOf = (query: PetListQuery): Document => {
  const words = query.words;
  const driving = words === undefined ? undefined : drivingWord({ words });
  return {
    status: oneOf(query.statuses ?? LISTED_STATUSES),
    ...(query.categoryIds === undefined ? {} : { categoryId: oneOf(query.categoryIds) }),
    ...(words === undefined || driving === undefined
      ? {}
      : {
          words: {
            $all: [driving, ...words.filter((word) => word !== driving)].map((word) => ({
              $elemMatch: prefixOf(word),
            })),
          },
        }),
  };
};

/**
 * The rows after the position `(key, id)` of an order by `(field, _id)`, below `high` when the
 * range has a top: `field >= key` is the index range read (from the position on, in index order, so
 * the index gives the sort and the limit stops the read), and "`field > key`, or `_id > id`" drops
 * the rows of `key` at or before the position, checked on the index keys. No rooted `$or`: its
 * branches would be two reads the server must merge to sort, where this is one.
 */
const after = (match: Document, field: string, key: string | number, id: number, high?: number): Document => ({
  ...match,
  [field]: high === undefined ? { $gte: key } : { $gte: key, $lt: high },
  $or: [{ [field]: { $gt: key } }, { _id: { $gt: id } }],
});

/** The `find` of one shuffle range, from its low end or from the position in it. */
const shuffleFind = (
  match: Document,
  hint: string,
  range: ShuffleRange,
  position: { readonly key: number; readonly id: number } | undefined,
): PetListFind => ({
  filter:
    position === undefined
      ? { ...match, shuffleKey: { $gte: range.low, $lt: range.high } }
      : after(match, 'shuffleKey', position.key, position.id, range.high),
  sort: { shuffleKey: 1, _id: 1 },
  hint,
});

/**
 * The `find`s that serve a page of `query` (docs/rules.md §16), in the order they are read; the
 * caller reads the next one only while the page is short. Each is served by one declared index
 * (`petListIndex`, indexes.ts) in equality–sort–range order: the statuses and the category ids are
 * equalities on its leading keys (at most 3 × 20 ranges, merged in the order asked, so no sort
 * stage), the order's keys follow (read forwards, or backwards for `-id`), and the words come last,
 * bounded by the driving word's prefix and all checked on the index entries. Every order but
 * `random` is one `find`; `random` reads its first range (from the seed's start to the top of the
 * circle) and, on the page where that range runs out, its second (from the bottom to the start):
 * one more `find` on that page (and on the next, when the first range ended just after the last
 * pet shown: the page's position is still in it, so it is read, empty, before the second).
 */
export const petListQueries = (query: PetListQuery): readonly PetListFind[] => {
  const match = matchOf(query);
  const order = query.order;
  const sortName = order.sort === '-id' ? 'id' : order.sort;
  const hint = indexName(petListIndex(query.categoryIds !== undefined, sortName, query.words !== undefined));
  switch (order.sort) {
    case 'id':
      // `_id > 0` on the first page: the very query the plain list always sent.
      return [{ filter: { ...match, _id: { $gt: order.after ?? 0 } }, sort: { _id: 1 }, hint }];
    case '-id':
      return [
        {
          filter: order.after === undefined ? match : { ...match, _id: { $lt: order.after } },
          sort: { _id: -1 },
          hint,
        },
      ];
    case 'name':
      return [
        {
          // From the first string up (a pet without its name key, not yet backfilled, is in no name list).
          filter:
            order.after === undefined
              ? { ...match, nameKey: { $gte: '' } }
              : after(match, 'nameKey', order.after.key, order.after.id),
          sort: { nameKey: 1, _id: 1 },
          hint,
        },
      ];
    case 'random': {
      const [top, bottom] = shuffleRanges(order.start);
      const position = order.after;
      // A position below the start is in the second range: the first is behind it.
      if (position !== undefined && position.key < order.start) return [shuffleFind(match, hint, bottom, position)];
      const first = shuffleFind(match, hint, top, position);
      return bottom.high === bottom.low ? [first] : [first, shuffleFind(match, hint, bottom, undefined)];
    }
  }
};

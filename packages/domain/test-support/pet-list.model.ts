import fc from 'fast-check';
import type { CatalogSort, ListedPets, Pet, PetEntry, PetListQuery, PetOrder, PetStatus } from '../src/index.js';
import {
  CATALOG_SORTS,
  compareCodePoints,
  compareShuffled,
  foldText,
  nameMatches,
  PET_STATUSES,
  SEED_MAX,
  SHUFFLE_CIRCLE,
  shuffleStart,
} from '../src/index.js';
import { afterArb, type AfterPick } from './exact-page.js';

/** A listed pet as the list model holds it: the pet, and the search keys the store was given. */
export interface ListModelPet {
  readonly pet: Pet;
  readonly words: readonly string[];
  readonly nameKey: string;
  readonly shuffleKey: number;
}

/** The model row of a pet created from `entry` under `id`. */
export const listModelPet = (id: number, entry: PetEntry): ListModelPet => ({
  pet: { id, name: entry.name, categoryId: entry.categoryId, status: entry.status },
  words: entry.words,
  nameKey: entry.nameKey,
  shuffleKey: entry.shuffleKey,
});

/** The order of `order` over model rows: by the domain's comparators (code-point order, the shuffle circle), then id. */
export const modelOrder = (order: PetOrder): ((a: ListModelPet, b: ListModelPet) => number) => {
  switch (order.sort) {
    case 'id':
      return (a, b) => a.pet.id - b.pet.id;
    case '-id':
      return (a, b) => b.pet.id - a.pet.id;
    case 'name':
      return (a, b) => compareCodePoints(a.nameKey, b.nameKey) || a.pet.id - b.pet.id;
    case 'random': {
      const compare = compareShuffled(order.start);
      return (a, b) => compare({ key: a.shuffleKey, id: a.pet.id }, { key: b.shuffleKey, id: b.pet.id });
    }
  }
};

/** The row a position names, for the order's comparator (only the fields it compares). */
const positionRow = (order: PetOrder): ListModelPet | undefined => {
  const { after } = order;
  if (after === undefined) return undefined;
  const id = typeof after === 'number' ? after : after.id;
  return {
    pet: { id, name: '', categoryId: 0, status: 'available' },
    words: [],
    nameKey: typeof after === 'object' && typeof after.key === 'string' ? after.key : '',
    shuffleKey: typeof after === 'object' && typeof after.key === 'number' ? after.key : 0,
  };
};

/** Whether a row matches the query's filters (statuses, categories, words; each any of, words all). */
export const modelMatches = (row: ListModelPet, query: Omit<PetListQuery, 'order' | 'limit'>): boolean =>
  (query.statuses === undefined || query.statuses.includes(row.pet.status)) &&
  (query.categoryIds === undefined || query.categoryIds.includes(row.pet.categoryId)) &&
  (query.words === undefined || nameMatches(row.words, { words: query.words }));

/**
 * What `PetRepository.list(query)` answers over these rows (the listed pets): filtered, sorted by the
 * domain's comparators, cut after the position, the first `limit`; for `sort=random` with their
 * shuffle keys beside them.
 */
export const modelList = (rows: readonly ListModelPet[], query: PetListQuery): ListedPets => {
  const compare = modelOrder(query.order);
  const position = positionRow(query.order);
  const listed = rows
    .filter((row) => modelMatches(row, query) && (position === undefined || compare(row, position) > 0))
    .sort(compare)
    .slice(0, query.limit);
  const pets = listed.map((row) => row.pet);
  return query.order.sort === 'random' ? { pets, shuffleKeys: listed.map((row) => row.shuffleKey) } : { pets };
};

// ---- What the list properties generate: names that share words, queries over them, every order ----

/**
 * Names whose folded words meet: case, marks and compatibility forms fold together (`Réx`, `REX`,
 * `Ｒｅｘ`), words begin other words (`Bel`, `Bella`), separators of every kind cut them, scripts
 * and characters beyond U+FFFF sort by code point (`𝒜lpha` folds to `alpha`, `Zoë` after `zoe`).
 */
export const CATALOG_NAMES = [
  'Rex',
  'rex',
  'Réx',
  'REX the Second',
  'Old Rex',
  'Ｒｅｘ',
  'Bella',
  'Bel',
  'bella-rose',
  'Rose Bell',
  'Rex Rosie',
  'Bel Bella',
  'Renée',
  'Zoë',
  'zoe',
  'Ölaf',
  'Σίσυφος',
  '𝒜lpha',
  'alpha 2',
  '2 Alpha',
  'a',
  'B b',
  ' c ',
  'x'.repeat(200),
] as const;
/** Query words, folded as a checked `q` has them: beginnings of the names' folded words, and some that begin none. */
export const CATALOG_WORDS: readonly string[] = [
  'r',
  're',
  'rex',
  'rexy',
  'b',
  'bel',
  'bella',
  'rose',
  'old',
  'second',
  'ren',
  'renee',
  'zo',
  'zoe',
  'ola',
  'σι',
  'σισυφος',
  'alpha',
  '2',
  'a',
  'c',
  'x',
  'q',
].map(foldText);

export const catalogNameArb: fc.Arbitrary<string> = fc.constantFrom(...CATALOG_NAMES);
/** Categories 1…4: lists of them find something. */
export const catalogCategoryArb: fc.Arbitrary<number> = fc.integer({ min: 1, max: 4 });
/**
 * Shuffle keys: any, and the few around the start of seeds 0 and 1 (so that the circle's wrap and a
 * key at the start itself are met), with repeats (so that ties go to the id).
 */
export const shuffleKeyArb: fc.Arbitrary<number> = fc.oneof(
  fc.nat({ max: SHUFFLE_CIRCLE - 1 }),
  fc.constantFrom(
    0,
    1,
    SHUFFLE_CIRCLE - 1,
    ...[0, 1].flatMap((seed) => [-1, 0, 1].map((d) => (shuffleStart(seed) + d + SHUFFLE_CIRCLE) % SHUFFLE_CIRCLE)),
  ),
);
export const catalogSeedArb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, 1, SEED_MAX),
  fc.integer({ min: 0, max: SEED_MAX }),
);

/** A list query's parts, before its position is taken from the pets there are. */
export interface ListShape {
  readonly statuses: readonly PetStatus[] | undefined;
  readonly categoryIds: readonly number[] | undefined;
  readonly words: readonly string[] | undefined;
  readonly sort: CatalogSort;
  readonly seed: number;
  /** The start, or the position of a pet picked by index, its id moved by `offset` (a position no pet has). */
  readonly after: AfterPick;
  readonly limit: number;
}

/** `arb` half of the time, else absent: lists with and without each filter are both common. */
const sometimes = <T>(arb: fc.Arbitrary<T>, weight = 1): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: arb, weight });

export const listShapeArb: fc.Arbitrary<ListShape> = fc.record({
  statuses: sometimes(fc.uniqueArray(fc.constantFrom(...PET_STATUSES), { minLength: 1, maxLength: 3 }), 2),
  categoryIds: sometimes(
    fc.uniqueArray(fc.oneof(catalogCategoryArb, fc.constant(99)), { minLength: 1, maxLength: 3 }),
    2,
  ),
  // Most words find few names: a list with words is less common, so that pages are full often enough.
  words: sometimes(fc.array(fc.constantFrom(...CATALOG_WORDS), { minLength: 1, maxLength: 3 })),
  sort: fc.constantFrom(...CATALOG_SORTS),
  seed: catalogSeedArb,
  after: afterArb,
  limit: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 30 })),
});

/** The position of `row` in an order (the sort's own key and the id). */
export const positionIn = (order: PetOrder, row: ListModelPet, idOffset = 0): PetOrder => {
  const id = row.pet.id + idOffset;
  switch (order.sort) {
    case 'id':
    case '-id':
      return id <= 0 ? { sort: order.sort } : { sort: order.sort, after: id };
    case 'name':
      return { sort: 'name', after: { key: row.nameKey, id } };
    case 'random':
      return { sort: 'random', start: order.start, after: { key: row.shuffleKey, id } };
  }
};

/** The query of `shape`, its position taken from `rows` (every pet there ever was: a withdrawn pet's position is one too). */
export const queryOf = (shape: ListShape, rows: readonly ListModelPet[]): PetListQuery => {
  const start: PetOrder =
    shape.sort === 'random' ? { sort: 'random', start: shuffleStart(shape.seed) } : { sort: shape.sort };
  const picked = shape.after === null || rows.length === 0 ? undefined : rows[shape.after.pick % rows.length]!;
  return {
    order: picked === undefined ? start : positionIn(start, picked, shape.after!.offset),
    limit: shape.limit,
    ...(shape.statuses === undefined ? {} : { statuses: shape.statuses }),
    ...(shape.categoryIds === undefined ? {} : { categoryIds: shape.categoryIds }),
    ...(shape.words === undefined ? {} : { words: shape.words }),
  };
};

/**
 * What a list answer is compared by: each pet's fields, and, for `sort=random`, the shuffle key
 * answered beside it (a missing key shows as `undefined`).
 */
export const comparable = (query: PetListQuery, { pets, shuffleKeys }: ListedPets): object[] =>
  pets.map((row, i) => {
    const pet = { id: row.id, name: row.name, categoryId: row.categoryId, status: row.status };
    return query.order.sort === 'random' ? { ...pet, shuffleKey: shuffleKeys?.[i] } : pet;
  });

/**
 * The parameters the public catalogue (docs/rules.md §16) adds to `GET /v1/pets`, read from the query
 * string's text: `status` and `categoryId` as comma-separated lists, `q`, `sort`, `seed` and
 * `expand`. The HTTP adapter only reads the query string; every rule is checked here. `limit` and
 * `cursor` stay the pager's (`readPageRequest`).
 */
import { quoteInput, validationFailed, type ValidationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { isPetStatus, MAX_CATEGORY_ID, PET_STATUSES, type PetStatus } from './pet.js';
import { readNameQuery, type NameQuery } from './search.js';
import { SEED_MAX } from './shuffle.js';

/** The orders of a list: ascending id (the default), newest first, by folded name, shuffled by a seed. */
export const CATALOG_SORTS = ['id', '-id', 'name', 'random'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];
/** Most ids one `categoryId` lists. */
export const MAX_CATEGORY_IDS = 20;

/** The parameters as a query string holds them: text, or several texts for a parameter given more than once. */
export type CatalogQueryInput = Readonly<
  Partial<Record<'status' | 'categoryId' | 'q' | 'sort' | 'seed' | 'expand', string | readonly string[]>>
>;

/**
 * A checked list request (besides `limit` and `cursor`). Every field is always there (`undefined`
 * when not asked), so every query has the one shape and reading one costs the same everywhere.
 */
export interface CatalogQuery {
  /** Distinct statuses in the order of `PET_STATUSES` (one listing, however they were written); `undefined`: any. */
  readonly statuses: readonly PetStatus[] | undefined;
  /** Distinct category ids, ascending; `undefined`: any. */
  readonly categoryIds: readonly number[] | undefined;
  readonly q: NameQuery | undefined;
  readonly order:
    { readonly sort: Exclude<CatalogSort, 'random'> } | { readonly sort: 'random'; readonly seed: number };
  /** `expand=photos`: each pet of the page carries its photos. */
  readonly expandPhotos: boolean;
}

type Read<T> = Result<T, ValidationFailed>;
type Parameter = keyof CatalogQueryInput;

/** A parameter read by `read` when present (`undefined` when absent); one given more than once is refused. */
const optional = <T>(
  input: CatalogQueryInput,
  name: Parameter,
  read: (text: string) => Read<T>,
  hint = '',
): Read<T | undefined> => {
  const value = input[name];
  if (value === undefined) return ok(undefined);
  if (typeof value !== 'string') return fail(validationFailed(name, `${name} must be given at most once${hint}`));
  return read(value);
};
const LIST_HINT = ' (several values go in one, separated by commas)';

const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;
const CANONICAL_SEED = /^(?:0|[1-9][0-9]{0,9})$/;

const STATUS_RULE = `status must be one of ${PET_STATUSES.join(', ')}, or several of them separated by commas`;
const CATEGORY_RULE = `categoryId must be a positive integer from 1 to ${MAX_CATEGORY_ID}, written without sign, leading zeros or fraction, or up to ${MAX_CATEGORY_IDS} of them separated by commas`;
const SEED_RULE = `an integer from 0 to ${SEED_MAX}`;

/**
 * A comma-separated list of distinct items, each read by `item` (`undefined`: not valid, refused with
 * `rule`), at most `max` of them. Splitting stops after `max + 1` items, so a long text costs no more.
 */
const readList = <T>(
  name: Parameter,
  text: string,
  item: (text: string) => T | undefined,
  rule: string,
  max: number,
): Read<T[]> => {
  const items = text.split(',', max + 1);
  const values: T[] = [];
  for (const raw of items) {
    if (raw === '')
      return fail(
        validationFailed(name, `${name} has an empty item: separate values by one comma, with none at either end`),
      );
    const value = item(raw);
    if (value === undefined) return fail(validationFailed(name, `${rule} (got '${quoteInput(raw)}')`));
    if (values.includes(value)) return fail(validationFailed(name, `${name} lists '${quoteInput(raw)}' twice`));
    values.push(value);
  }
  if (items.length > max) return fail(validationFailed(name, `${name} lists more than ${max} values`));
  return ok(values);
};

const readStatuses = (text: string): Read<PetStatus[]> => {
  const read = readList(
    'status',
    text,
    (raw) => (isPetStatus(raw) ? raw : undefined),
    STATUS_RULE,
    PET_STATUSES.length,
  );
  return read.ok ? ok(PET_STATUSES.filter((status) => read.value.includes(status))) : read;
};

const readCategoryIds = (text: string): Read<number[]> => {
  const id = (raw: string): number | undefined => {
    const value = CANONICAL_ID.test(raw) ? Number(raw) : 0;
    return value >= 1 && value <= MAX_CATEGORY_ID ? value : undefined;
  };
  const read = readList('categoryId', text, id, CATEGORY_RULE, MAX_CATEGORY_IDS);
  return read.ok ? ok(read.value.sort((a, b) => a - b)) : read;
};

const readSort = (text: string): Read<CatalogSort> =>
  (CATALOG_SORTS as readonly string[]).includes(text)
    ? ok(text as CatalogSort)
    : fail(validationFailed('sort', `sort must be one of ${CATALOG_SORTS.join(', ')} (got '${quoteInput(text)}')`));

const readSeed = (text: string): Read<number> => {
  const seed = CANONICAL_SEED.test(text) ? Number(text) : -1;
  return seed >= 0 && seed <= SEED_MAX
    ? ok(seed)
    : fail(
        validationFailed(
          'seed',
          `seed must be ${SEED_RULE}, without sign or leading zeros (got '${quoteInput(text)}')`,
        ),
      );
};

const readExpand = (text: string): Read<true> =>
  text === 'photos'
    ? ok(true)
    : fail(validationFailed('expand', `expand takes one value, photos (got '${quoteInput(text)}')`));

/**
 * Checks the list parameters of the public catalogue (docs/rules.md §16), each in turn: `status`,
 * `categoryId`, `q`, `sort`, `seed`, `expand`, then whether `sort` and `seed` go together. The
 * first broken rule is refused, naming its parameter and quoting at most 64 characters of what was
 * sent (docs/rules.md §3). An absent parameter is no filter; one given more than once is refused.
 */
export const readCatalogQuery = (input: CatalogQueryInput): Read<CatalogQuery> => {
  const statuses = optional(input, 'status', readStatuses, LIST_HINT);
  if (!statuses.ok) return statuses;
  const categoryIds = optional(input, 'categoryId', readCategoryIds, LIST_HINT);
  if (!categoryIds.ok) return categoryIds;
  const q = optional(input, 'q', readNameQuery);
  if (!q.ok) return q;
  const sort = optional(input, 'sort', readSort);
  if (!sort.ok) return sort;
  const seed = optional(input, 'seed', readSeed);
  if (!seed.ok) return seed;
  const expand = optional(input, 'expand', readExpand);
  if (!expand.ok) return expand;
  let order: CatalogQuery['order'];
  if (sort.value === 'random') {
    if (seed.value === undefined) return fail(validationFailed('seed', `sort=random needs a seed: ${SEED_RULE}`));
    order = { sort: 'random', seed: seed.value };
  } else {
    if (seed.value !== undefined) return fail(validationFailed('seed', 'seed is taken only with sort=random'));
    order = { sort: sort.value ?? 'id' };
  }
  return ok({
    statuses: statuses.value,
    categoryIds: categoryIds.value,
    q: q.value,
    order,
    expandPhotos: expand.value === true,
  });
};

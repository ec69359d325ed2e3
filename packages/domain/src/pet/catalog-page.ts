/**
 * Paging the public catalogue (docs/rules.md §2, §16): the scope a `GET /v1/pets` cursor is bound
 * to, the order and position a cursor gives the store, and the cursor of a page's last pet. A plain
 * list (ascending id, no new parameter) keeps the scope and the cursor it always had.
 */
import type { ValidationFailed } from '../errors.js';
import { ok, type Result } from '../result.js';
import { keyedCursorBound, pageScope, type KeyedPosition } from '../pagination/cursor.js';
import {
  assembleKeyedPage,
  assemblePage,
  byId,
  readKeyedPageRequest,
  readPageRequest,
  type Page,
  type PageInput,
} from '../pagination/page.js';
import type { ListedPets, PetOrder } from '../ports/pet-repository.port.js';
import type { CatalogQuery } from './catalog-query.js';
import { foldText } from './fold.js';
import { NAME_MAX_LENGTH, type Pet } from './pet.js';
import { SHUFFLE_CIRCLE, shuffleStart } from './shuffle.js';

/**
 * The longest cursor of `GET /v1/pets`: a name sort's, which holds a name of up to 200 characters
 * of up to 4 UTF-8 bytes each (an id order's cursor stays within 64).
 */
export const MAX_PETS_CURSOR_LENGTH = keyedCursorBound(NAME_MAX_LENGTH * 4);

/** A list as its parameter writes it, comma-separated (a single value as it is: the plain list's case). */
const listText = (list: readonly (string | number)[] | undefined): string | number | undefined =>
  list === undefined ? undefined : list.length === 1 ? list[0] : list.join(',');

/**
 * The scope of a listing of pets: its filters, `q` (its folded words: `q=Rex` and `q=rex` are one
 * listing), `sort` when not `id`, and `seed`. Lists are written canonically (statuses in their
 * order, ids ascending, as `readCatalogQuery` gives them); `expand` changes no position, so it is left out.
 */
export const catalogScope = (query: CatalogQuery): string => {
  const status = listText(query.statuses);
  const categoryId = listText(query.categoryIds);
  // A plain list's scope is built from its two filters only, as it always was.
  if (query.q === undefined && query.order.sort === 'id') return pageScope('pets', { status, categoryId });
  return pageScope('pets', {
    status,
    categoryId,
    q: query.q?.words.join(' '),
    sort: query.order.sort === 'id' ? undefined : query.order.sort,
    seed: query.order.sort === 'random' ? query.order.seed : undefined,
  });
};

const CANONICAL_SHUFFLE_KEY = /^(?:0|[1-9][0-9]{0,9})$/;
const isShuffleKey = (key: string): boolean => CANONICAL_SHUFFLE_KEY.test(key) && Number(key) < SHUFFLE_CIRCLE;

/** What a page asks the store for: the page size and the order with its position (from `cursor`). */
export interface CatalogPageRequest {
  readonly limit: number;
  readonly order: PetOrder;
}

/** Checks `limit` and `cursor` for the listing of `query` (bound to `scope`), and gives the order to read. */
export const readCatalogPage = (
  input: PageInput,
  query: CatalogQuery,
  scope: string,
): Result<CatalogPageRequest, ValidationFailed> => {
  const { order } = query;
  if (order.sort === 'id' || order.sort === '-id') {
    const request = readPageRequest(input, scope);
    if (!request.ok) return request;
    const { limit, afterId } = request.value;
    return ok({ limit, order: afterId === 0 ? { sort: order.sort } : { sort: order.sort, after: afterId } });
  }
  if (order.sort === 'random') {
    const request = readKeyedPageRequest(input, scope, MAX_PETS_CURSOR_LENGTH, (after) => isShuffleKey(after.key));
    if (!request.ok) return request;
    const { limit, after } = request.value;
    const start = shuffleStart(order.seed);
    return ok({
      limit,
      order:
        after === undefined
          ? { sort: 'random', start }
          : { sort: 'random', start, after: { key: Number(after.key), id: after.id } },
    });
  }
  const request = readKeyedPageRequest(input, scope, MAX_PETS_CURSOR_LENGTH, () => true);
  if (!request.ok) return request;
  const { limit, after } = request.value;
  // A name sort's cursor holds the name: the store's position is its fold.
  return ok({
    limit,
    order: after === undefined ? { sort: 'name' } : { sort: 'name', after: { key: foldText(after.key), id: after.id } },
  });
};

/** A name sort's position: the name (folded again when the cursor is read). */
const namePosition = (pet: Pet): KeyedPosition => ({ key: pet.name, id: pet.id });

/**
 * A shuffle's position: the shuffle key of the pet at `index`, which the store answers beside each
 * pet of a `sort=random` list. Keys that do not line up with the pets (fewer or more) break the port.
 */
const shufflePosition =
  ({ pets, shuffleKeys }: ListedPets) =>
  (pet: Pet, index: number): KeyedPosition => {
    const key = shuffleKeys?.length === pets.length ? shuffleKeys[index] : undefined;
    if (key === undefined)
      throw new Error(
        `the store listed pet ${pet.id} in sort=random without its shuffle key (${shuffleKeys?.length ?? 'no'} keys for ${pets.length} pets)`,
      );
    return { key: String(key), id: pet.id };
  };

/**
 * The page of `rows` (at most `limit + 1` pets, as the store answered them), with the cursor of the
 * next when more follow. Its items are the store's pets, as they are.
 */
export const assembleCatalogPage = (rows: ListedPets, limit: number, query: CatalogQuery, scope: string): Page<Pet> => {
  switch (query.order.sort) {
    case 'id':
    case '-id':
      return assemblePage(rows.pets, limit, scope, byId);
    case 'name':
      return assembleKeyedPage(rows.pets, limit, scope, namePosition);
    case 'random':
      return assembleKeyedPage(rows.pets, limit, scope, shufflePosition(rows));
  }
};

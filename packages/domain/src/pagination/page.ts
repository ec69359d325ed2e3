import type { ValidationFailed } from '../errors.js';
import { validationFailed } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import { decodeCursor, decodeKeyedCursor, encodeCursor, encodeKeyedCursor, type KeyedPosition } from './cursor.js';
import { isValidLimit, LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from './limit.js';

/**
 * The one pager of every list (pets, categories, orders, keys): the same `limit` rule, the same
 * opaque cursor bound to the listing's scope, the same page assembly from `limit + 1` rows.
 */

/** One page of a listing: at most `limit` items, and the cursor of the next page when one exists. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Present only when more matching items exist after this page. */
  readonly nextCursor?: string;
}

/** What a list request asks for, as the client sent it (each field checked here, whatever its type). */
export interface PageInput {
  readonly limit?: unknown;
  readonly cursor?: unknown;
}

/** A checked page request: the page size, and the position the page starts after (0: the start). */
export interface PageRequest {
  readonly limit: number;
  readonly afterId: number;
}

const readLimit = (input: PageInput): Result<number, ValidationFailed> => {
  const limit = input.limit === undefined ? LIMIT_DEFAULT : input.limit;
  return isValidLimit(limit)
    ? ok(limit)
    : fail(validationFailed('limit', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`));
};

const cursorRefused = (): ValidationFailed =>
  validationFailed(
    'cursor',
    'cursor was not issued by this listing (another list or other filters), or it was altered',
  );

/** Checks `limit` (default 20, 1–100) and `cursor` (made by this listing, unaltered). */
export const readPageRequest = (input: PageInput, scope: string): Result<PageRequest, ValidationFailed> => {
  const limit = readLimit(input);
  if (!limit.ok) return limit;
  if (input.cursor === undefined) return ok({ limit: limit.value, afterId: 0 });
  const afterId = typeof input.cursor === 'string' ? decodeCursor(input.cursor, scope) : undefined;
  return afterId === undefined ? fail(cursorRefused()) : ok({ limit: limit.value, afterId });
};

/** A checked page request of a keyed order: the page size, and the position the page starts after (absent: the start). */
export interface KeyedPageRequest {
  readonly limit: number;
  readonly after?: KeyedPosition;
}

/**
 * `readPageRequest` for a listing whose positions are keyed (`encodeKeyedCursor`): a cursor at most
 * `maxLength` long, made by this listing; `accept` says whether its key is one this listing issues
 * (a cursor that passes the checksum but holds another key is refused like an altered one).
 */
export const readKeyedPageRequest = (
  input: PageInput,
  scope: string,
  maxLength: number,
  accept: (position: KeyedPosition) => boolean,
): Result<KeyedPageRequest, ValidationFailed> => {
  const limit = readLimit(input);
  if (!limit.ok) return limit;
  if (input.cursor === undefined) return ok({ limit: limit.value });
  const after = typeof input.cursor === 'string' ? decodeKeyedCursor(input.cursor, scope, maxLength) : undefined;
  return after === undefined || !accept(after) ? fail(cursorRefused()) : ok({ limit: limit.value, after });
};

/**
 * Builds a page from the result of a query that asked for `limit + 1` rows: the extra row only
 * says that a next page exists, so no second query (and no count) is needed. `positionOf` gives
 * the ascending position a row is listed by (its id, for most lists).
 */
export const assemblePage = <T>(
  rows: readonly T[],
  limit: number,
  scope: string,
  positionOf: (item: T) => number,
): Page<T> => {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1]!), scope) };
};

/** `assemblePage` for a keyed listing: the next cursor holds `positionOf` the page's last row (and its index in `rows`). */
export const assembleKeyedPage = <T>(
  rows: readonly T[],
  limit: number,
  scope: string,
  positionOf: (item: T, index: number) => KeyedPosition,
): Page<T> => {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  const last = items.length - 1;
  return { items, nextCursor: encodeKeyedCursor(positionOf(items[last]!, last), scope) };
};

/** The position of a row listed by its numeric id. */
export const byId = (item: { readonly id: number }): number => item.id;

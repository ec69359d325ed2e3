import type { Pet, PetStatus } from '../pet/pet.js';
import { encodeCursor } from './cursor.js';

/** One page of a listing: at most `limit` pets, and the cursor of the next page when one exists. */
export interface Page {
  readonly items: readonly Pet[];
  /** Present only when more matching pets exist after this page. */
  readonly nextCursor?: string;
}

/**
 * Builds a page from the result of a query that asked for `limit + 1` rows: the extra row only
 * says that a next page exists, so no second query (and no count) is needed.
 */
export const assemblePage = (rows: readonly Pet[], limit: number, status: PetStatus | undefined): Page => {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1]!;
  return { items, nextCursor: encodeCursor({ afterId: last.id, status }) };
};

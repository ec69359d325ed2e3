import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';
import { guard } from './errors.js';

/** The collections of one petstore database. */
export const COLLECTIONS = {
  pets: 'pets',
  /** One document per category: `{ _id, name, key }`, `key` the name's `categoryNameKey`. */
  categories: 'categories',
  /** One document per rate-limited subject. */
  quotas: 'quota_subjects',
  apiKeys: 'api_keys',
} as const;

export interface IndexDefinition {
  readonly collection: string;
  readonly key: IndexSpecification;
  readonly options: CreateIndexesOptions & { readonly name: string };
}

/**
 * Every secondary index, as data. Lookups by pet id (and the highest id, for the next one), subject and key hash use `_id`.
 * - `pets {status, _id}` serves "status = X and _id > cursor, ascending, limit N+1" from the index alone
 *   (the unfiltered list walks `_id`), and counts per status (the inventory).
 * - `pets {categoryId, _id}` and `pets {status, categoryId, _id}` serve the category filter, alone and
 *   with the status filter, the same way.
 * - `categories {key}`, unique: one category per name (NFC, lower case), also across processes.
 * - `quota_subjects {expireAt}` with `expireAfterSeconds: 0` lets the server delete a subject's state
 *   once its day has ended and no ban runs (`expireAt` is set on every update).
 */
export const MONGO_INDEXES: readonly IndexDefinition[] = [
  { collection: COLLECTIONS.pets, key: { status: 1, _id: 1 }, options: { name: 'status_1__id_1' } },
  { collection: COLLECTIONS.pets, key: { categoryId: 1, _id: 1 }, options: { name: 'categoryId_1__id_1' } },
  { collection: COLLECTIONS.pets, key: { status: 1, categoryId: 1, _id: 1 }, options: { name: 'status_1_categoryId_1__id_1' } },
  { collection: COLLECTIONS.categories, key: { key: 1 }, options: { name: 'key_1', unique: true } },
  { collection: COLLECTIONS.quotas, key: { expireAt: 1 }, options: { name: 'expireAt_1', expireAfterSeconds: 0 } },
];

/** Creates the indexes; a no-op when they exist, so every process may run it at every start. */
export const ensureIndexes = (db: Db): Promise<void> =>
  guard(async () => {
    for (const index of MONGO_INDEXES) await db.collection(index.collection).createIndex(index.key, index.options);
  }, 'createIndexes');

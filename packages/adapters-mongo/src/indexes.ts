import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';
import { guard } from './errors.js';

/** The collections of one petstore database. */
export const COLLECTIONS = {
  pets: 'pets',
  /** One document per rate-limited subject. */
  quotas: 'quota_subjects',
  apiKeys: 'api_keys',
  /** One document per (API key, Idempotency-Key): the kept answer or the claim in progress. */
  idempotency: 'idempotency_keys',
} as const;

export interface IndexDefinition {
  readonly collection: string;
  readonly key: IndexSpecification;
  readonly options: CreateIndexesOptions & { readonly name: string };
}

/**
 * Every secondary index, as data. Lookups by pet id (and the highest id, for the next one), subject and key hash use `_id`.
 * - `pets {status, _id}` serves "status = X and _id > cursor, ascending, limit N+1" from the index alone
 *   (the unfiltered list walks `_id`).
 * - `quota_subjects {expireAt}` with `expireAfterSeconds: 0` lets the server delete a subject's state
 *   once its day has ended and no ban runs (`expireAt` is set on every update).
 * - `idempotency_keys {expiresAt}` with `expireAfterSeconds: 0`: a kept answer goes 24 h after it
 *   was given, a claim left by a process that died mid-request when its lease ends.
 */
export const MONGO_INDEXES: readonly IndexDefinition[] = [
  { collection: COLLECTIONS.pets, key: { status: 1, _id: 1 }, options: { name: 'status_1__id_1' } },
  { collection: COLLECTIONS.quotas, key: { expireAt: 1 }, options: { name: 'expireAt_1', expireAfterSeconds: 0 } },
  { collection: COLLECTIONS.idempotency, key: { expiresAt: 1 }, options: { name: 'expiresAt_1', expireAfterSeconds: 0 } },
];

/** Creates the indexes; a no-op when they exist, so every process may run it at every start. */
export const ensureIndexes = (db: Db): Promise<void> =>
  guard(async () => {
    for (const index of MONGO_INDEXES) await db.collection(index.collection).createIndex(index.key, index.options);
  });

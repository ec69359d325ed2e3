import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';
import { guard, upsertWithRetry } from './errors.js';
import { OUTBOX_INDEX } from './outbox.mongo.js';

/** The collections of one petstore database. */
export const COLLECTIONS = {
  pets: 'pets',
  /** One document per category: `{ _id, name, key }`, `key` the name's `categoryNameKey`. */
  categories: 'categories',
  /** One document per rate-limited subject. */
  quotas: 'quota_subjects',
  apiKeys: 'api_keys',
  orders: 'orders',
  /** Counters handing out ids (`{ _id: 'orders', value }`). */
  counters: 'counters',
  /** One document per (API key, Idempotency-Key): the kept answer or the claim in progress. */
  idempotency: 'idempotency_keys',
  /** One record per photo (docs/rules.md §13): `uploading` until published, then `ready`; a removed photo with a creation token stays, `deleted` (§10). */
  photos: 'photos',
  /** One document per pet with photos: the ids holding its places (at most 12). */
  photoPlaces: 'photo_places',
  /** The feed of docs/rules.md §15: one document per event, `_id` = its sequence, `id` its event id (unique). */
  events: 'events',
  /** The relay's lease: one document `{ _id: 'relay', holder, until }`. */
  eventRelay: 'event_relay',
  /** The webhook subscriptions of docs/rules.md §15: one document per subscription, `_id` its id, its lease and log counter on it (a removed one stays as a tombstone). */
  webhooks: 'webhooks',
  /** The subscriptions' deliveries logs: one document per attempt, `_id` `<webhook id>:<number>`. */
  webhookDeliveries: 'webhook_deliveries',
} as const;

/** The collections whose documents carry outboxes (docs/rules.md §15), by the kind of resource; keys are found by `publicId`. */
export const OUTBOX_COLLECTIONS = {
  pet: { collection: COLLECTIONS.pets, key: '_id' },
  category: { collection: COLLECTIONS.categories, key: '_id' },
  order: { collection: COLLECTIONS.orders, key: '_id' },
  photo: { collection: COLLECTIONS.photos, key: '_id' },
  key: { collection: COLLECTIONS.apiKeys, key: 'publicId' },
} as const;

/** The GridFS bucket of the photos' bytes (collections `photos.files` and `photos.chunks`). */
export const PHOTO_BUCKET = 'photos';

export interface IndexDefinition {
  readonly collection: string;
  readonly key: IndexSpecification;
  readonly options: CreateIndexesOptions & { readonly name: string };
}

/** The name MongoDB gives an index by default (`status_1__id_1`): the one each list query hints. */
export const indexName = (key: Readonly<Record<string, 1 | -1>>): string =>
  Object.entries(key)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');

/** The keys of a pet list's index: whether it filters by category, its order's keys, whether it searches words. */
export const petListIndex = (
  category: boolean,
  order: 'id' | 'name' | 'random',
  words: boolean,
): Readonly<Record<string, 1>> => ({
  status: 1,
  ...(category ? { categoryId: 1 } : {}),
  ...(order === 'name' ? { nameKey: 1 } : order === 'random' ? { shuffleKey: 1 } : {}),
  _id: 1,
  ...(words ? { words: 1 } : {}),
});

/** Every index a pet list is served from (see `MONGO_INDEXES`): the two filters by the three orders, without and with words. */
const PET_LIST_INDEXES: readonly Readonly<Record<string, 1>>[] = [
  { status: 1, _id: 1 },
  { status: 1, categoryId: 1, _id: 1 },
  { status: 1, nameKey: 1, _id: 1 },
  { status: 1, categoryId: 1, nameKey: 1, _id: 1 },
  { status: 1, shuffleKey: 1, _id: 1 },
  { status: 1, categoryId: 1, shuffleKey: 1, _id: 1 },
  { status: 1, _id: 1, words: 1 },
  { status: 1, categoryId: 1, _id: 1, words: 1 },
  { status: 1, nameKey: 1, _id: 1, words: 1 },
  { status: 1, categoryId: 1, nameKey: 1, _id: 1, words: 1 },
  { status: 1, shuffleKey: 1, _id: 1, words: 1 },
  { status: 1, categoryId: 1, shuffleKey: 1, _id: 1, words: 1 },
];

/**
 * Every secondary index, as data. Lookups by pet id (and the highest id, for the next one), subject and key hash use `_id`.
 * - `pets {status, _id}` serves "status = X and _id > cursor, ascending, limit N+1" from the index alone,
 *   and counts per status (the inventory). The list without a status filter asks for the three
 *   statuses a listed pet has (a withdrawn pet's is `withdrawn`): three ranges of the same index,
 *   merged in `_id` order, so withdrawn pets are never read, and a page is never filtered after its query.
 * - `pets {status, categoryId, _id}` serves the category filter, with a status or with the three, the same way.
 *   (A `{categoryId, _id}` index served the category filter alone before withdrawals; it is no longer
 *   used and no longer created. A database that has it keeps it, unused: drop it at leisure.)
 *   Both, read backwards, serve `sort=-id` (docs/rules.md §16); several statuses or category ids
 *   (`$in`) are merged the same way: at most 3 × 20 ranges, in the order asked.
 * - The other orders of docs/rules.md §16, each with the same two equality prefixes, in
 *   equality–sort–range order (`PET_LIST_INDEXES`): `pets {status, [categoryId], nameKey, _id}` serves
 *   `sort=name` (the folded name, then id; the page's position is a range on those two keys), and
 *   `pets {status, [categoryId], shuffleKey, _id}` serves `sort=random` (two ranges of the key, read
 *   one after the other: from the seed's start to the top, then from the bottom to the start).
 * - Name search: each of those six with the folded words last, `{…, words}` (multikey: one entry per
 *   word of the pet). The range of the longest query word's prefix bounds `words` inside each
 *   (status, category, sort key) entry, so the list walks the order and checks every query word
 *   from the index entries; only pets whose words match are read.
 * - `categories {key}`, unique: one category per name (NFC, lower case), also across processes.
 * - `orders {owner, _id}` serves an owner's list ("owner = K and _id > cursor, ascending"), filtered
 *   by state on the way; `orders {owner, state, _id}` and `orders {state, _id}` serve the status
 *   filter (one owner's, or every owner's for an admin) with `$in` over the states of a status.
 * - `quota_subjects {expireAt}` with `expireAfterSeconds: 0` lets the server delete a subject's state
 *   once its day has ended and no ban runs (`expireAt` is set on every update).
 * - `api_keys {publicId}` (unique) finds a key by its public id for the admin API and refuses a second key with the same one.
 * - `api_keys {position}` (unique) serves the key list in order and makes `max + 1` position assignment safe between processes.
 *   Both are sparse: records written before the admin API lack the fields until the next start seeds them.
 * - `idempotency_keys {expiresAt}` with `expireAfterSeconds: 0`: a kept answer goes 24 h after it
 *   was given, a claim (and its creation token) 24 h after the key's first claim.
 * - `pets {token}`, `categories {token}`, `orders {token}` (unique, sparse): the creation token of a
 *   create under an `Idempotency-Key` (docs/rules.md §10), written with the document it creates; the
 *   database itself keeps one resource per token, across processes and late writes. Sparse: a
 *   document created without a key has no token and no index entry.
 * - `photos {token}` (unique, sparse): the same for a photo upload, written by the `publish` that makes it `ready`.
 * - `photos {petId, _id}` serves a pet's photos in id order; `photos {state, startedAt}` serves the
 *   start-up sweep's "uploads never published, started before" (GridFS creates its own indexes).
 * - `{outboxSince}` on pets, categories, orders, photos and api_keys, partial (only documents that
 *   have the field): the documents whose outbox holds events not yet in the feed (docs/rules.md §15),
 *   oldest first, which the relay scans; small however large the collection, as entries leave within a second.
 * - `events {id}` (unique): an event id is in the feed once (the relay's `append` relies on it, beside
 *   the unique `_id` = sequence); `events {type, _id}` serves a feed read filtered by types (one range
 *   per type, merged in sequence order).
 * - `webhooks {position}` (unique) serves the subscription list in order (positions come from a
 *   counter, so the index only guards them); `webhook_deliveries {webhook, number}` serves a log read
 *   newest first and the trim of its oldest attempts. Neither is needed for correctness.
 */
export const MONGO_INDEXES: readonly IndexDefinition[] = [
  ...PET_LIST_INDEXES.map((key) => ({ collection: COLLECTIONS.pets, key, options: { name: indexName(key) } })),
  { collection: COLLECTIONS.categories, key: { key: 1 }, options: { name: 'key_1', unique: true } },
  { collection: COLLECTIONS.pets, key: { token: 1 }, options: { name: 'token_1', unique: true, sparse: true } },
  { collection: COLLECTIONS.categories, key: { token: 1 }, options: { name: 'token_1', unique: true, sparse: true } },
  { collection: COLLECTIONS.orders, key: { token: 1 }, options: { name: 'token_1', unique: true, sparse: true } },
  { collection: COLLECTIONS.orders, key: { owner: 1, _id: 1 }, options: { name: 'owner_1__id_1' } },
  { collection: COLLECTIONS.orders, key: { owner: 1, state: 1, _id: 1 }, options: { name: 'owner_1_state_1__id_1' } },
  { collection: COLLECTIONS.orders, key: { state: 1, _id: 1 }, options: { name: 'state_1__id_1' } },
  { collection: COLLECTIONS.quotas, key: { expireAt: 1 }, options: { name: 'expireAt_1', expireAfterSeconds: 0 } },
  {
    collection: COLLECTIONS.apiKeys,
    key: { publicId: 1 },
    options: { name: 'publicId_1', unique: true, sparse: true },
  },
  {
    collection: COLLECTIONS.apiKeys,
    key: { position: 1 },
    options: { name: 'position_1', unique: true, sparse: true },
  },
  // The origins of publishable keys, for CORS preflights (docs/rules.md §16): only those keys have the field.
  { collection: COLLECTIONS.apiKeys, key: { origins: 1 }, options: { name: 'origins_1', sparse: true } },
  {
    collection: COLLECTIONS.idempotency,
    key: { expiresAt: 1 },
    options: { name: 'expiresAt_1', expireAfterSeconds: 0 },
  },
  { collection: COLLECTIONS.photos, key: { petId: 1, _id: 1 }, options: { name: 'petId_1__id_1' } },
  { collection: COLLECTIONS.photos, key: { state: 1, startedAt: 1 }, options: { name: 'state_1_startedAt_1' } },
  { collection: COLLECTIONS.photos, key: { token: 1 }, options: { name: 'token_1', unique: true, sparse: true } },
  ...Object.values(OUTBOX_COLLECTIONS).map(({ collection }) => ({
    collection,
    key: OUTBOX_INDEX.key,
    options: { name: OUTBOX_INDEX.name, partialFilterExpression: OUTBOX_INDEX.partialFilterExpression },
  })),
  { collection: COLLECTIONS.events, key: { id: 1 }, options: { name: 'id_1', unique: true } },
  { collection: COLLECTIONS.events, key: { type: 1, _id: 1 }, options: { name: 'type_1__id_1' } },
  { collection: COLLECTIONS.webhooks, key: { position: 1 }, options: { name: 'position_1', unique: true } },
  {
    collection: COLLECTIONS.webhookDeliveries,
    key: { webhook: 1, number: 1 },
    options: { name: 'webhook_1_number_1' },
  },
];

/** The counters that hand out ids, as `{ _id: name }` documents in `COLLECTIONS.counters`. */
export const COUNTERS = { orders: 'orders', photos: 'photos', webhooks: 'webhooks' } as const;

/**
 * Creates the indexes, and the id counters when missing (at start, before any request, so that
 * requests only ever `$inc` an existing document); a no-op when they exist, so every process may
 * run it at every start.
 */
export const ensureIndexes = (db: Db): Promise<void> =>
  guard(async () => {
    for (const index of MONGO_INDEXES) await db.collection(index.collection).createIndex(index.key, index.options);
    const counters = db.collection<{ _id: string; value: number }>(COLLECTIONS.counters);
    for (const name of Object.values(COUNTERS)) {
      await upsertWithRetry(
        () => counters.updateOne({ _id: name }, { $setOnInsert: { value: 0 } }, { upsert: true }),
        `update on ${COLLECTIONS.counters}`,
      );
    }
  }, 'createIndexes');

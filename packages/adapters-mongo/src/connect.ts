import { randomBytes } from 'node:crypto';
import type { Random, StorePorts } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { ApiKeyStoreMongo } from './api-key-store.mongo.js';
import { CategoryRepositoryMongo } from './category-repository.mongo.js';
import { IdempotencyStoreMongo } from './idempotency-store.mongo.js';
import { classifyMongoError } from './errors.js';
import { COLLECTIONS, ensureIndexes } from './indexes.js';
import { PetRepositoryMongo } from './pet-repository.mongo.js';
import { OrderRepositoryMongo } from './order-repository.mongo.js';
import { QuotaStoreMongo } from './quota-store.mongo.js';
import { PhotoStoreMongo } from './photo-store.mongo.js';
import { EventStoreMongo } from './event-store.mongo.js';
import { WebhookStoreMongo } from './webhook-store.mongo.js';
import { backfillPetSearchKeys } from './pet-backfill.mongo.js';
import { MongoOutbox } from './outbox.mongo.js';
import { resolveMongoSettings } from './settings.js';
import { PhotoUrlSecretStoreMongo } from './photo-url-secret-store.mongo.js';

export interface ConnectMongoOptions {
  /** The database to use instead of the one the connection string names (else `petstore`). */
  readonly database?: string;
  /** Where the start-up backfill draws the shuffle keys of pets stored before them (the composition root's `Random`); else the system's CSPRNG. */
  readonly random?: Random;
}

const systemRandom: Random = { bytes: (length) => randomBytes(length) };

/** The stores on one MongoDB connection pool, for the composition root. */
export interface MongoStores extends StorePorts {
  /** The database in use and the hosts (no credentials): for the start-up log line. */
  readonly database: string;
  readonly endpoint: string;
  /** The photos (docs/rules.md §13): records, GridFS bytes and places. Not in `StorePorts`: the photo library takes it on its own. */
  readonly photos: PhotoStoreMongo;
  /** The events (docs/rules.md §15): the outboxes the repositories above fill, and the feed. */
  readonly events: EventStoreMongo;
  /** The webhook subscriptions, their leases and deliveries logs (docs/rules.md §15). Not in `StorePorts`: the webhook use cases take it on their own. */
  readonly webhooks: WebhookStoreMongo;
  /** The signing secret of the photo URLs (docs/rules.md §16), one per database. */
  readonly photoUrlSecrets: PhotoUrlSecretStoreMongo;
  /**
   * True when the database does what the stores need, within a bounded wait; never throws (for
   * `/readyz`). Not just a ping: one conditional upsert with `$inc` on a probe document of the
   * quota collection (the kind of write every request makes), so a server that answers but
   * refuses such writes (read-only, no write permission, an engine without them) is not ready.
   */
  isReady(): Promise<boolean>;
  /** Closes the connection pool; stores fail with `StoreUnavailableError` afterwards. */
  close(): Promise<void>;
}

const AUTHENTICATION_FAILED = 18;

/** The probe document's id: no subject id looks like it (they start with `k:` or `a:`). */
const PROBE_ID = '#readyz';
/** The longest the server may spend on the probe. */
const PROBE_MAX_TIME_MS = 1_000;

/**
 * One round trip: a conditional `findAndModify` with upsert and `$inc` on the probe document
 * (created on first use, one small document for good). True when the server applied it.
 */
const probeWrites = async (db: Db): Promise<boolean> => {
  const probes = db.collection<{ _id: string; n: number }>(COLLECTIONS.quotas);
  const after = await probes.findOneAndUpdate(
    { _id: PROBE_ID, n: { $gte: 0 } },
    { $inc: { n: 1 } },
    { upsert: true, returnDocument: 'after', maxTimeMS: PROBE_MAX_TIME_MS },
  );
  return after !== null && typeof after.n === 'number' && after.n >= 1;
};

const startError = (message: string): Error => new Error(message.replace(/\s+/g, ' ').trim());

/** The one line a failed start-up prints: what failed, where, never the credentials or driver internals. */
const describeStartFailure = (error: unknown, endpoint: string, waitMs: number): string => {
  if (classifyMongoError(error) === 'unavailable') return `cannot reach MongoDB at ${endpoint} within ${waitMs} ms`;
  if (error instanceof MongoServerError && error.code === AUTHENTICATION_FAILED) {
    return `MongoDB at ${endpoint} refused the credentials of the connection string`;
  }
  if (error instanceof MongoServerError)
    return `MongoDB at ${endpoint} refused to start the store (${error.codeName ?? `code ${String(error.code)}`})`;
  return `cannot start the MongoDB store at ${endpoint} (${error instanceof Error ? error.name : 'unknown error'})`;
};

/**
 * Connects to MongoDB, creates the indexes (idempotently), gives the pets stored before the public
 * catalogue their search keys (`backfillPetSearchKeys`, idempotent too) and returns the stores. Waits at most
 * the server selection timeout (2 s unless the URI sets `serverSelectionTimeoutMS`) for a server;
 * any failure is one `Error` whose message is a single line without credentials, e.g.
 * `cannot reach MongoDB at db.example:27017 within 2000 ms`.
 */
export const connectMongo = async (uri: string, options: ConnectMongoOptions = {}): Promise<MongoStores> => {
  const settings = resolveMongoSettings(uri);
  const { endpoint } = settings;
  const database = options.database ?? settings.database;

  let client: MongoClient;
  try {
    client = new MongoClient(uri, settings.driverOptions);
  } catch (error) {
    // The driver's parse messages name an option or a host; keep the first line unless it holds a credential.
    const detail = error instanceof Error ? `: ${error.message.split('\n')[0] ?? ''}` : '';
    const secrets = (/^[^/]*\/\/([^@/]*)@/.exec(uri)?.[1] ?? '').split(':').filter((part) => part.length > 0);
    throw startError(
      `the MongoDB connection string is not valid${secrets.some((s) => detail.includes(s)) ? '' : detail}`,
    );
  }

  try {
    await client.connect();
    const db = client.db(database);
    await ensureIndexes(db);
    await backfillPetSearchKeys(db, options.random ?? systemRandom);
    // One outbox helper for the repositories and the event store: a write of this process that
    // records events wakes this process's relay at once (docs/rules.md §15).
    const outbox = new MongoOutbox();
    return {
      pets: new PetRepositoryMongo(db, outbox),
      categories: new CategoryRepositoryMongo(db, outbox),
      orders: new OrderRepositoryMongo(db, outbox),
      quotas: new QuotaStoreMongo(db),
      keys: new ApiKeyStoreMongo(db, outbox),
      idempotency: new IdempotencyStoreMongo(db),
      photos: new PhotoStoreMongo(db, outbox),
      events: new EventStoreMongo(db, outbox),
      webhooks: new WebhookStoreMongo(db),
      photoUrlSecrets: new PhotoUrlSecretStoreMongo(db),
      database,
      endpoint,
      isReady: async () => {
        try {
          return await probeWrites(db);
        } catch {
          return false;
        }
      },
      close: () => client.close(),
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    throw startError(describeStartFailure(cause, endpoint, settings.serverSelectionTimeoutMS));
  }
};

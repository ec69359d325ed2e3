import type {
  ApiKeyRecord,
  ApiKeyStore,
  KeyChanges,
  KeyRole,
  KeySource,
  NewApiKey,
  OutboxEntry,
  PlanName,
  Recorder,
  StoredApiKey,
} from '@petstore/domain';
import {
  API_KEY_POSITION_BASE,
  isPlanName,
  PLAN_QUOTAS,
  publicKeyId,
  settingsKeyPosition,
  StoreUnavailableError,
} from '@petstore/domain';
import type { Collection, Db, Filter } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS } from './indexes.js';
import { insertOutbox, MongoOutbox, pushOutbox, type OutboxFields } from './outbox.mongo.js';

interface ApiKeyDocument extends OutboxFields {
  /** Lowercase hex SHA-256 of the key: the raw key is never stored. */
  readonly _id: string;
  /** `key_` + the first 12 hex digits of `_id` (unique index). Absent on records written before the admin API. */
  readonly publicId?: string;
  /** Absent on records written before roles existed: those are client keys. */
  readonly role?: KeyRole;
  readonly plan: PlanName;
  /** The quota numbers; only an enterprise key's are read back (the other plans' come from the plan table). */
  readonly perMinute: number;
  readonly perDay: number;
  /** Absent on records written before the admin API: those came from the settings. */
  readonly source?: KeySource;
  /** List position (unique index); absent on records written before the admin API. */
  readonly position?: number;
  readonly createdAt?: Date;
  readonly label?: string;
  /** A publishable key's origins (docs/rules.md §16; sparse index `origins_1`). */
  readonly origins?: readonly string[];
  /** Set when the key was revoked: the document stays, so its hash, id and position are never given again. */
  readonly revoked?: true;
  /** Moved by `$inc` on every change through the admin API (`update`, `revoke`); missing reads as 0 (`null` only in filters, matching it): what a recording write is conditional on. */
  readonly rev?: number | null;
}

/** Rounds lost to other processes inserting at the same position before an insert gives up. */
const MAX_INSERT_ATTEMPTS = 64;
const LIVE = { revoked: { $ne: true } } as const;
/** A document read whole, but for its outbox. */
const NO_OUTBOX = { projection: { outbox: 0, outboxSince: 0 } } as const;
/** Reads and conditional updates of one change tried at most while other writers keep changing the key in between. */
const MAX_ROUNDS = 16;
/** The filter on a revision: 0 also matches a document that never had one. */
const atRevision = (rev: number | null | undefined): number | { $in: (number | null)[] } =>
  rev === undefined || rev === null || rev === 0 ? { $in: [0, null] } : rev;

/**
 * Keys in MongoDB, by SHA-256 hash, with their grant, public id and list position. Only classic
 * update operators (MongoDB 4.0). Positions of API keys are `max + 1`, made unique by an index:
 * a key at position N + 1 can only be written after N is, so a walk through the list never skips
 * a key created meanwhile, and revoked keys keep their position so none is reused.
 */
export class ApiKeyStoreMongo implements ApiKeyStore {
  private readonly keys: Collection<ApiKeyDocument>;

  /** `outbox`: shared with the connection's `EventStoreMongo` (its `onRecorded`); the events themselves live in the keys' documents. */
  constructor(
    db: Db,
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.keys = db.collection<ApiKeyDocument>(COLLECTIONS.apiKeys);
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    return this.findOne({ _id: keyHash, ...LIVE });
  }

  async findById(keyId: string): Promise<StoredApiKey | undefined> {
    return this.findOne({ publicId: keyId, ...LIVE });
  }

  /** One `distinct` over the sparse index on `origins` (only publishable keys have the field). */
  async listPublishableOrigins(): Promise<readonly string[]> {
    const origins = await guard(
      () => this.keys.distinct('origins', { origins: { $exists: true }, ...LIVE }),
      `distinct on ${COLLECTIONS.apiKeys}`,
    );
    return origins.filter((origin): origin is string => typeof origin === 'string');
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredApiKey[]> {
    const docs = await guard(() =>
      this.keys
        .find({ position: { $gt: afterPosition }, ...LIVE })
        .sort({ position: 1 })
        .limit(limit)
        .toArray(),
    );
    return docs.map(toRecord);
  }

  /** An upsert: saving the same keys again, or from several processes at once, leaves one record each. */
  async save(record: ApiKeyRecord): Promise<void> {
    const fields = {
      publicId: publicKeyId(record.keyHash),
      role: record.role,
      plan: record.plan,
      perMinute: record.quota.perMinute,
      perDay: record.quota.perDay,
      source: 'settings' as const,
      position: settingsKeyPosition(record.keyHash),
    };
    await upsertWithRetry(() =>
      this.keys.updateOne({ _id: record.keyHash }, { $set: fields, $unset: { revoked: '' } }, { upsert: true }),
    );
  }

  async retainSettingsKeys(keyHashes: readonly string[]): Promise<void> {
    await guard(() => this.keys.deleteMany({ source: { $ne: 'api' }, _id: { $nin: [...keyHashes] } }));
  }

  /** With `record`, the key's insert carries its events (docs/rules.md §15). */
  async insert(key: NewApiKey, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | 'taken'> {
    const publicId = publicKeyId(key.keyHash);
    for (let attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
      const top = await guard(() =>
        this.keys.findOne(
          { position: { $gte: API_KEY_POSITION_BASE } },
          { sort: { position: -1 }, projection: { position: 1 } },
        ),
      );
      const doc: ApiKeyDocument = {
        _id: key.keyHash,
        publicId,
        role: key.role,
        plan: key.plan,
        perMinute: key.quota.perMinute,
        perDay: key.quota.perDay,
        source: 'api',
        position: (top?.position ?? API_KEY_POSITION_BASE - 1) + 1,
        createdAt: new Date(key.createdAt),
        ...(key.label === undefined ? {} : { label: key.label }),
        ...(key.origins === undefined ? {} : { origins: key.origins }),
      };
      const entries = this.outbox.entries(record, toRecord(doc));
      const inserted = await guard(async () => {
        try {
          await this.keys.insertOne({ ...doc, ...insertOutbox(entries) });
          return true;
        } catch (error) {
          if (classifyMongoError(error) === 'duplicate_key') return false;
          throw error;
        }
      });
      if (inserted) {
        this.outbox.recorded(entries);
        return toRecord(doc);
      }
      // A duplicate: the key (or its public id) exists, or another process took this position first.
      const clash = await guard(() =>
        this.keys.findOne({ $or: [{ _id: key.keyHash }, { publicId }] }, { projection: { _id: 1 } }),
      );
      if (clash !== null) return 'taken';
    }
    throw new StoreUnavailableError('too many concurrent key creations; retry shortly');
  }

  /**
   * Without `record`: one `findOneAndUpdate` of the live API key. With `record` (docs/rules.md §15):
   * the key is read, the key after the change built from it, and one update conditional on the
   * revision read (every change through the admin API moves it) sets the fields and pushes the
   * events; a change in between makes it match nothing, and the key is read again. A change to what
   * the key already is writes nothing and records nothing.
   */
  async update(keyId: string, changes: KeyChanges, record?: Recorder<StoredApiKey>): Promise<StoredApiKey | undefined> {
    const set: Partial<ApiKeyDocument> = {
      ...(changes.grant === undefined
        ? {}
        : { plan: changes.grant.plan, perMinute: changes.grant.quota.perMinute, perDay: changes.grant.quota.perDay }),
      ...(changes.label === undefined ? {} : { label: changes.label }),
      ...(changes.origins === undefined ? {} : { origins: changes.origins }),
    };
    const live = { publicId: keyId, source: 'api' as const, ...LIVE };
    if (Object.keys(set).length === 0) return this.findOne(live);
    if (record === undefined) {
      const doc = await guard(
        () => this.keys.findOneAndUpdate(live, { $set: set, $inc: { rev: 1 } }, { returnDocument: 'after' }),
        `update on ${COLLECTIONS.apiKeys}`,
      );
      return doc === null ? undefined : toRecord(doc);
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = await guard(() => this.keys.findOne(live, NO_OUTBOX), `find on ${COLLECTIONS.apiKeys}`);
      if (before === null) return undefined;
      const after: ApiKeyDocument = { ...before, ...set };
      const changed = toRecord(after);
      if (JSON.stringify(changed) === JSON.stringify(toRecord(before))) return changed;
      const entries = this.outbox.entries(record, changed);
      const result = await guard(
        () =>
          this.keys.updateOne(
            { ...live, rev: atRevision(before.rev) },
            { ...pushOutbox(set, entries), $inc: { rev: 1 } },
          ),
        `update on ${COLLECTIONS.apiKeys}`,
      );
      if (result.matchedCount === 1) {
        this.outbox.recorded(entries);
        return changed;
      }
    }
    throw new StoreUnavailableError(`key ${keyId} kept changing while it was being updated; retry`);
  }

  /** As `update`: with `record`, the key is read and revoked by one update conditional on that revision, which pushes its `key.revoked` (the key as it was). */
  async revoke(keyId: string, record?: Recorder<StoredApiKey>): Promise<boolean> {
    const live = { publicId: keyId, source: 'api' as const, ...LIVE };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before =
        record === undefined
          ? undefined
          : await guard(() => this.keys.findOne(live, NO_OUTBOX), `find on ${COLLECTIONS.apiKeys}`);
      if (before === null) return false;
      const entries: readonly OutboxEntry[] = before === undefined ? [] : this.outbox.entries(record, toRecord(before));
      const result = await guard(
        () =>
          this.keys.updateOne(before === undefined ? live : { ...live, rev: atRevision(before.rev) }, {
            ...pushOutbox({ revoked: true as const }, entries),
            $inc: { rev: 1 },
          }),
        `update on ${COLLECTIONS.apiKeys}`,
      );
      if (result.matchedCount === 1) {
        this.outbox.recorded(entries);
        return true;
      }
      if (before === undefined) return false;
    }
    throw new StoreUnavailableError(`key ${keyId} kept changing while it was being revoked; retry`);
  }

  private async findOne(filter: Filter<ApiKeyDocument>): Promise<StoredApiKey | undefined> {
    const doc = await guard(() => this.keys.findOne(filter));
    return doc === null ? undefined : toRecord(doc);
  }
}

const toRecord = (doc: ApiKeyDocument): StoredApiKey => {
  if (
    !isPlanName(doc.plan) ||
    (doc.plan === 'enterprise' && (!Number.isSafeInteger(doc.perMinute) || !Number.isSafeInteger(doc.perDay)))
  ) {
    throw new Error('a stored API key record is malformed');
  }
  const quota = doc.plan === 'enterprise' ? { perMinute: doc.perMinute, perDay: doc.perDay } : PLAN_QUOTAS[doc.plan];
  return {
    keyHash: doc._id,
    role: doc.role === 'admin' || doc.role === 'publishable' ? doc.role : 'client',
    plan: doc.plan,
    quota,
    source: doc.source === 'api' ? 'api' : 'settings',
    position: doc.position ?? settingsKeyPosition(doc._id),
    ...(doc.createdAt instanceof Date ? { createdAt: doc.createdAt.getTime() } : {}),
    ...(typeof doc.label === 'string' ? { label: doc.label } : {}),
    ...(doc.role === 'publishable' && Array.isArray(doc.origins) ? { origins: [...doc.origins] } : {}),
  };
};

import type { ApiKeyRecord, ApiKeyStore, KeyChanges, KeyRole, KeySource, NewApiKey, PlanName, StoredApiKey } from '@petstore/domain';
import { API_KEY_POSITION_BASE, isPlanName, PLAN_QUOTAS, publicKeyId, settingsKeyPosition, StoreUnavailableError } from '@petstore/domain';
import type { Collection, Db, Filter } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS } from './indexes.js';

interface ApiKeyDocument {
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
  /** Set when the key was revoked: the document stays, so its hash, id and position are never given again. */
  readonly revoked?: true;
}

/** Rounds lost to other processes inserting at the same position before an insert gives up. */
const MAX_INSERT_ATTEMPTS = 64;
const LIVE = { revoked: { $ne: true } } as const;

/**
 * Keys in MongoDB, by SHA-256 hash, with their grant, public id and list position. Only classic
 * update operators (MongoDB 4.0). Positions of API keys are `max + 1`, made unique by an index:
 * a key at position N + 1 can only be written after N is, so a walk through the list never skips
 * a key created meanwhile, and revoked keys keep their position so none is reused.
 */
export class ApiKeyStoreMongo implements ApiKeyStore {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyDocument>(COLLECTIONS.apiKeys);
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | undefined> {
    return this.findOne({ _id: keyHash, ...LIVE });
  }

  async findById(keyId: string): Promise<StoredApiKey | undefined> {
    return this.findOne({ publicId: keyId, ...LIVE });
  }

  async list(afterPosition: number, limit: number): Promise<readonly StoredApiKey[]> {
    const docs = await guard(() => this.keys.find({ position: { $gt: afterPosition }, ...LIVE }).sort({ position: 1 }).limit(limit).toArray());
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
    await upsertWithRetry(() => this.keys.updateOne({ _id: record.keyHash }, { $set: fields, $unset: { revoked: '' } }, { upsert: true }));
  }

  async retainSettingsKeys(keyHashes: readonly string[]): Promise<void> {
    await guard(() => this.keys.deleteMany({ source: { $ne: 'api' }, _id: { $nin: [...keyHashes] } }));
  }

  async insert(key: NewApiKey): Promise<StoredApiKey | 'taken'> {
    const publicId = publicKeyId(key.keyHash);
    for (let attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
      const top = await guard(() => this.keys.findOne({ position: { $gte: API_KEY_POSITION_BASE } }, { sort: { position: -1 }, projection: { position: 1 } }));
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
      };
      const inserted = await guard(async () => {
        try {
          await this.keys.insertOne(doc);
          return true;
        } catch (error) {
          if (classifyMongoError(error) === 'duplicate_key') return false;
          throw error;
        }
      });
      if (inserted) return toRecord(doc);
      // A duplicate: the key (or its public id) exists, or another process took this position first.
      const clash = await guard(() => this.keys.findOne({ $or: [{ _id: key.keyHash }, { publicId }] }, { projection: { _id: 1 } }));
      if (clash !== null) return 'taken';
    }
    throw new StoreUnavailableError('too many concurrent key creations; retry shortly');
  }

  async update(keyId: string, changes: KeyChanges): Promise<StoredApiKey | undefined> {
    const set: Partial<ApiKeyDocument> = {
      ...(changes.grant === undefined ? {} : { plan: changes.grant.plan, perMinute: changes.grant.quota.perMinute, perDay: changes.grant.quota.perDay }),
      ...(changes.label === undefined ? {} : { label: changes.label }),
    };
    if (Object.keys(set).length === 0) return this.findOne({ publicId: keyId, source: 'api', ...LIVE });
    const doc = await guard(() => this.keys.findOneAndUpdate({ publicId: keyId, source: 'api', ...LIVE }, { $set: set }, { returnDocument: 'after' }));
    return doc === null ? undefined : toRecord(doc);
  }

  async revoke(keyId: string): Promise<boolean> {
    const result = await guard(() => this.keys.updateOne({ publicId: keyId, source: 'api', ...LIVE }, { $set: { revoked: true } }));
    return result.matchedCount === 1;
  }

  private async findOne(filter: Filter<ApiKeyDocument>): Promise<StoredApiKey | undefined> {
    const doc = await guard(() => this.keys.findOne(filter));
    return doc === null ? undefined : toRecord(doc);
  }
}

const toRecord = (doc: ApiKeyDocument): StoredApiKey => {
  if (!isPlanName(doc.plan) || (doc.plan === 'enterprise' && (!Number.isSafeInteger(doc.perMinute) || !Number.isSafeInteger(doc.perDay)))) {
    throw new Error('a stored API key record is malformed');
  }
  const quota = doc.plan === 'enterprise' ? { perMinute: doc.perMinute, perDay: doc.perDay } : PLAN_QUOTAS[doc.plan];
  return {
    keyHash: doc._id,
    role: doc.role === 'admin' ? 'admin' : 'client',
    plan: doc.plan,
    quota,
    source: doc.source === 'api' ? 'api' : 'settings',
    position: doc.position ?? settingsKeyPosition(doc._id),
    ...(doc.createdAt instanceof Date ? { createdAt: doc.createdAt.getTime() } : {}),
    ...(typeof doc.label === 'string' ? { label: doc.label } : {}),
  };
};

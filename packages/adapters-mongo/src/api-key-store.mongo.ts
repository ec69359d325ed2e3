import type { ApiKeyRecord, ApiKeyStore, KeyRole, PlanName } from '@petstore/domain';
import { isPlanName } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS } from './indexes.js';

interface ApiKeyDocument {
  /** Lowercase hex SHA-256 of the key: the raw key is never stored. */
  readonly _id: string;
  /** Absent on records written before roles existed: those are client keys. */
  readonly role?: KeyRole;
  readonly plan: PlanName;
  readonly perMinute: number;
  readonly perDay: number;
}

/** Keys in MongoDB, by SHA-256 hash, with their plan and quota. */
export class ApiKeyStoreMongo implements ApiKeyStore {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyDocument>(COLLECTIONS.apiKeys);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const doc = await guard(() => this.keys.findOne({ _id: keyHash }), `find on ${COLLECTIONS.apiKeys}`);
    if (doc === null) return undefined;
    if (!isPlanName(doc.plan) || !Number.isSafeInteger(doc.perMinute) || !Number.isSafeInteger(doc.perDay)) {
      throw new Error('a stored API key record is malformed');
    }
    return { keyHash: doc._id, role: doc.role === 'admin' ? 'admin' : 'client', plan: doc.plan, quota: { perMinute: doc.perMinute, perDay: doc.perDay } };
  }

  /** An upsert: saving the same keys again, or from several processes at once, leaves one record each. */
  async save(record: ApiKeyRecord): Promise<void> {
    const fields = { role: record.role, plan: record.plan, perMinute: record.quota.perMinute, perDay: record.quota.perDay };
    await upsertWithRetry(() => this.keys.updateOne({ _id: record.keyHash }, { $set: fields }, { upsert: true }), `update on ${COLLECTIONS.apiKeys}`);
  }
}

import type { ClaimOutcome, CompletedRecord, IdempotencyRecord, IdempotencyStore, InProgressRecord } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';

/**
 * One document per (API key scope, `Idempotency-Key`): `_id` is the id, so the unique `_id`
 * index makes a claim (an insert) atomic across processes. `expiresAt` is a date for the TTL
 * index, which deletes a record some time after it expires; until then reads treat it as absent.
 */
interface IdempotencyDocument {
  readonly _id: string;
  readonly state: 'in_progress' | 'completed';
  readonly fingerprint: string;
  readonly expiresAt: Date;
  readonly status?: number;
  readonly body?: string;
  readonly location?: string;
}

const toDocument = (id: string, record: IdempotencyRecord): IdempotencyDocument => {
  const base = { _id: id, state: record.state, fingerprint: record.fingerprint, expiresAt: new Date(record.expiresAt) };
  if (record.state === 'in_progress') return base;
  const { status, body, location } = record.answer;
  return location === undefined ? { ...base, status, body } : { ...base, status, body, location };
};

const toRecord = (doc: IdempotencyDocument): IdempotencyRecord => {
  const expiresAt = doc.expiresAt.getTime();
  if (doc.state === 'in_progress') return { state: 'in_progress', fingerprint: doc.fingerprint, expiresAt };
  if (typeof doc.status !== 'number' || typeof doc.body !== 'string') throw new Error('a stored idempotency record is malformed');
  const answer = doc.location === undefined ? { status: doc.status, body: doc.body } : { status: doc.status, body: doc.body, location: doc.location };
  return { state: 'completed', fingerprint: doc.fingerprint, expiresAt, answer };
};

/** The filter that matches exactly the claim `claim` of `id` (not a later claim of the same id). */
const claimFilter = (id: string, claim: InProgressRecord) => ({
  _id: id,
  state: 'in_progress' as const,
  fingerprint: claim.fingerprint,
  expiresAt: new Date(claim.expiresAt),
});

/** How many times a claim retries when the record it saw vanished or was replaced in between. */
const CLAIM_ATTEMPTS = 5;

/**
 * Idempotency records in MongoDB, with MongoDB 4.0 operations only: a claim is an insert (the
 * unique `_id` decides between racing claims); an expired record still present (the TTL monitor
 * runs once a minute) is taken over by a conditional replace on its `expiresAt`; completing and
 * releasing match the claim exactly.
 */
export class IdempotencyStoreMongo implements IdempotencyStore {
  private readonly records: Collection<IdempotencyDocument>;

  constructor(db: Db) {
    this.records = db.collection<IdempotencyDocument>(COLLECTIONS.idempotency);
  }

  claim(id: string, claim: InProgressRecord, now: number): Promise<ClaimOutcome> {
    return guard(async () => {
      const doc = toDocument(id, claim);
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        try {
          await this.records.insertOne(doc);
          return { claimed: true };
        } catch (error) {
          if (classifyMongoError(error) !== 'duplicate_key') throw error;
        }
        const held = await this.records.findOne({ _id: id });
        if (held === null) continue; // deleted in between (released, or expired): insert again
        if (held.expiresAt.getTime() > now) return { claimed: false, held: toRecord(held) };
        // Expired but not yet deleted: take it over, unless another claim did first.
        const taken = await this.records.replaceOne({ _id: id, expiresAt: held.expiresAt }, doc);
        if (taken.modifiedCount === 1) return { claimed: true };
      }
      // Contention, not a fault: 503 with Retry-After, so the client retries (a 500 would say a bug).
      throw new StoreUnavailableError(`could not settle the idempotency record after ${CLAIM_ATTEMPTS} attempts; retry shortly`);
    });
  }

  async complete(id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void> {
    const { _id: _, ...fields } = toDocument(id, record);
    await guard(() => this.records.updateOne(claimFilter(id, claim), { $set: fields }));
  }

  async release(id: string, claim: InProgressRecord): Promise<void> {
    await guard(() => this.records.deleteOne(claimFilter(id, claim)));
  }
}

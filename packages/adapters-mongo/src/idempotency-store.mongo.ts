import type {
  ClaimOutcome,
  CompletedRecord,
  IdempotencyRecord,
  IdempotencyStore,
  InProgressRecord,
} from '@petstore/domain';
import { StoreUnavailableError, takeOver } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';

/**
 * One document per (API key scope, `Idempotency-Key`): `_id` is the id, so the unique `_id`
 * index makes a claim (an insert) atomic across processes. `expiresAt` is a date for the TTL
 * index, which deletes a record some time after it expires; until then reads treat it as absent.
 * A claim also has its creation `token` and the end of its lease (`leaseUntil`, a date).
 */
interface IdempotencyDocument {
  readonly _id: string;
  readonly state: 'in_progress' | 'completed';
  readonly fingerprint: string;
  readonly expiresAt: Date;
  readonly token?: string;
  readonly leaseUntil?: Date;
  readonly status?: number;
  readonly body?: string;
  readonly location?: string;
}

const toDocument = (id: string, record: IdempotencyRecord): IdempotencyDocument => {
  const base = { _id: id, state: record.state, fingerprint: record.fingerprint, expiresAt: new Date(record.expiresAt) };
  if (record.state === 'in_progress') return { ...base, token: record.token, leaseUntil: new Date(record.leaseUntil) };
  const { status, body, location } = record.answer;
  return location === undefined ? { ...base, status, body } : { ...base, status, body, location };
};

const toRecord = (doc: IdempotencyDocument): IdempotencyRecord => {
  const expiresAt = doc.expiresAt.getTime();
  if (doc.state === 'in_progress') {
    // A claim written before creation tokens (its `expiresAt` was its lease) holds until it expires.
    return {
      state: 'in_progress',
      fingerprint: doc.fingerprint,
      token: doc.token ?? '',
      leaseUntil: doc.leaseUntil?.getTime() ?? expiresAt,
      expiresAt,
    };
  }
  if (typeof doc.status !== 'number' || typeof doc.body !== 'string')
    throw new Error('a stored idempotency record is malformed');
  const answer =
    doc.location === undefined
      ? { status: doc.status, body: doc.body }
      : { status: doc.status, body: doc.body, location: doc.location };
  return { state: 'completed', fingerprint: doc.fingerprint, expiresAt, answer };
};

/** The filter that matches exactly the claim `claim` of `id` (not a later claim of the same id, nor one that took it over). */
const claimFilter = (id: string, claim: InProgressRecord) => ({
  _id: id,
  state: 'in_progress' as const,
  fingerprint: claim.fingerprint,
  token: claim.token,
  leaseUntil: new Date(claim.leaseUntil),
});

/** How many times a claim retries when the record it saw vanished or was replaced in between. */
const CLAIM_ATTEMPTS = 5;

/**
 * Idempotency records in MongoDB, with MongoDB 4.0 operations only: a claim is an insert (the
 * unique `_id` decides between racing claims); an expired record still present (the TTL monitor
 * runs once a minute) is taken over by a conditional replace on its `expiresAt`, and a claim whose
 * lease is over by a conditional update of its `leaseUntil` (the token stays); completing and
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
          return { claimed: true, record: claim, resumed: false };
        } catch (error) {
          if (classifyMongoError(error) !== 'duplicate_key') throw error;
        }
        const found = await this.records.findOne({ _id: id });
        if (found === null) continue; // deleted in between (expired): insert again
        if (found.expiresAt.getTime() <= now) {
          // Expired but not yet deleted: take it over, unless another claim did first.
          const taken = await this.records.replaceOne({ _id: id, expiresAt: found.expiresAt }, doc);
          if (taken.modifiedCount === 1) return { claimed: true, record: claim, resumed: false };
          continue;
        }
        const held = toRecord(found);
        // The same request, once the claim's lease is over: take it over, token and all (docs/rules.md §10),
        // unless another claim did first (the filter is the held claim, every field as read).
        const record = takeOver(held, claim, now);
        if (record === undefined) return { claimed: false, held };
        const taken = await this.records.updateOne(toDocument(id, held), {
          $set: { leaseUntil: new Date(record.leaseUntil) },
        });
        if (taken.modifiedCount === 1) return { claimed: true, record, resumed: true };
      }
      // Contention, not a fault: 503 with Retry-After, so the client retries (a 500 would say a bug).
      throw new StoreUnavailableError(
        `could not settle the idempotency record after ${CLAIM_ATTEMPTS} attempts; retry shortly`,
      );
    });
  }

  async complete(id: string, claim: InProgressRecord, record: CompletedRecord): Promise<void> {
    const { _id: _, ...fields } = toDocument(id, record);
    await guard(() =>
      this.records.updateOne(claimFilter(id, claim), { $set: fields, $unset: { token: '', leaseUntil: '' } }),
    );
  }

  async release(id: string, claim: InProgressRecord): Promise<void> {
    await guard(() => this.records.updateOne(claimFilter(id, claim), { $set: { leaseUntil: new Date(0) } }));
  }

  async discard(id: string, claim: InProgressRecord): Promise<void> {
    await guard(() => this.records.deleteOne(claimFilter(id, claim)));
  }
}

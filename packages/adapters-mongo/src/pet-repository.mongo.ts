import type { Pet, PetDraft, PetHold, PetListQuery, PetRepository, PetStatus } from '@petstore/domain';
import { PET_STATUSES } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';

interface PetDocument {
  readonly _id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
  /** The open order holding the pet; missing (a pet never held) reads as `null`. */
  readonly orderId?: number | null;
  /** The creation token of a create under an `Idempotency-Key` (docs/rules.md §10), unique (sparse index `token_1`); absent otherwise. */
  readonly token?: string;
}

interface Waiting {
  readonly draft: PetDraft;
  readonly token: string | undefined;
  resolve(pet: Pet): void;
  reject(error: unknown): void;
}

const PET_PROJECTION = { _id: 1, name: 1, categoryId: 1, status: 1 } as const;
/** Creates sent in one `insertMany` at most. */
const MAX_BATCH = 256;
/** Creates waiting at most; past it (a store that hangs or crawls) a create is refused at once. */
const MAX_QUEUE = 10_000;
/** Rounds lost to other writers before a batch gives up (each lost round means another process made progress). */
const MAX_ATTEMPTS = 64;
const DUPLICATE_KEY = 11000;

const toPet = (doc: PetDocument): Pet => ({ id: doc._id, name: doc.name, categoryId: doc.categoryId, status: doc.status });

/**
 * Pets in MongoDB, stored with `_id` = the pet id.
 *
 * Ids are assigned by the insert itself: a pet gets `max id + 1`, and the unique `_id` makes a
 * concurrent writer that chose the same id fail with a duplicate key and try the next one. So an
 * id exists only once its pet does, and pet N + 1 can only be written after pet N is: the stored
 * ids are always 1…max with no hole, in every process's view. That is what lets a client walking
 * `rel="next"` links visit every pet exactly once while others create pets (docs/rules.md §2). (An
 * id taken from a counter document and inserted afterwards would let N + 1 become visible before
 * N, and a walker passing N + 1 would miss N for good.) Ids are never reused: nothing deletes.
 *
 * Within one process, creates are queued and written in ordered batches (`insertMany`), one round
 * trip for many creates; the highest id this process wrote is the next batch's guess, and the
 * collection's maximum is read again only after another writer took that id.
 */
export class PetRepositoryMongo implements PetRepository {
  private readonly pets: Collection<PetDocument>;
  private readonly queue: Waiting[] = [];
  private draining = false;
  /** Creates of the batch being written. */
  private inFlight = 0;
  /** The highest id known to exist; `undefined` until read, or after another writer got ahead. */
  private lastId: number | undefined;

  constructor(db: Db) {
    this.pets = db.collection<PetDocument>(COLLECTIONS.pets);
  }

  create(draft: PetDraft, token?: string): Promise<Pet> {
    if (this.queue.length + this.inFlight >= MAX_QUEUE) return Promise.reject(new StoreUnavailableError('too many creates are waiting for the store; retry shortly'));
    return new Promise<Pet>((resolve, reject) => {
      this.queue.push({ draft, token, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  async findByCreationToken(token: string): Promise<Pet | undefined> {
    const doc = await guard(() => this.pets.findOne({ token }, { projection: PET_PROJECTION }), `find on ${COLLECTIONS.pets}`);
    return doc === null ? undefined : toPet(doc);
  }

  async findById(id: number): Promise<Pet | undefined> {
    const doc = await guard(() => this.pets.findOne({ _id: id }, { projection: PET_PROJECTION }), `find on ${COLLECTIONS.pets}`);
    return doc === null ? undefined : toPet(doc);
  }

  /**
   * Served by an index whatever the filters: `_id` alone, `{status, _id}`, `{categoryId, _id}` or
   * `{status, categoryId, _id}` (indexes.ts): equality on the leading keys, then the `_id` range in
   * index order, so no sort stage and no document examined beyond the page.
   */
  async list(query: PetListQuery): Promise<readonly Pet[]> {
    const filter = {
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.categoryId === undefined ? {} : { categoryId: query.categoryId }),
      _id: { $gt: query.afterId },
    };
    const docs = await guard(() =>
      this.pets.find(filter, { projection: PET_PROJECTION }).sort({ _id: 1 }).limit(query.limit).toArray(),
      `find on ${COLLECTIONS.pets}`,
    );
    return docs.map(toPet);
  }

  async findHold(id: number): Promise<PetHold | undefined> {
    const doc = await guard(() => this.pets.findOne({ _id: id }, { projection: { status: 1, orderId: 1 } }));
    return doc === null ? undefined : { status: doc.status, orderId: doc.orderId ?? null };
  }

  /**
   * One `updateOne` whose filter is the expected hold (`orderId: null` also matches a missing
   * field): MongoDB applies a single-document update atomically, so of concurrent swaps from the
   * same hold only the first matches; the others find the new hold and change nothing.
   */
  async swapHold(id: number, expected: PetHold, next: PetHold): Promise<boolean> {
    const result = await guard(() =>
      this.pets.updateOne(
        { _id: id, status: expected.status, orderId: expected.orderId },
        { $set: { status: next.status, orderId: next.orderId } },
      ),
    );
    return result.matchedCount === 1;
  }

  /** Three counts, each answered from the `{status, _id}` index (a count scan, no document read). */
  async countByStatus(): Promise<Readonly<Record<PetStatus, number>>> {
    const counts = await guard(() => Promise.all(PET_STATUSES.map((status) => this.pets.countDocuments({ status }))));
    return { available: counts[0]!, pending: counts[1]!, sold: counts[2]! };
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        this.inFlight = batch.length;
        await this.insertBatch(batch);
        this.inFlight = 0;
      }
    } finally {
      this.draining = false;
    }
  }

  private async insertBatch(batch: readonly Waiting[]): Promise<void> {
    let pending = batch;
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS && pending.length > 0; attempt++) {
        const base = this.lastId ?? (await this.readMaxId());
        const docs: PetDocument[] = pending.map((w, i) => ({
          _id: base + 1 + i,
          name: w.draft.name,
          categoryId: w.draft.categoryId,
          status: w.draft.status,
          ...(w.token === undefined ? {} : { token: w.token }),
        }));
        const inserted = await this.insertOrdered(docs);
        docs.slice(0, inserted).forEach((doc, i) => pending[i]!.resolve(toPet(doc)));
        pending = pending.slice(inserted);
        // Stopped by a token already stored (an earlier attempt's create under the same key): that pet is the answer.
        const stopped = pending[0]?.token === undefined ? undefined : await this.findByCreationToken(pending[0].token);
        if (stopped !== undefined) {
          pending[0]!.resolve(stopped);
          pending = pending.slice(1);
        }
        // All written: our last id is the maximum. Stopped by a taken id: read the maximum again.
        this.lastId = pending.length === 0 ? base + inserted : undefined;
      }
      if (pending.length > 0) throw new StoreUnavailableError('too many concurrent creates; retry shortly');
    } catch (error) {
      this.lastId = undefined;
      for (const w of pending) w.reject(error);
    }
  }

  /** Inserts in order; returns how many went in before an id already taken stopped it. */
  private async insertOrdered(docs: readonly PetDocument[]): Promise<number> {
    return guard(async () => {
      try {
        await this.pets.insertMany(docs as PetDocument[], { ordered: true });
        return docs.length;
      } catch (error) {
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        if (writeErrors.some((e) => e.code === DUPLICATE_KEY)) {
          // Ordered: the insert stopped at its first failed document, so the ones before it went in.
          // (Counted from the error's index, not `insertedCount`: mongo-java-server reports the
          // whole batch there.)
          return Math.min(...writeErrors.map((e) => e.index));
        }
        throw error;
      }
    }, `insert on ${COLLECTIONS.pets}`);
  }

  private async readMaxId(): Promise<number> {
    const top = await guard(() => this.pets.findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }), `find on ${COLLECTIONS.pets}`);
    return top?._id ?? 0;
  }
}

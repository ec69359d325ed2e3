import type {
  ListedPets,
  OutboxEntry,
  Pet,
  PetEdit,
  PetEntry,
  PetHold,
  PetListQuery,
  PetRecord,
  PetRepository,
  PetStatus,
  Recorder,
} from '@petstore/domain';
import { PET_STATUSES } from '@petstore/domain';
import { StoreUnavailableError } from '@petstore/domain';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { guard } from './errors.js';
import { COLLECTIONS } from './indexes.js';
import { petListQueries, type PetSearchFields } from './pet-list.mongo.js';
import { insertOutbox, MongoOutbox, pushOutbox, type OutboxFields } from './outbox.mongo.js';

/**
 * The status of a withdrawn pet's document: kept (the orders that name it stay, its id stays taken,
 * its creation token stays bound to it), seen by no query but `findByCreationToken`.
 */
const WITHDRAWN = 'withdrawn';

interface PetDocument extends OutboxFields, PetSearchFields {
  readonly _id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus | typeof WITHDRAWN;
  /** The open order holding the pet; missing (a pet never held) reads as `null`. */
  readonly orderId?: number | null;
  /** The revision, moved by `$inc` on every change; missing (a pet never changed) reads as 0 (`null` only in filters, matching it). */
  readonly rev?: number | null;
  /** When a `PATCH` last changed the status; missing reads as `null`. */
  readonly statusPatchedAt?: string;
  /** The creation token of a create under an `Idempotency-Key` (docs/rules.md §10), unique (sparse index `token_1`); absent otherwise. */
  readonly token?: string;
  /** A withdrawn pet's status when it was withdrawn (its last listed one), set in the withdrawal's own update; absent on a listed pet. */
  readonly listedAs?: PetStatus;
}

/** "Not withdrawn": the three statuses a listed pet can have (see pet-list.mongo.ts for the lists). */
const LISTED = { $in: PET_STATUSES as PetStatus[] };

interface Waiting {
  readonly entry: PetEntry;
  readonly token: string | undefined;
  readonly record: Recorder<Pet> | undefined;
  resolve(pet: Pet): void;
  reject(error: unknown): void;
}

const PET_PROJECTION = { _id: 1, name: 1, categoryId: 1, status: 1 } as const;
const SHUFFLED_PROJECTION = { ...PET_PROJECTION, shuffleKey: 1 } as const;
const RECORD_PROJECTION = { ...PET_PROJECTION, orderId: 1, rev: 1, statusPatchedAt: 1 } as const;
/** Creates sent in one `insertMany` at most. */
const MAX_BATCH = 256;
/** Creates waiting at most; past it (a store that hangs or crawls) a create is refused at once. */
const MAX_QUEUE = 10_000;
/** Rounds lost to other writers before a batch gives up (each lost round means another process made progress). */
const MAX_ATTEMPTS = 64;
/** Reads and conditional updates of one change tried at most while other writers keep changing the pet in between. */
const MAX_ROUNDS = 16;
const DUPLICATE_KEY = 11000;

/** A listed document as a `Pet` (every query for pets but the one by creation token filters withdrawn ones out). */
const toPet = (doc: PetDocument): Pet => ({
  id: doc._id,
  name: doc.name,
  categoryId: doc.categoryId,
  status: doc.status as PetStatus,
});
/** Any document as the `Pet` it is or was: a withdrawn one as it was when withdrawn (its `listedAs`). */
const toCreatedPet = (doc: PetDocument): Pet =>
  doc.status === WITHDRAWN ? { ...toPet(doc), status: doc.listedAs! } : toPet(doc);
const toRecord = (doc: PetDocument): PetRecord => ({
  ...toPet(doc),
  revision: doc.rev ?? 0,
  orderId: doc.orderId ?? null,
  statusPatchedAt: doc.statusPatchedAt ?? null,
});
/** The filter on a revision: 0 also matches a document that never had one (written before revisions, or never changed). */
const atRevision = (revision: number) => (revision === 0 ? { $in: [0, null] } : revision);

/**
 * Pets in MongoDB, stored with `_id` = the pet id.
 *
 * Ids are assigned by the insert itself: a pet gets `max id + 1`, and the unique `_id` makes a
 * concurrent writer that chose the same id fail with a duplicate key and try the next one. So an
 * id exists only once its pet does, and pet N + 1 can only be written after pet N is: the stored
 * ids are always 1…max with no hole, in every process's view. That is what lets a client walking
 * `rel="next"` links visit every pet exactly once while others create pets (docs/rules.md §2). (An
 * id taken from a counter document and inserted afterwards would let N + 1 become visible before
 * N, and a walker passing N + 1 would miss N for good.) Ids are never reused: nothing deletes (a
 * withdrawal keeps the document).
 *
 * Within one process, creates are queued and written in ordered batches (`insertMany`), one round
 * trip for many creates; the highest id this process wrote is the next batch's guess, and the
 * collection's maximum is read again only after another writer took that id.
 *
 * Every change of a pet is one `updateOne`/`findOneAndUpdate` of its document whose filter is the
 * condition (docs/rules.md §8, §12), with `$inc` on its revision. A withdrawn pet keeps its document
 * with status `withdrawn` (so its id stays taken and the ids stay 1…max), which no query matches but
 * the one by creation token: that answers it as it was when withdrawn (`listedAs`, docs/rules.md §10).
 */
export class PetRepositoryMongo implements PetRepository {
  private readonly pets: Collection<PetDocument>;
  private readonly queue: Waiting[] = [];
  private draining = false;
  /** Creates of the batch being written. */
  private inFlight = 0;
  /** The highest id known to exist; `undefined` until read, or after another writer got ahead. */
  private lastId: number | undefined;

  /** `outbox`: shared with the connection's `EventStoreMongo` (its `onRecorded`); the events themselves live in the pets' documents. */
  constructor(
    db: Db,
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.pets = db.collection<PetDocument>(COLLECTIONS.pets);
  }

  /** With `record`, each pet's insert carries its events (docs/rules.md §15): a create answered with the token's earlier pet inserts nothing, so records nothing. */
  create(entry: PetEntry, token?: string, record?: Recorder<Pet>): Promise<Pet> {
    if (this.queue.length + this.inFlight >= MAX_QUEUE)
      return Promise.reject(new StoreUnavailableError('too many creates are waiting for the store; retry shortly'));
    return new Promise<Pet>((resolve, reject) => {
      this.queue.push({ entry, token, record, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** The pet the token created, also when it was withdrawn since: then as it was (docs/rules.md §10, §12). */
  async findByCreationToken(token: string): Promise<Pet | undefined> {
    const doc = await guard(
      () => this.pets.findOne({ token }, { projection: { ...PET_PROJECTION, listedAs: 1 } }),
      `find on ${COLLECTIONS.pets}`,
    );
    return doc === null ? undefined : toCreatedPet(doc);
  }

  async findById(id: number): Promise<PetRecord | undefined> {
    const doc = await guard(
      () => this.pets.findOne({ _id: id, status: LISTED }, { projection: RECORD_PROJECTION }),
      `find on ${COLLECTIONS.pets}`,
    );
    return doc === null ? undefined : toRecord(doc);
  }

  /**
   * One `find` per page, served by the index its filters and order name (pet-list.mongo.ts); a
   * `sort=random` page that crosses the wrap of the circle reads its second range with a second one.
   */
  async list(query: PetListQuery): Promise<ListedPets> {
    const shuffled = query.order.sort === 'random';
    const projection = shuffled ? SHUFFLED_PROJECTION : PET_PROJECTION;
    const rows: PetDocument[] = [];
    for (const { filter, sort, hint } of petListQueries(query)) {
      const limit = query.limit - rows.length;
      if (limit <= 0) break;
      const docs = await guard(
        () => this.pets.find(filter, { projection }).sort(sort).limit(limit).hint(hint).toArray(),
        `find on ${COLLECTIONS.pets}`,
      );
      rows.push(...docs);
    }
    const pets = rows.map(toPet);
    // A shuffle's cursor holds its last pet's key (the ranges read only pets that have one).
    return shuffled ? { pets, shuffleKeys: rows.map((doc) => doc.shuffleKey!) } : { pets };
  }

  async findHold(id: number): Promise<PetHold | undefined> {
    const doc = await guard(() =>
      this.pets.findOne({ _id: id, status: LISTED }, { projection: { status: 1, orderId: 1 } }),
    );
    return doc === null ? undefined : { status: doc.status as PetStatus, orderId: doc.orderId ?? null };
  }

  /**
   * One `updateOne` whose filter is the expected hold (`orderId: null` also matches a missing
   * field): MongoDB applies a single-document update atomically, so of concurrent swaps from the
   * same hold only the first matches; the others find the new hold and change nothing. A withdrawn
   * pet's status is never an expected one: a swap after a withdrawal matches nothing.
   *
   * With `record` (docs/rules.md §15), its `pet.updated` needs the pet's name and category, which a
   * `PATCH` may change beside the hold: the pet is read first (with that hold), the event built from
   * it, and the update, which pushes the event, is also conditional on the revision read (every
   * change moves it), so the event is the pet exactly as the swap leaves it. A `PATCH` landing in
   * between makes it match nothing: read again and retry (each retry means another write landed).
   */
  async swapHold(id: number, expected: PetHold, next: PetHold, record?: Recorder<Pet>): Promise<boolean> {
    const held = { _id: id, status: expected.status, orderId: expected.orderId };
    const swap = { status: next.status, orderId: next.orderId };
    if (record === undefined) {
      const result = await guard(
        () => this.pets.updateOne(held, { $set: swap, $inc: { rev: 1 } }),
        `update on ${COLLECTIONS.pets}`,
      );
      return result.matchedCount === 1;
    }
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const doc = await guard(
        () => this.pets.findOne(held, { projection: { name: 1, categoryId: 1, rev: 1 } }),
        `find on ${COLLECTIONS.pets}`,
      );
      if (doc === null) return false;
      const entries = this.outbox.entries(record, {
        id,
        name: doc.name,
        categoryId: doc.categoryId,
        status: next.status,
      });
      const result = await guard(
        () =>
          this.pets.updateOne(
            { ...held, rev: atRevision(doc.rev ?? 0) },
            { ...pushOutbox(swap, entries), $inc: { rev: 1 } },
          ),
        `update on ${COLLECTIONS.pets}`,
      );
      if (result.matchedCount === 1) {
        this.outbox.recorded(entries);
        return true;
      }
    }
    throw new StoreUnavailableError(`pet ${id} kept changing while its hold was being swapped; retry`);
  }

  /**
   * One `findOneAndUpdate` whose filter is the whole condition (listed, at the revision, unheld for a
   * status change). With `record`, the pet is read first: at the revision asked for it is exactly what
   * the update starts from (every change moves the revision), so the `pet.updated` pushed by the update
   * is the pet as the update leaves it; a pet at another revision is not changed.
   */
  async update(
    id: number,
    revision: number,
    changes: PetEdit,
    at: string,
    record?: Recorder<Pet>,
  ): Promise<PetRecord | undefined> {
    const set = {
      // A new name and its keys (the domain's), in this one conditional write: search and the name order follow it at once.
      ...(changes.name === undefined
        ? {}
        : { name: changes.name, words: changes.nameKeys.words, nameKey: changes.nameKeys.nameKey }),
      ...(changes.categoryId === undefined ? {} : { categoryId: changes.categoryId }),
      ...(changes.status === undefined ? {} : { status: changes.status, statusPatchedAt: at }),
    };
    const condition = {
      _id: id,
      status: LISTED,
      rev: atRevision(revision),
      ...(changes.status === undefined ? {} : { orderId: null }),
    };
    let entries: readonly OutboxEntry[] = [];
    if (record !== undefined) {
      const before = await guard(
        () => this.pets.findOne(condition, { projection: PET_PROJECTION }),
        `find on ${COLLECTIONS.pets}`,
      );
      if (before === null) return undefined;
      entries = this.outbox.entries(record, {
        id,
        name: changes.name ?? before.name,
        categoryId: changes.categoryId ?? before.categoryId,
        status: changes.status ?? (before.status as PetStatus),
      });
    }
    const doc = await guard(
      () =>
        this.pets.findOneAndUpdate(
          condition,
          { ...pushOutbox(set, entries), $inc: { rev: 1 } },
          { returnDocument: 'after', projection: RECORD_PROJECTION },
        ),
      `update on ${COLLECTIONS.pets}`,
    );
    if (doc === null) return undefined;
    this.outbox.recorded(entries);
    return toRecord(doc);
  }

  /**
   * The pet is read (for the status it has at that revision), then withdrawn by one `updateOne` whose
   * filter is the whole condition (that status, at the revision, unheld): the document stays, as
   * `withdrawn`, with the status it had as `listedAs`. Every change moves the revision, so a pet found
   * at the revision asked for has the status read; a change in between makes the update match nothing.
   * (Not one update that copies the field: mongo-java-server runs no update pipelines.)
   */
  async withdraw(id: number, revision: number, record?: Recorder<Pet>): Promise<boolean> {
    const doc = await guard(
      () => this.pets.findOne({ _id: id, status: LISTED }, { projection: { ...PET_PROJECTION, rev: 1, orderId: 1 } }),
      `find on ${COLLECTIONS.pets}`,
    );
    if (doc === null || (doc.rev ?? 0) !== revision || (doc.orderId ?? null) !== null) return false;
    const listedAs = doc.status as PetStatus;
    // The `pet.withdrawn` of the pet as read, which is the pet the update (at that revision) withdraws.
    const entries = this.outbox.entries(record, toPet(doc));
    const result = await guard(
      () =>
        this.pets.updateOne(
          { _id: id, status: listedAs, rev: atRevision(revision), orderId: null },
          { ...pushOutbox({ status: WITHDRAWN, listedAs }, entries), $inc: { rev: 1 } },
        ),
      `update on ${COLLECTIONS.pets}`,
    );
    if (result.matchedCount !== 1) return false;
    this.outbox.recorded(entries);
    return true;
  }

  /** Three counts, each answered from the `{status, _id}` index (a count scan, no document read); withdrawn pets have a status of their own. */
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
        const docs: PetDocument[] = pending.map((w, i) => {
          const pet: Pet = {
            id: base + 1 + i,
            name: w.entry.name,
            categoryId: w.entry.categoryId,
            status: w.entry.status,
          };
          return {
            _id: pet.id,
            name: pet.name,
            categoryId: pet.categoryId,
            status: pet.status,
            // The search keys as the domain computed them (docs/rules.md §16).
            words: w.entry.words,
            nameKey: w.entry.nameKey,
            shuffleKey: w.entry.shuffleKey,
            ...(w.token === undefined ? {} : { token: w.token }),
            // Its events go in with it (docs/rules.md §15): a pet that is not inserted records nothing.
            ...insertOutbox(this.outbox.entries(w.record, pet)),
          };
        });
        const inserted = await this.insertOrdered(docs);
        docs.slice(0, inserted).forEach((doc, i) => pending[i]!.resolve(toPet(doc)));
        this.outbox.recorded(docs.slice(0, inserted).flatMap((doc) => doc.outbox ?? []));
        pending = pending.slice(inserted);
        // Stopped by a token already stored (an earlier attempt's create under the same key): that pet is the answer.
        // (Also a pet withdrawn since: the token stays bound to it.)
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
    const top = await guard(
      () => this.pets.findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }),
      `find on ${COLLECTIONS.pets}`,
    );
    return top?._id ?? 0;
  }
}

import type {
  AppendOutcome,
  Event,
  EventQuery,
  EventSource,
  EventStore,
  EventType,
  OutboxEntry,
  ResourceKind,
} from '@petstore/domain';
import { SequenceWaiters } from '@petstore/domain';
import type { Collection, Db, Document, Filter } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { COLLECTIONS, OUTBOX_COLLECTIONS } from './indexes.js';
import { leaseAllowsFilter } from './lease.js';
import { MongoOutbox, OUTBOX_SINCE } from './outbox.mongo.js';

/** An event in the feed's collection: `_id` is its sequence. */
interface EventDocument {
  readonly _id: number;
  readonly id: string;
  readonly type: EventType;
  readonly occurredAt: string;
  readonly data: unknown;
}

/** The relay's lease. */
interface LeaseDocument {
  readonly _id: string;
  readonly holder: string;
  readonly until: number;
}

/** A document of a collection with outboxes, as the relay reads it. */
interface OutboxDocument {
  readonly _id: number | string;
  readonly publicId?: string;
  readonly outbox?: readonly OutboxEntry[];
  readonly outboxSince?: string;
}

const LEASE_ID = 'relay';
/** A photo removed with its events recorded: the trace that `clear` removes once its outbox is empty (photo-store.mongo.ts). */
const REMOVED_PHOTO = 'deleted';
/** How often waits look for events appended by other processes (guarantee 4 of docs/rules.md §15: within a second). */
const WAIT_POLL_MS = 200;

const KINDS = Object.keys(OUTBOX_COLLECTIONS) as ResourceKind[];

const toEvent = (doc: EventDocument): Event =>
  ({ id: doc.id, sequence: doc._id, type: doc.type, occurredAt: doc.occurredAt, data: doc.data }) as Event;

/**
 * The events of docs/rules.md §15 on MongoDB, without a transaction, a change stream or a TTL index
 * (a standalone server and mongo-java-server have none); docs/design.md ("Events") has the design.
 *
 * - **Outboxes**: the `outbox` arrays of the pets, categories, order records, photos and keys,
 *   pushed by their decisive writes (outbox.mongo.ts). `pending` reads, in each collection, the
 *   documents with `outboxSince` (a partial index holds exactly those), oldest first, and takes
 *   their entries in that order across the collections: the oldest waits are moved first (so none
 *   starves), and across resources the feed follows the order of recording as far as the ids tell it. `clear` pulls
 *   entries by id, then drops `outboxSince` of an emptied outbox in a write conditional on it being
 *   empty (a push in between keeps it), and removes a removed photo's trace that has nothing left to hold.
 * - **The feed**: the `events` collection, `_id` = sequence, a unique index on the event id. So
 *   `append` is one `insertOne` that the server refuses for a sequence already held or an id already
 *   there: the duplicate key is told apart by looking the id up. `lastSequence` is the highest `_id`
 *   (one index read): `purge` never removes the newest event, so it never goes down; `firstSequence`
 *   the lowest.
 * - **The lease**: one document, taken by one conditional upsert (its holder's, or run out): of
 *   racing takes of a free lease, one inserts it and the others get a duplicate key.
 * - **Waits** are told at once of what this process appends, and poll the last sequence every
 *   `WAIT_POLL_MS` while any wait is under way (one poll per process, however many waits).
 */
export class EventStoreMongo implements EventStore {
  private readonly events: Collection<EventDocument>;
  private readonly leases: Collection<LeaseDocument>;
  private readonly outboxes: Readonly<Record<ResourceKind, Collection<OutboxDocument>>>;
  private readonly waiters = new SequenceWaiters(globalThis);
  private poller: ReturnType<typeof setTimeout> | undefined;
  /** The highest sequence this store has seen (appended, or read): what a wait compares with. */
  private known = 0;

  constructor(
    db: Db,
    /** The outbox helper the connection's repositories share (their writes in this process call `onRecorded`'s listeners). */
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.events = db.collection<EventDocument>(COLLECTIONS.events);
    this.leases = db.collection<LeaseDocument>(COLLECTIONS.eventRelay);
    this.outboxes = Object.fromEntries(
      KINDS.map((kind) => [kind, db.collection<OutboxDocument>(OUTBOX_COLLECTIONS[kind].collection)]),
    ) as Record<ResourceKind, Collection<OutboxDocument>>;
  }

  async lease(holder: string, now: number, until: number): Promise<boolean> {
    return guard(async () => {
      try {
        const result = await this.leases.updateOne(
          { _id: LEASE_ID, ...leaseAllowsFilter<LeaseDocument>('', holder, now) },
          { $set: { holder, until } },
          { upsert: true },
        );
        return result.matchedCount + result.upsertedCount === 1;
      } catch (error) {
        // Held by another holder whose lease runs: the filter matched nothing and the upsert found the document.
        if (classifyMongoError(error) === 'duplicate_key') return false;
        throw error;
      }
    }, `update on ${COLLECTIONS.eventRelay}`);
  }

  async pending(limit: number): Promise<readonly OutboxEntry[]> {
    // At most `limit` documents of each collection (each has an entry), the oldest; then the oldest of them all first.
    const found = await Promise.all(
      KINDS.map(async (kind) => (await this.scan(kind, limit)).map((doc) => ({ kind, doc }))),
    );
    const docs = found
      .flat()
      .sort((a, b) => (a.doc.outboxSince! < b.doc.outboxSince! ? -1 : a.doc.outboxSince! > b.doc.outboxSince! ? 1 : 0));
    const out: OutboxEntry[] = [];
    let emptied = 0;
    for (const { kind, doc } of docs) {
      const entries = doc.outbox ?? [];
      if (entries.length === 0) {
        // A `clear` cut short between its two writes: the outbox is empty, its field still there.
        await this.dropFlag(kind, doc._id);
        emptied++;
      }
      out.push(...entries.slice(0, limit - out.length));
      if (out.length >= limit) break;
    }
    // Only emptied outboxes were read (each read drops them): look again, so that an entry waiting is never missed.
    return out.length === 0 && emptied > 0 ? this.pending(limit) : out;
  }

  private scan(kind: ResourceKind, limit: number): Promise<OutboxDocument[]> {
    return guard(
      () =>
        this.outboxes[kind]
          .find({ [OUTBOX_SINCE]: { $exists: true } }, { projection: { outbox: 1, outboxSince: 1 } })
          .sort({ [OUTBOX_SINCE]: 1 })
          .limit(limit)
          .toArray(),
      `find on ${OUTBOX_COLLECTIONS[kind].collection}`,
    );
  }

  async pendingOf(source: EventSource): Promise<readonly OutboxEntry[]> {
    const doc = await guard(
      () => this.outboxes[source.kind].findOne(this.sourceFilter(source), { projection: { outbox: 1 } }),
      `find on ${OUTBOX_COLLECTIONS[source.kind].collection}`,
    );
    return doc?.outbox ?? [];
  }

  async lastSequence(): Promise<number> {
    const top = await guard(
      () => this.events.findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }),
      `find on ${COLLECTIONS.events}`,
    );
    const last = top?._id ?? 0;
    if (last > this.known) this.notify(last);
    return last;
  }

  async append(event: Event): Promise<AppendOutcome> {
    const doc: EventDocument = {
      _id: event.sequence,
      id: event.id,
      type: event.type,
      occurredAt: event.occurredAt,
      data: event.data,
    };
    const outcome = await guard(async (): Promise<AppendOutcome> => {
      try {
        await this.events.insertOne(doc);
        return 'appended';
      } catch (error) {
        if (classifyMongoError(error) !== 'duplicate_key') throw error;
        // Refused by one of the two unique keys: the id (an earlier run moved this event) comes first.
        return (await this.events.countDocuments({ id: event.id }, { limit: 1 })) > 0 ? 'duplicate' : 'taken';
      }
    }, `insert on ${COLLECTIONS.events}`);
    if (outcome === 'appended') this.notify(event.sequence);
    return outcome;
  }

  async clear(source: EventSource, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const collection = this.outboxes[source.kind];
    const name = OUTBOX_COLLECTIONS[source.kind].collection;
    await guard(
      () =>
        collection.updateOne(this.sourceFilter(source), { $pull: { outbox: { id: { $in: [...ids] } } } } as Document),
      `update on ${name}`,
    );
    await this.dropFlag(source.kind, undefined, source);
  }

  /**
   * The outbox is empty: drops it and its flag, by one update conditional on it being empty (an entry
   * pushed meanwhile keeps both); a removed photo's trace without a creation token, which holds
   * nothing else, is removed.
   */
  private async dropFlag(kind: ResourceKind, id: number | string | undefined, source?: EventSource): Promise<void> {
    const collection = this.outboxes[kind];
    const name = OUTBOX_COLLECTIONS[kind].collection;
    const filter: Filter<OutboxDocument> = source === undefined ? { _id: id! } : this.sourceFilter(source);
    const empty = { 'outbox.0': { $exists: false } };
    await guard(
      () =>
        collection.updateOne(
          { ...filter, [OUTBOX_SINCE]: { $exists: true }, ...empty },
          { $unset: { outbox: '', [OUTBOX_SINCE]: '' } },
        ),
      `update on ${name}`,
    );
    if (kind === 'photo') {
      await guard(
        () =>
          collection.deleteOne({
            ...filter,
            state: REMOVED_PHOTO,
            token: { $exists: false },
            [OUTBOX_SINCE]: { $exists: false },
            ...empty,
          }),
        `delete on ${name}`,
      );
    }
  }

  onRecorded(listener: () => void): () => void {
    return this.outbox.onRecorded(listener);
  }

  async after(sequence: number, query: EventQuery): Promise<readonly Event[]> {
    const filter: Filter<EventDocument> = {
      _id: { $gt: sequence },
      ...(query.types === undefined ? {} : { type: { $in: [...query.types] } }),
    };
    const docs = await guard(
      () => this.events.find(filter).sort({ _id: 1 }).limit(query.limit).toArray(),
      `find on ${COLLECTIONS.events}`,
    );
    return docs.map(toEvent);
  }

  async firstSequence(): Promise<number> {
    const first = await guard(
      () => this.events.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } }),
      `find on ${COLLECTIONS.events}`,
    );
    return first === null ? (await this.lastSequence()) + 1 : first._id;
  }

  /** 0: the feed on MongoDB is bounded by the retention only (nothing leaves it for lack of room). */
  async evictedThrough(): Promise<number> {
    return 0;
  }

  async purge(through: number): Promise<number> {
    // Never the newest event: it carries the feed's position (`lastSequence` is the highest kept).
    const end = Math.min(through, (await this.lastSequence()) - 1);
    if (end < 1) return 0;
    const result = await guard(() => this.events.deleteMany({ _id: { $lte: end } }), `delete on ${COLLECTIONS.events}`);
    return result.deletedCount;
  }

  async waitBeyond(sequence: number, timeoutMs: number, until?: PromiseLike<unknown>): Promise<number> {
    const last = await this.lastSequence();
    if (last > sequence || timeoutMs <= 0) return last;
    const waited = this.waiters.wait(sequence, timeoutMs, () => this.known, until);
    this.schedulePoll();
    return waited;
  }

  /** Waits under way (for tests: none is left behind). */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Records `last` as seen and ends the waits below it. */
  private notify(last: number): void {
    if (last > this.known) this.known = last;
    this.waiters.notify(this.known);
  }

  /** One poll of the last sequence after `WAIT_POLL_MS`, again while waits remain (a failed poll is tried again then; the waits end at their timeouts). */
  private schedulePoll(): void {
    if (this.poller !== undefined || this.waiters.size === 0) return;
    this.poller = setTimeout(() => {
      void this.lastSequence()
        .catch(() => undefined)
        .finally(() => {
          this.poller = undefined;
          this.schedulePoll();
        });
    }, WAIT_POLL_MS);
    this.poller.unref();
  }

  private sourceFilter(source: EventSource): Filter<OutboxDocument> {
    return OUTBOX_COLLECTIONS[source.kind].key === 'publicId' ? { publicId: String(source.id) } : { _id: source.id };
  }
}

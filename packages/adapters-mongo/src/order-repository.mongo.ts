import type { OrderDraft, OrderListQuery, OrderRecord, OrderRepository, OrderState, Recorder } from '@petstore/domain';
import type { Collection, Db, Filter } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';
import { COLLECTIONS, COUNTERS } from './indexes.js';
import { MongoOutbox, pushOutbox, type OutboxFields } from './outbox.mongo.js';

interface OrderDocument extends OutboxFields {
  readonly _id: number;
  readonly petId: number;
  readonly owner: string;
  readonly state: OrderState;
  readonly placedAt: string;
  readonly updatedAt: string;
  /** The creation token of a placement under an `Idempotency-Key` (docs/rules.md §10), unique (sparse index `token_1`); absent otherwise. */
  readonly token?: string;
}

interface CounterDocument {
  readonly _id: string;
  readonly value: number;
}

/** Ids drawn again at most when the one drawn is already taken (a counter restored from an old backup). */
const MAX_DRAWS = 3;

const toRecord = (doc: OrderDocument): OrderRecord => ({
  id: doc._id,
  petId: doc.petId,
  owner: doc.owner,
  state: doc.state,
  placedAt: doc.placedAt,
  updatedAt: doc.updatedAt,
});

/**
 * Order records in MongoDB, `_id` = the order id. Ids come from one counter document (`$inc`, atomic
 * across processes; created by `ensureIndexes` at start), so they are unique and increasing; a
 * placement that loses its race keeps its id as an `abandoned` record. An id found taken (the
 * counter went back) is drawn again. State changes are one `updateOne` filtered on the
 * expected state (classic operators only, no transaction: the pet's document is the consistency
 * boundary of the adoption flow).
 */
export class OrderRepositoryMongo implements OrderRepository {
  private readonly orders: Collection<OrderDocument>;
  private readonly counters: Collection<CounterDocument>;

  /** `outbox`: shared with the connection's `EventStoreMongo` (its `onRecorded`); the events themselves live in the records. */
  constructor(
    db: Db,
    private readonly outbox: MongoOutbox = new MongoOutbox(),
  ) {
    this.orders = db.collection<OrderDocument>(COLLECTIONS.orders);
    this.counters = db.collection<CounterDocument>(COLLECTIONS.counters);
  }

  async create(draft: OrderDraft, token?: string): Promise<OrderRecord> {
    for (let draw = 1; ; draw++) {
      const counter = await upsertWithRetry(() =>
        this.counters.findOneAndUpdate(
          { _id: COUNTERS.orders },
          { $inc: { value: 1 } },
          { upsert: true, returnDocument: 'after' },
        ),
      );
      if (counter === null) throw new Error('the order id counter was not returned');
      const doc: OrderDocument = {
        _id: counter.value,
        petId: draft.petId,
        owner: draft.owner,
        state: draft.state,
        placedAt: draft.placedAt,
        updatedAt: draft.updatedAt,
        ...(token === undefined ? {} : { token }),
      };
      try {
        await guard(() => this.orders.insertOne(doc));
        return toRecord(doc);
      } catch (error) {
        if (classifyMongoError(error) !== 'duplicate_key') throw error;
        // The token already stored (an earlier attempt's placement under the same key): that record is the answer.
        const earlier = token === undefined ? undefined : await this.findByCreationToken(token);
        if (earlier !== undefined) return earlier;
        if (draw === MAX_DRAWS) throw error;
      }
    }
  }

  async findById(id: number): Promise<OrderRecord | undefined> {
    const doc = await guard(() => this.orders.findOne({ _id: id }));
    return doc === null ? undefined : toRecord(doc);
  }

  async findByCreationToken(token: string): Promise<OrderRecord | undefined> {
    const doc = await guard(() => this.orders.findOne({ token }));
    return doc === null ? undefined : toRecord(doc);
  }

  /**
   * One `updateOne` filtered on the expected state. With `record` (docs/rules.md §15) the record is
   * read first: all it holds but the state and `updatedAt` never changes, and the state is the
   * update's condition, so the events built from it are the record as the update leaves it, pushed
   * to its outbox by that same update.
   */
  async updateState(
    id: number,
    expected: OrderState,
    next: OrderState,
    updatedAt: string,
    record?: Recorder<OrderRecord>,
  ): Promise<boolean> {
    let entries: ReturnType<MongoOutbox['entries']> = [];
    if (record !== undefined) {
      const doc = await guard(
        () => this.orders.findOne({ _id: id, state: expected }, { projection: { outbox: 0 } }),
        `find on ${COLLECTIONS.orders}`,
      );
      if (doc === null) return false;
      entries = this.outbox.entries(record, { ...toRecord(doc), state: next, updatedAt });
    }
    const result = await guard(
      () => this.orders.updateOne({ _id: id, state: expected }, pushOutbox({ state: next, updatedAt }, entries)),
      `update on ${COLLECTIONS.orders}`,
    );
    if (result.matchedCount !== 1) return false;
    this.outbox.recorded(entries);
    return true;
  }

  /** Served by `{owner, _id}` for an owner's list and `{state, _id}` for all orders by state; both walk `_id` ascending. */
  async list(query: OrderListQuery): Promise<readonly OrderRecord[]> {
    const filter: Filter<OrderDocument> = {
      ...(query.owner === undefined ? {} : { owner: query.owner }),
      state: { $in: [...query.states] },
      _id: { $gt: query.afterId },
    };
    const docs = await guard(() => this.orders.find(filter).sort({ _id: 1 }).limit(query.limit).toArray());
    return docs.map(toRecord);
  }
}

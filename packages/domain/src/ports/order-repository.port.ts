import type { OrderDraft, OrderRecord, OrderState } from '../order/order.js';
import type { Recorder } from '../events/event.js';

export interface OrderListQuery {
  /** Only orders of this owner (a key's public id); every owner's when absent. */
  readonly owner?: string;
  /** Only records in one of these states (never empty). */
  readonly states: readonly OrderState[];
  /** Only orders whose id is greater than this (0 for the first page). */
  readonly afterId: number;
  /** At most this many rows. */
  readonly limit: number;
}

/**
 * Where order records live: the history of the adoption flow (the pet's hold is the reservation).
 * Implementations throw `StoreUnavailableError` when the store cannot answer.
 */
export interface OrderRepository {
  /**
   * Stores a record under a new id: positive, unique, never reused, greater than every id given
   * before (also under concurrent creates; ids may have gaps).
   * With a creation `token` (docs/rules.md §10) the record carries it, written in the same single
   * write, and tokens are unique: when a record already carries this token, nothing is stored and
   * the answer is that record, as it is now (whatever its state).
   */
  create(draft: OrderDraft, token?: string): Promise<OrderRecord>;
  /** The record created with this creation token, as it is now, or `undefined` when none was (docs/rules.md §10). */
  findByCreationToken(token: string): Promise<OrderRecord | undefined>;
  findById(id: number): Promise<OrderRecord | undefined>;
  /**
   * The record's compare-and-set, atomic on one record: when its state is `expected`, set it to
   * `next` and `updatedAt`, and answer `true`; otherwise change nothing and answer `false` (also
   * when no record has this id). Of N concurrent updates from the same `expected`, at most one
   * answers `true`.
   * With `record` (docs/rules.md §15), a compare-and-set that answers `true` calls it with the record
   * after it and appends the events to the record's outbox in that same write. (`create` records
   * nothing: a `placing` record is invisible.)
   */
  updateState(
    id: number,
    expected: OrderState,
    next: OrderState,
    updatedAt: string,
    record?: Recorder<OrderRecord>,
  ): Promise<boolean>;
  /** Matching records with `id > afterId`, in ascending id order, at most `limit` of them. */
  list(query: OrderListQuery): Promise<readonly OrderRecord[]>;
}

import type { OrderDraft, OrderListQuery, OrderRecord, OrderRepository, OrderState, Recorder } from '@petstore/domain';
import type { MemoryOutbox } from './outbox.in-memory.js';

/** Index of the first record in `records` (ascending ids) whose id is greater than `afterId`. */
const firstAfter = (records: readonly OrderRecord[], afterId: number): number => {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (records[mid]!.id <= afterId) low = mid + 1;
    else high = mid;
  }
  return low;
};

/**
 * Order records in process memory. Ids come from a counter, so `all` and each owner's array stay
 * sorted by id by appending alone: finds are binary searches, lists walk from the cursor's position
 * (filtering by state as they go). Records are frozen and replaced on each state change. With an
 * `outbox`, a compare-and-set that lands records its events there in the same step (docs/rules.md §15).
 */
export class OrderRepositoryInMemory implements OrderRepository {
  private lastId = 0;
  private readonly all: OrderRecord[] = [];
  private readonly byOwner = new Map<string, OrderRecord[]>();
  /** Creation token → id of the record created with it (docs/rules.md §10; only records created with one). */
  private readonly byToken = new Map<string, number>();

  constructor(private readonly outbox?: MemoryOutbox) {}

  async create(draft: OrderDraft, token?: string): Promise<OrderRecord> {
    // No await before the record is in place: the token check and the insert are one atomic step.
    if (token !== undefined) {
      const earlier = this.byToken.get(token);
      if (earlier !== undefined) return this.all[firstAfter(this.all, earlier - 1)]!;
      this.byToken.set(token, this.lastId + 1);
    }
    const record: OrderRecord = Object.freeze({ id: ++this.lastId, ...draft });
    this.all.push(record);
    let mine = this.byOwner.get(record.owner);
    if (!mine) this.byOwner.set(record.owner, (mine = []));
    mine.push(record);
    return record;
  }

  async findById(id: number): Promise<OrderRecord | undefined> {
    const found = this.all[firstAfter(this.all, id - 1)];
    return found?.id === id ? found : undefined;
  }

  async findByCreationToken(token: string): Promise<OrderRecord | undefined> {
    const id = this.byToken.get(token);
    return id === undefined ? undefined : this.all[firstAfter(this.all, id - 1)];
  }

  async updateState(
    id: number,
    expected: OrderState,
    next: OrderState,
    updatedAt: string,
    recorder?: Recorder<OrderRecord>,
  ): Promise<boolean> {
    const at = firstAfter(this.all, id - 1);
    const record = this.all[at];
    if (record?.id !== id || record.state !== expected) return false;
    const changed: OrderRecord = Object.freeze({ ...record, state: next, updatedAt });
    this.all[at] = changed;
    const mine = this.byOwner.get(record.owner)!;
    mine[firstAfter(mine, id - 1)] = changed;
    this.outbox?.record(recorder, changed);
    return true;
  }

  async list(query: OrderListQuery): Promise<readonly OrderRecord[]> {
    const source = query.owner === undefined ? this.all : (this.byOwner.get(query.owner) ?? []);
    const states = new Set(query.states);
    const rows: OrderRecord[] = [];
    for (let i = firstAfter(source, query.afterId); i < source.length && rows.length < query.limit; i++) {
      const record = source[i]!;
      if (states.has(record.state)) rows.push(record);
    }
    return rows;
  }
}

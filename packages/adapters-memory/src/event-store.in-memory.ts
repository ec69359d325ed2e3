import type {
  AppendOutcome,
  Event,
  EventQuery,
  EventSource,
  EventStore,
  EventType,
  OutboxEntry,
  RelayLease,
  Timers,
} from '@petstore/domain';
import { leaseAllows, SequenceWaiters } from '@petstore/domain';
import { MemoryOutbox } from './outbox.in-memory.js';

// Timers are the one platform facility used here; declared locally so that the package needs no
// runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;
declare const clearTimeout: (handle: unknown) => void;
const timers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};

/** Index of the first event in `events` (ascending sequences) whose sequence is greater than `sequence`. */
const firstAfter = (events: readonly Event[], sequence: number): number => {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (events[mid]!.sequence <= sequence) low = mid + 1;
    else high = mid;
  }
  return low;
};

/**
 * The events of an in-memory store (docs/rules.md §15): the outboxes its repositories fill (`outbox`,
 * given to each of them) and the feed. The feed is an array in sequence order (the sequences of the
 * kept events are consecutive, so a read after n starts at a computed index), with an array per type
 * for filtered reads (merged by sequence) and the set of ids for `append`'s duplicate check. Every
 * method runs to its end without yielding, so each step is atomic; an appended event is visible at
 * once. Waits are woken by `append` (all relays of an in-memory store run in its process). The
 * relay's steps answer at once, not promises: a relay run after a create takes no promise turn.
 */
export class EventStoreInMemory implements EventStore {
  private readonly feed: Event[] = [];
  private readonly byType = new Map<EventType, Event[]>();
  private readonly ids = new Set<string>();
  private last = 0;
  private relayLease: RelayLease | undefined;
  private readonly waiters = new SequenceWaiters(timers);

  constructor(readonly outbox: MemoryOutbox = new MemoryOutbox()) {}

  lease(holder: string, now: number, until: number): boolean {
    if (!leaseAllows(this.relayLease, holder, now)) return false;
    this.relayLease = { holder, until };
    return true;
  }

  pending(limit: number): readonly OutboxEntry[] {
    return this.outbox.pending(limit);
  }

  pendingOf(source: EventSource): readonly OutboxEntry[] {
    return this.outbox.pendingOf(source);
  }

  lastSequence(): number {
    return this.last;
  }

  append(event: Event): AppendOutcome {
    if (this.ids.has(event.id)) return 'duplicate';
    if (event.sequence <= this.last) return 'taken';
    if (event.sequence !== this.last + 1)
      throw new Error(`event ${event.id} appended at ${event.sequence}, past the next sequence ${this.last + 1}`);
    // Frozen as it is (the relay made it for this call): what readers get can never change the feed.
    const stored = Object.freeze(event);
    this.feed.push(stored);
    let typed = this.byType.get(stored.type);
    if (typed === undefined) this.byType.set(stored.type, (typed = []));
    typed.push(stored);
    this.ids.add(stored.id);
    this.last = stored.sequence;
    this.waiters.notify(this.last);
    return 'appended';
  }

  clear(source: EventSource, ids: readonly string[]): void {
    this.outbox.clear(source, ids);
  }

  onRecorded(listener: () => void): () => void {
    return this.outbox.onRecorded(listener);
  }

  /** Answers at once (no promise): a read of the feed is a request's hot path. */
  after(sequence: number, query: EventQuery): readonly Event[] {
    if (query.types === undefined) {
      const start = this.feed.length === 0 ? 0 : Math.max(0, sequence - this.feed[0]!.sequence + 1);
      return this.feed.slice(start, start + query.limit);
    }
    const lists = query.types.map((type) => this.byType.get(type) ?? []);
    const at = lists.map((list) => firstAfter(list, sequence));
    const out: Event[] = [];
    while (out.length < query.limit) {
      let pick = -1;
      for (let i = 0; i < lists.length; i++) {
        const next = lists[i]![at[i]!];
        if (next !== undefined && (pick === -1 || next.sequence < lists[pick]![at[pick]!]!.sequence)) pick = i;
      }
      if (pick === -1) break;
      out.push(lists[pick]![at[pick]!++]!);
    }
    return out;
  }

  async firstSequence(): Promise<number> {
    return this.feed[0]?.sequence ?? this.last + 1;
  }

  async purge(through: number): Promise<number> {
    const end = Math.min(through, this.last - 1);
    const count = firstAfter(this.feed, end);
    if (count === 0) return 0;
    for (const event of this.feed.splice(0, count)) this.ids.delete(event.id);
    for (const [type, list] of this.byType) {
      const gone = firstAfter(list, end);
      if (gone === list.length) this.byType.delete(type);
      else list.splice(0, gone);
    }
    return count;
  }

  waitBeyond(sequence: number, timeoutMs: number, until?: PromiseLike<unknown>): Promise<number> {
    return this.waiters.wait(sequence, timeoutMs, () => this.last, until);
  }

  /** Events kept (for tests and metrics). */
  get size(): number {
    return this.feed.length;
  }

  /** Waits under way (for tests: none is left behind). */
  get waiting(): number {
    return this.waiters.size;
  }
}

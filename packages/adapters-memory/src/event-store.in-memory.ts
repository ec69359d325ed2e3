import type {
  AppendOutcome,
  Event,
  EventQuery,
  EventSource,
  EventStore,
  EventType,
  OutboxEntry,
  Lease,
  Timers,
} from '@petstore/domain';
import { leaseAllows, SequenceWaiters } from '@petstore/domain';
import { EventList } from './event-list.js';
import { MemoryOutbox } from './outbox.in-memory.js';

/** The list of a type with no event kept. */
const EMPTY = new EventList();

// Timers are the one platform facility used here; declared locally so that the package needs no
// runtime's type package (every JavaScript runtime has these two globals).
declare const setTimeout: (callback: () => void, ms: number) => unknown;
declare const clearTimeout: (handle: unknown) => void;
const timers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};

/** The default bound: `PETSTORE_EVENT_MEMORY_MAX`'s default, 100,000 events (docs/rules.md §6). */
const DEFAULT_MAX_EVENTS = 100_000;

/**
 * The events of an in-memory store (docs/rules.md §15): the outboxes its repositories fill (`outbox`,
 * given to each of them) and the feed. The feed is a list in sequence order (the sequences of the
 * kept events are consecutive, so a read after n starts at a computed index), with a list per type
 * for filtered reads (merged by sequence) and the set of ids for `append`'s duplicate check. Every
 * method runs to its end without yielding, so each step is atomic; an appended event is visible at
 * once. Waits are woken by `append` (all relays of an in-memory store run in its process). The
 * relay's steps answer at once, not promises: a relay run after a create takes no promise turn.
 *
 * The feed keeps at most `maxEvents` events (`PETSTORE_EVENT_MEMORY_MAX`): an append past it drops
 * the oldest, as the retention would, and remembers per type the last sequence so dropped
 * (`evictedThrough`), so that a subscription behind it is paused rather than moved on silently.
 */
export class EventStoreInMemory implements EventStore {
  private readonly feed = new EventList();
  private readonly byType = new Map<EventType, EventList>();
  private readonly ids = new Set<string>();
  /** Per type, the highest sequence the bound dropped. */
  private readonly evicted = new Map<EventType, number>();
  private last = 0;
  private relayLease: Lease | undefined;
  private readonly waiters = new SequenceWaiters(timers);

  constructor(
    readonly outbox: MemoryOutbox = new MemoryOutbox(),
    private readonly maxEvents: number = DEFAULT_MAX_EVENTS,
  ) {
    if (!Number.isSafeInteger(maxEvents) || maxEvents < 1)
      throw new RangeError(`maxEvents must be a whole number of 1 or more (got ${maxEvents})`);
  }

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
    if (typed === undefined) this.byType.set(stored.type, (typed = new EventList()));
    typed.push(stored);
    this.ids.add(stored.id);
    this.last = stored.sequence;
    if (this.feed.length > this.maxEvents) this.evictOldest();
    this.waiters.notify(this.last);
    return 'appended';
  }

  /** Drops the oldest event for the bound: it is the oldest of its type too. */
  private evictOldest(): void {
    const oldest = this.feed.shift()!;
    this.byType.get(oldest.type)!.shift();
    this.ids.delete(oldest.id);
    this.evicted.set(oldest.type, oldest.sequence);
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
      const first = this.feed.at(0);
      const start = first === undefined ? 0 : Math.max(0, sequence - first.sequence + 1);
      return this.feed.slice(start, start + query.limit);
    }
    const lists = query.types.map((type) => this.byType.get(type) ?? EMPTY);
    const at = lists.map((list) => list.firstAfter(sequence));
    const out: Event[] = [];
    while (out.length < query.limit) {
      let pick = -1;
      for (let i = 0; i < lists.length; i++) {
        const next = lists[i]!.at(at[i]!);
        if (next !== undefined && (pick === -1 || next.sequence < lists[pick]!.at(at[pick]!)!.sequence)) pick = i;
      }
      if (pick === -1) break;
      out.push(lists[pick]!.at(at[pick]!++)!);
    }
    return out;
  }

  async firstSequence(): Promise<number> {
    return this.feed.at(0)?.sequence ?? this.last + 1;
  }

  async purge(through: number): Promise<number> {
    const end = Math.min(through, this.last - 1);
    const gone = this.feed.dropThrough(end);
    for (const event of gone) this.ids.delete(event.id);
    if (gone.length > 0)
      for (const [type, list] of this.byType) {
        list.dropThrough(end);
        if (list.length === 0) this.byType.delete(type);
      }
    return gone.length;
  }

  async evictedThrough(types?: readonly EventType[]): Promise<number> {
    let through = 0;
    for (const [type, sequence] of this.evicted)
      if (types === undefined || types.includes(type)) through = Math.max(through, sequence);
    return through;
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

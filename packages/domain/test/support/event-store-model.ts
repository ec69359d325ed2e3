import type {
  Answer,
  AppendOutcome,
  Event,
  EventQuery,
  EventSource,
  EventStore,
  EventType,
  NewEvent,
  OutboxEntry,
  Lease,
  Timers,
} from '../../src/index.js';
import { eventSource, leaseAllows, sourceKey } from '../../src/index.js';

/**
 * A plain event store for the domain's own tests of the relay and the feed (adapters prove
 * themselves with `eventStoreContract`): outboxes as arrays, the feed as an array. Every method is a
 * property, so a test can replace one to stage a race or a store that misbehaves; `calls` records
 * the relay's steps in order.
 */
export class EventStoreModel implements EventStore {
  readonly outboxes = new Map<string, OutboxEntry[]>();
  readonly feed: Event[] = [];
  readonly calls: string[] = [];
  lastSeq = 0;
  currentLease: Lease | undefined;
  /** Per type, the highest sequence `evict` dropped. */
  readonly evicted = new Map<EventType, number>();
  private nextId = 0;
  private atOnce = false;
  private readonly listeners = new Set<() => void>();
  private readonly waiters = new Set<(last: number) => void>();

  /** `timers`: what `waitBeyond`'s timeout runs on (a test's virtual timers, or the process's). */
  constructor(
    private readonly timers: Timers = { setTimeout, clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) },
  ) {}

  /**
   * From now on the relay's steps answer at once, as an in-process store's do (the memory store):
   * the relay then runs without a promise turn. By default each answers with a promise, as a
   * networked store's do.
   */
  answerAtOnce(): this {
    this.atOnce = true;
    return this;
  }

  /** A step's answer: its value, at once or in a promise; a step that throws rejects unless at once. */
  private answer<T>(step: () => T): Answer<T> {
    return this.atOnce ? step() : new Promise<T>((resolve) => resolve(step()));
  }

  /** What a repository's write would record: entries in their resources' outboxes. */
  record(...events: NewEvent[]): OutboxEntry[] {
    const entries = events.map((event) => ({ ...event, id: `evt_${++this.nextId}` }) as OutboxEntry);
    for (const entry of entries) {
      const key = sourceKey(eventSource(entry));
      this.outboxes.set(key, [...(this.outboxes.get(key) ?? []), entry]);
    }
    for (const listener of this.listeners) listener();
    return entries;
  }

  lease = (holder: string, now: number, until: number): Answer<boolean> =>
    this.answer(() => {
      this.calls.push(`lease ${holder}`);
      if (!leaseAllows(this.currentLease, holder, now)) return false;
      this.currentLease = { holder, until };
      return true;
    });

  pending = (limit: number): Answer<readonly OutboxEntry[]> =>
    this.answer(() => {
      this.calls.push(`pending ${limit}`);
      return [...this.outboxes.values()].flat().slice(0, limit);
    });

  pendingOf = (source: EventSource): Answer<readonly OutboxEntry[]> =>
    this.answer(() => {
      this.calls.push(`pendingOf ${sourceKey(source)}`);
      return [...(this.outboxes.get(sourceKey(source)) ?? [])];
    });

  lastSequence = (): Answer<number> =>
    this.answer(() => {
      this.calls.push('lastSequence');
      return this.lastSeq;
    });

  append = (event: Event): Answer<AppendOutcome> =>
    this.answer(() => {
      this.calls.push(`append ${event.id}@${event.sequence}`);
      if (this.feed.some((e) => e.id === event.id)) return 'duplicate';
      if (event.sequence <= this.lastSeq) return 'taken';
      this.feed.push(event);
      this.lastSeq = event.sequence;
      for (const waiter of [...this.waiters]) waiter(this.lastSeq);
      return 'appended';
    });

  clear = (source: EventSource, ids: readonly string[]): Answer<void> =>
    this.answer(() => {
      this.calls.push(`clear ${sourceKey(source)} ${ids.join(',')}`);
      const key = sourceKey(source);
      const left = (this.outboxes.get(key) ?? []).filter((entry) => !ids.includes(entry.id));
      if (left.length === 0) this.outboxes.delete(key);
      else this.outboxes.set(key, left);
    });

  onRecorded = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  after = (sequence: number, query: EventQuery): readonly Event[] =>
    this.feed
      .filter((e) => e.sequence > sequence && (query.types === undefined || query.types.includes(e.type)))
      .slice(0, query.limit);

  firstSequence = async (): Promise<number> => this.feed[0]?.sequence ?? this.lastSeq + 1;

  purge = async (through: number): Promise<number> => {
    this.calls.push(`purge ${through}`);
    const gone = this.feed.filter((e) => e.sequence <= through).length;
    this.feed.splice(0, gone);
    return gone;
  };

  /** What a store bounded in size does when full: drops the events up to `through` from the start, each remembered by type. */
  evict(through: number): void {
    while (this.feed[0] !== undefined && this.feed[0].sequence <= through) {
      const dropped = this.feed.shift()!;
      this.evicted.set(dropped.type, dropped.sequence);
    }
  }

  evictedThrough = async (types?: readonly EventType[]): Promise<number> =>
    Math.max(0, ...[...this.evicted].filter(([type]) => types === undefined || types.includes(type)).map(([, s]) => s));

  waitBeyond = (sequence: number, timeoutMs: number, until?: PromiseLike<unknown>): Promise<number> => {
    this.calls.push(`waitBeyond ${sequence} ${timeoutMs}`);
    if (this.lastSeq > sequence) return Promise.resolve(this.lastSeq);
    return new Promise<number>((resolve) => {
      // Ends the wait (once): by an event beyond `sequence` (`last`), its timeout, or `until`.
      const end = (last = Number.POSITIVE_INFINITY): void => {
        if (last <= sequence || !this.waiters.delete(done)) return;
        if (timer !== undefined) this.timers.clearTimeout(timer);
        resolve(this.lastSeq);
      };
      const done = (last: number): void => end(last);
      this.waiters.add(done);
      // As the port says: Infinity sets no timer (an event or `until` ends the wait).
      const timer = timeoutMs === Number.POSITIVE_INFINITY ? undefined : this.timers.setTimeout(() => end(), timeoutMs);
      until?.then(
        () => end(),
        () => end(),
      );
    });
  };

  /** The waits on the feed under way (`waitBeyond`). */
  get waits(): number {
    return this.waiters.size;
  }

  /** The entries waiting, in all. */
  get waiting(): number {
    return [...this.outboxes.values()].reduce((n, entries) => n + entries.length, 0);
  }
}

import type { AppendOutcome, Event, EventQuery, EventSource, EventStore, OutboxEntry, Lease } from '@petstore/domain';
import { leaseAllows } from '@petstore/domain';
import { MemoryOutbox } from '../../src/index.js';

/**
 * Event stores that each break one guarantee of docs/rules.md §15 the way a real adapter could, for
 * the strength test (contract-strength.test.ts): the exported contract suite must fail for each.
 */
export const EVENT_DEFECTS = [
  {
    name: 'skips a sequence:',
    why: 'its last sequence counts every append it was asked for, a repeat of an event already in the feed too',
  },
  {
    name: 'stores an event twice:',
    why: 'append checks the sequence only (no unique event id), so a relay that died before clearing moves an event again',
  },
  {
    name: 'shows an event before a smaller one:',
    why: 'an appended event of an odd sequence becomes visible to readers a moment after its append answered, an even one at once (an acknowledged write read from a lagging copy)',
  },
  {
    name: 'loses an event in a crash:',
    why: 'pending takes the entries out of their outboxes as it reads them (a queue popped), so a relay that dies before appending them loses them',
  },
] as const;
export type EventDefect = (typeof EVENT_DEFECTS)[number]['name'];

/** A plain feed over a `MemoryOutbox`, right but for its one `defect`. */
export class FlawedEventStore implements EventStore {
  private readonly stored: Event[] = [];
  private readonly visible = new Set<number>();
  private last = 0;
  private appends = 0;
  private relayLease: Lease | undefined;

  constructor(
    readonly outbox: MemoryOutbox,
    private readonly defect: EventDefect,
  ) {}

  async lease(holder: string, now: number, until: number): Promise<boolean> {
    if (!leaseAllows(this.relayLease, holder, now)) return false;
    this.relayLease = { holder, until };
    return true;
  }

  async pending(limit: number): Promise<readonly OutboxEntry[]> {
    const entries = this.outbox.pending(limit);
    if (this.defect === 'loses an event in a crash:')
      for (const entry of entries) this.outbox.clear(sourceOf(entry), [entry.id]);
    return entries;
  }

  async pendingOf(source: EventSource): Promise<readonly OutboxEntry[]> {
    const entries = this.outbox.pendingOf(source);
    if (this.defect === 'loses an event in a crash:')
      this.outbox.clear(
        source,
        entries.map((e) => e.id),
      );
    return entries;
  }

  async lastSequence(): Promise<number> {
    return this.defect === 'skips a sequence:' ? this.appends : this.last;
  }

  async append(event: Event): Promise<AppendOutcome> {
    this.appends = Math.max(this.appends, event.sequence);
    if (this.defect !== 'stores an event twice:' && this.stored.some((e) => e.id === event.id)) {
      if (this.defect === 'skips a sequence:') this.appends++;
      return 'duplicate';
    }
    if (this.stored.some((e) => e.sequence === event.sequence)) return 'taken';
    this.stored.push(event);
    this.stored.sort((a, b) => a.sequence - b.sequence);
    this.last = Math.max(this.last, event.sequence);
    if (this.defect === 'shows an event before a smaller one:' && event.sequence % 2 === 1)
      setTimeout(() => this.visible.add(event.sequence), 3);
    else this.visible.add(event.sequence);
    return 'appended';
  }

  async clear(source: EventSource, ids: readonly string[]): Promise<void> {
    this.outbox.clear(source, ids);
  }

  onRecorded(listener: () => void): () => void {
    return this.outbox.onRecorded(listener);
  }

  after(sequence: number, query: EventQuery): readonly Event[] {
    return this.stored
      .filter(
        (e) =>
          e.sequence > sequence &&
          this.visible.has(e.sequence) &&
          (query.types === undefined || query.types.includes(e.type)),
      )
      .slice(0, query.limit);
  }

  async firstSequence(): Promise<number> {
    return this.stored[0]?.sequence ?? this.last + 1;
  }

  async evictedThrough(): Promise<number> {
    return 0;
  }

  async purge(through: number): Promise<number> {
    const before = this.stored.length;
    const end = Math.min(through, this.last - 1);
    this.stored.splice(0, this.stored.filter((e) => e.sequence <= end).length);
    return before - this.stored.length;
  }

  async waitBeyond(sequence: number, timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    while (this.last <= sequence && Date.now() < until) await new Promise<void>((resolve) => setTimeout(resolve, 1));
    return this.last;
  }
}

const sourceOf = (entry: OutboxEntry): EventSource => ({
  kind: entry.type.slice(0, entry.type.indexOf('.')) as EventSource['kind'],
  id: entry.data.id,
});

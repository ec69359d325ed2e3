import type { EventSource, OutboxEntry, Recorder } from '@petstore/domain';
import { eventSourceKey, sourceKey } from '@petstore/domain';

/**
 * The outboxes of the in-memory repositories (docs/rules.md §15): one list of waiting entries per
 * resource, shared by the repositories of one store and read by its `EventStoreInMemory`. A
 * repository calls `record` inside its write, in the same synchronous step (nothing can run in
 * between), so the events are recorded exactly when the change is made. Resources are kept in the
 * order they first had something waiting (a Map's order): the oldest waits are read first.
 */
export class MemoryOutbox {
  private lastId = 0;
  private readonly waiting = new Map<string, OutboxEntry[]>();
  private readonly listeners = new Set<() => void>();

  /** Records what `record` answers for the resource as the write leaves it (nothing without a recorder), then tells the listeners. */
  record<T>(record: Recorder<T> | undefined, after: T): void {
    if (record === undefined) return;
    const events = record(after);
    if (events.length === 0) return;
    for (const event of events) {
      // Every entry with the same six fields in the same order (the ones it has not, undefined): one
      // shape for all, so that the relay's reads of them stay fast. (A spread of the recorder's
      // events, whose fields differ by type, gave a new shape per entry and slow reads everywhere.)
      const entry = {
        id: `evt_${(++this.lastId).toString(36)}`,
        type: event.type,
        occurredAt: event.occurredAt,
        data: event.data,
        follows: event.follows,
        mark: event.mark,
      } as OutboxEntry;
      const key = eventSourceKey(event);
      const entries = this.waiting.get(key);
      if (entries === undefined) this.waiting.set(key, [entry]);
      else entries.push(entry);
    }
    for (const listener of this.listeners) listener();
  }

  /** Up to `limit` waiting entries: each resource's in order, the resources longest waiting first. */
  pending(limit: number): readonly OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const entries of this.waiting.values()) {
      for (const entry of entries) {
        if (out.length >= limit) return out;
        out.push(entry);
      }
    }
    return out;
  }

  pendingOf(source: EventSource): readonly OutboxEntry[] {
    return [...(this.waiting.get(sourceKey(source)) ?? [])];
  }

  clear(source: EventSource, ids: readonly string[]): void {
    const key = sourceKey(source);
    const entries = this.waiting.get(key);
    if (entries === undefined) return;
    // The usual case: all of them, as the relay read them.
    if (ids.length === entries.length && entries.every((entry, i) => entry.id === ids[i]))
      return void this.waiting.delete(key);
    const gone = new Set(ids);
    const left = entries.filter((entry) => !gone.has(entry.id));
    if (left.length === 0) this.waiting.delete(key);
    else this.waiting.set(key, left);
  }

  onRecorded(listener: () => void): () => void {
    const own = (): void => listener();
    this.listeners.add(own);
    return () => void this.listeners.delete(own);
  }

  /** Entries waiting, in all (for tests: the relay leaves none). */
  get size(): number {
    let count = 0;
    for (const entries of this.waiting.values()) count += entries.length;
    return count;
  }
}

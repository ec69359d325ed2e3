import { randomBytes } from 'node:crypto';
import type { OutboxEntry, Recorder } from '@petstore/domain';

/**
 * The outboxes of the MongoDB repositories (docs/rules.md §15, docs/design.md "Events"): each
 * document whose decisive write records events carries them in an `outbox` array, pushed by that
 * same conditional update (or written with the document by its insert), never by a second write.
 * The same update keeps `outboxSince` at the smallest event id it pushed (`$min`): ids grow with
 * time (`newEventId`), so it is about when the oldest entry waiting was recorded. The partial index
 * `{outboxSince}` of each collection holds exactly the documents with entries waiting, oldest first,
 * so the relay's scan (`EventStoreMongo.pending`) reads only those, oldest first. (The scan's filter
 * is the field itself, so its answer does not depend on the index: mongo-java-server, which has no
 * secondary-index semantics, answers the same by a collection scan.) `EventStoreMongo.clear` pulls
 * the moved entries and drops the field (and the array) once the outbox is empty, in a write
 * conditional on it being empty; while entries remain, the field may be older than the oldest of
 * them, which only moves that document up the scan.
 */
export interface OutboxFields {
  readonly outbox?: readonly OutboxEntry[];
  readonly outboxSince?: string;
}

/** The field's name, for filters. */
export const OUTBOX_SINCE = 'outboxSince';

/** The partial index every collection with outboxes gets (indexes.ts): only documents with entries waiting are in it, oldest first. */
export const OUTBOX_INDEX = {
  key: { outboxSince: 1 },
  name: 'outboxSince_1',
  partialFilterExpression: { outboxSince: { $exists: true } },
} as const;

let lastMs = 0;
let counter = 0;

/**
 * `evt_`, 12 hex digits of the time in ms, 4 of a counter, and 16 characters of base64url (96 random
 * bits): unique in the store without a shared counter (so the write that records an event fixes its
 * id), and, compared as text, increasing in this process (the counter orders ids of one
 * millisecond; a clock that goes back is held where it was) and about the time of recording across
 * processes. The relay reads the outboxes waiting longest first, so the feed follows the order of
 * recording across resources too, as far as a store without a shared clock can know it (§15
 * promises the order per resource, and causal order through `follows`; a relay moves each
 * resource's waiting entries together).
 */
export const newEventId = (): string => {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xffff) {
    lastMs++;
    counter = 0;
  }
  return `evt_${lastMs.toString(16).padStart(12, '0')}${counter.toString(16).padStart(4, '0')}${randomBytes(12).toString('base64url')}`;
};

/**
 * What BSON stores and gives back for a value the recorder built: its JSON (events are JSON on the
 * wire). Drops `undefined` members (the driver would write them as `null`, and the feed must give
 * back what the write recorded, exactly).
 */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** An update's `$set`, with the `$push` and `$min` that append `entries` to the document's outbox (nothing more without entries). */
export const pushOutbox = <S extends object>(
  set: S,
  entries: readonly OutboxEntry[],
): { $set: S; $push?: { outbox: { $each: OutboxEntry[] } }; $min?: { outboxSince: string } } =>
  entries.length === 0
    ? { $set: set }
    : { $set: set, $push: { outbox: { $each: [...entries] } }, $min: { outboxSince: entries[0]!.id } };

/** The fields a document inserted with its events carries (none without events). */
export const insertOutbox = (entries: readonly OutboxEntry[]): OutboxFields =>
  entries.length === 0 ? {} : { outbox: [...entries], outboxSince: entries[0]!.id };

/**
 * Shared by the repositories and the event store of one connection: builds the entries a write
 * records (each with its id, fixed here) and tells the event store's listeners, in this process,
 * once such a write has landed (the relay's cue; other processes' writes are found by polling).
 */
export class MongoOutbox {
  private readonly listeners = new Set<() => void>();

  /** The entries `record` answers for the resource as the write leaves it, each with a new id (none without a recorder). */
  entries<T>(record: Recorder<T> | undefined, after: T): readonly OutboxEntry[] {
    if (record === undefined) return [];
    return record(after).map((event) => plain({ ...event, id: newEventId() }) as OutboxEntry);
  }

  /** Tells the listeners that a write of this process recorded events (call after it landed; nothing when `entries` is empty). */
  recorded(entries: readonly OutboxEntry[]): void {
    if (entries.length === 0) return;
    for (const listener of [...this.listeners]) listener();
  }

  onRecorded(listener: () => void): () => void {
    const own = (): void => listener();
    this.listeners.add(own);
    return () => void this.listeners.delete(own);
  }
}

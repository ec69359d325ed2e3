import { randomBytes } from 'node:crypto';
import type { OutboxEntry, Recorder } from '@petstore/domain';

/**
 * The outboxes of the MongoDB repositories (docs/rules.md §15, docs/design.md "Events"): each
 * document whose decisive write records events carries them in an `outbox` array, pushed by that
 * same conditional update (or written with the document by its insert), never by a second write.
 * `hasOutbox: true` is set by the same update: the partial index `{hasOutbox, _id}` of each
 * collection then holds exactly the documents with entries waiting, so the relay's scan
 * (`EventStoreMongo.pending`) reads only those. (The scan's filter is the flag itself, so its answer
 * does not depend on the index: mongo-java-server, which has no secondary-index semantics, answers
 * the same by a collection scan.) `EventStoreMongo.clear` pulls the moved entries and drops the flag
 * (and the array) once the outbox is empty, in a write conditional on it being empty.
 */
export interface OutboxFields {
  readonly outbox?: readonly OutboxEntry[];
  readonly hasOutbox?: true;
}

/** The flag's name, for filters (`{ [OUTBOX_FLAG]: true }`). */
export const OUTBOX_FLAG = 'hasOutbox';

/** The partial index every collection with outboxes gets (indexes.ts): only documents with entries waiting are in it. */
export const OUTBOX_INDEX = { key: { hasOutbox: 1, _id: 1 }, name: 'hasOutbox_1__id_1', partialFilterExpression: { hasOutbox: { $exists: true } } } as const;

/** `evt_` and 22 characters of base64url (128 random bits): unique in the store without a counter, so fixed by the write that records it. */
export const newEventId = (): string => `evt_${randomBytes(16).toString('base64url')}`;

/**
 * What BSON stores and gives back for a value the recorder built: its JSON (events are JSON on the
 * wire). Drops `undefined` members (the driver would write them as `null`, and the feed must give
 * back what the write recorded, exactly).
 */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The `$push`/`$set` parts that append `entries` to a document's outbox, merged into an update's own. */
export const pushOutbox = <S extends object>(set: S, entries: readonly OutboxEntry[]): { $set: S & { hasOutbox?: true }; $push?: { outbox: { $each: OutboxEntry[] } } } =>
  entries.length === 0 ? { $set: set } : { $set: { ...set, hasOutbox: true as const }, $push: { outbox: { $each: [...entries] } } };

/** The fields a document inserted with its events carries (none without events). */
export const insertOutbox = (entries: readonly OutboxEntry[]): OutboxFields => (entries.length === 0 ? {} : { outbox: [...entries], hasOutbox: true });

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

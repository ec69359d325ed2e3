import type { Answer } from './answer.js';
import type { Event, EventSource, EventType, OutboxEntry } from '../events/event.js';

/** What `append` did with an event. */
export type AppendOutcome =
  /** Stored at its sequence: visible from now on. */
  | 'appended'
  /** An event with this id is in the feed already (a relay moved it before and stopped before clearing it): nothing written. */
  | 'duplicate'
  /** Another event holds this sequence (another relay numbered one first): nothing written. */
  | 'taken';

/** What `after` reads. */
export interface EventQuery {
  /** Only events of these types (never empty); every type when absent. */
  readonly types?: readonly EventType[];
  /** At most this many events. */
  readonly limit: number;
}

/**
 * The events of docs/rules.md §15: the outboxes the decisive writes fill, and the feed the relay
 * moves them into. docs/design.md ("Events") explains the design; the relay itself is domain code
 * (`EventRelay`), built on the steps below, each of them one atomic single-document operation (no
 * transaction, no change stream, no TTL index needed).
 *
 * **Outboxes.** A repository write that changes a resource (pets, categories, order records, photos,
 * keys) and is given a `Recorder` calls it inside that same atomic write with the resource as the
 * write leaves it, gives each event an id (`evt_…`, unique in the store, fixed from then on) and
 * appends it to the outbox of the event's own resource (`eventSource`): in MongoDB, an `outbox`
 * array in that resource's document, pushed by the same conditional update; in memory, in the same
 * synchronous step. So an event exists exactly when its change does: a write that does not land
 * records nothing, a write that lands records its events even when its answer is lost, and a create
 * answered with an earlier resource (its creation token) records nothing. A resource's outbox keeps
 * the order of its writes. A resource that is removed (a photo deleted) keeps its document, or a
 * trace of it holding its outbox, until its outbox is empty.
 *
 * **The feed.** Events numbered by `sequence` 1, 2, 3, … with no gap, each stored once under its id:
 * `append` writes event n only at sequence n, refusing a sequence already held and an id already in
 * the feed. A stored event never changes; events leave from the start only: by `purge` (the
 * retention), or, in a store bounded in size, when it is full (`evictedThrough`).
 *
 * Implementations throw `StoreUnavailableError` when the store cannot answer. Two relays running at
 * once (a lease that lapsed while its holder was paused) must still leave an exactly-once, gap-free
 * feed: `append`'s two refusals are what guarantee it, not the lease.
 */
export interface EventStore {
  // --- The relay's steps (EventRelay): an in-process store answers them at once (`Answer`), and
  // the relay then runs without a promise turn; a networked one answers promises. ---

  /**
   * Takes or renews the relay's lease for `holder` until `until`, atomically: when no lease is held,
   * the holder is `holder`, or the lease has run out (`until <= now`); answers whether `holder` holds
   * it now. Of N simultaneous takes of a free lease exactly one succeeds, also across processes.
   */
  lease(holder: string, now: number, until: number): Answer<boolean>;
  /**
   * Entries waiting in outboxes, at most `limit` (at least one when any wait): for each resource a
   * prefix of its outbox, in its order (the oldest first); resources in any order.
   */
  pending(limit: number): Answer<readonly OutboxEntry[]>;
  /** The entries waiting in one resource's outbox, in order (none when it has none, or no such resource). */
  pendingOf(source: EventSource): Answer<readonly OutboxEntry[]>;
  /**
   * The highest sequence ever appended (0 before the first): the next event is `lastSequence() + 1`.
   * It never goes down, also when `purge` removed events.
   */
  lastSequence(): Answer<number>;
  /**
   * Stores `event` at `event.sequence`, atomically: `appended`, or, writing nothing, `duplicate` when
   * an event with its id is in the feed (at any sequence; a purged one need not count), else `taken`
   * when another event holds that sequence. Only ever called with `event.sequence <= lastSequence() + 1`.
   * An appended event is visible to `after` once `append` has answered (never before an event with a
   * smaller sequence).
   */
  append(event: Event): Answer<AppendOutcome>;
  /** Removes these entries (by id) from the outbox of `source`, if there; the others stay. Safe to repeat. */
  clear(source: EventSource, ids: readonly string[]): Answer<void>;
  /**
   * Calls `listener` after a write made through this store's repositories in this process recorded
   * events (the relay's cue to run at once; other processes' writes are found by polling). Answers
   * a function that stops the calls.
   */
  onRecorded(listener: () => void): () => void;

  // --- The feed's reads ---

  /**
   * Events with a sequence greater than `sequence`, ascending, of the types asked (all when absent),
   * at most `limit`. (An in-process store answers at once: `Answer`.)
   */
  after(sequence: number, query: EventQuery): Answer<readonly Event[]>;
  /** The sequence of the first event kept (the others before it were purged); `lastSequence() + 1` when none is kept. */
  firstSequence(): Promise<number>;
  /**
   * The highest sequence of an event of these types (every type when absent) that left the feed
   * before its retention because the store keeps a bounded number of events (the memory store: the
   * oldest go first when it is full); 0 when none did. A store without such a bound answers 0.
   */
  evictedThrough(types?: readonly EventType[]): Promise<number>;
  /**
   * Removes every event with a sequence up to `through` (the start of the feed, never its middle);
   * `through` is below `lastSequence()`, so the newest event always stays. Answers how many went.
   */
  purge(through: number): Promise<number>;
  /**
   * Resolves with the feed's last sequence as soon as it is above `sequence` (at once when it already
   * is), or when `timeoutMs` have passed, or when `until` settles, whichever comes first (then with
   * the last sequence as it is). A store shared by processes notices events appended elsewhere by
   * polling, within a second. `timeoutMs` Infinity: no timeout (an event or `until` ends the wait).
   */
  waitBeyond(sequence: number, timeoutMs: number, until?: PromiseLike<unknown>): Promise<number>;
}

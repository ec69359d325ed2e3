import { eventSource, eventSourceKey, type EventSource, type OutboxEntry } from './event.js';

/**
 * The outbox and the relay (docs/rules.md §15, docs/design.md "Events"), as plain rules: each
 * decisive write appends its events to its resource's outbox; a relay, holding a lease, moves them
 * into the feed one at a time, each at the next sequence, then clears them from their outbox. The
 * steps are `EventRelay`'s (use-cases/event-relay.ts); the numbers and decisions live here.
 */

/** How long a relay's lease lasts (it is renewed between rounds): a process that died is replaced this soon. */
export const RELAY_LEASE_MS = 2_000;

/** Outbox entries a relay reads per round. */
export const RELAY_BATCH = 100;

/** Rounds of one run before it gives the event loop back (each round reads one batch). */
export const RELAY_MAX_ROUNDS = 16;

/**
 * How often in a row an `append` may find its sequence taken (by another relay, whose lease lapsed
 * while it was paused) before the run gives up: each time, the other relay made progress.
 */
export const RELAY_MAX_TAKEN = 32;

/**
 * How deep `follows` may lead. A photo's event waits for its pet's, a pet's release for its order's,
 * an order's placement for its pet's reservation (whose earlier entries are moved by then), a pet's
 * creation for its category's: three at most. Deeper is a broken store (or a circle).
 */
export const RELAY_MAX_DEPTH = 8;

/**
 * The waits of an idle relay before it looks again (changes of other processes sharing the store
 * are found this way; its own process's writes wake it at once): 25 ms after a run that moved
 * something, then doubling up to 400 ms, so an event is in the feed well within a second of its
 * change (§15, guarantee 4).
 */
export const RELAY_IDLE_DELAYS_MS: readonly number[] = [25, 50, 100, 200, 400];

/** The wait before the next look after `idleRounds` runs in a row that moved nothing (0: at once). */
export const relayDelay = (idleRounds: number): number =>
  idleRounds <= 0 ? 0 : RELAY_IDLE_DELAYS_MS[Math.min(idleRounds, RELAY_IDLE_DELAYS_MS.length) - 1]!;

/** The entries of one resource's outbox, in order. */
export interface SourceEntries {
  readonly source: EventSource;
  readonly entries: readonly OutboxEntry[];
}

/** Pending entries grouped by their resource, each group in the order given, the groups in the order of their first entry. */
export const bySource = (entries: readonly OutboxEntry[]): readonly SourceEntries[] => {
  // The usual batch of a relay woken by one write: one entry, one group (no map, no key).
  if (entries.length === 1) return [{ source: eventSource(entries[0]!), entries }];
  const groups = new Map<string, { source: EventSource; entries: OutboxEntry[] }>();
  for (const entry of entries) {
    const key = eventSourceKey(entry);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { source: eventSource(entry), entries: [entry] });
    else group.entries.push(entry);
  }
  return [...groups.values()];
};

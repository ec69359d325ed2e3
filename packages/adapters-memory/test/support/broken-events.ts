import type { Event, EventStore, OutboxEntry } from '@petstore/domain';
import { eventSource } from '@petstore/domain';
import { forwardingEvents } from '@petstore/domain/testing';
import { EventStoreInMemory, type MemoryOutbox } from '../../src/index.js';

/**
 * Event stores that each break one guarantee of docs/rules.md §15 the way a real adapter could, for
 * the strength test (events-contract-strength.test.ts): the exported contract suite must fail for
 * each. Each is the memory store, right, behind a wrapper that bends one step through its own port.
 */
export const EVENT_DEFECTS = [
  {
    name: 'skips a sequence:',
    why: 'its last sequence counts a repeat of an event already in the feed as an append, so the relay numbers the next event past a sequence never used (which the store under it refuses: the feed stops growing)',
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

/** The memory store over `outbox`, right but for its one `defect`. */
export const brokenEvents = (outbox: MemoryOutbox, defect: EventDefect): EventStore => {
  const inner = new EventStoreInMemory(outbox);
  const store = forwardingEvents(inner);
  switch (defect) {
    case 'skips a sequence:': {
      let repeats = 0;
      return {
        ...store,
        lastSequence: () => inner.lastSequence() + repeats,
        append: (event) => {
          const outcome = inner.append(event);
          if (outcome === 'duplicate') repeats++;
          return outcome;
        },
      };
    }
    case 'stores an event twice:': {
      // An id already in the feed is stored again under an alias, which reads show as the id.
      const aliases = new Map<string, string>();
      const shown = (event: Event): Event => ({ ...event, id: aliases.get(event.id) ?? event.id });
      return {
        ...store,
        append: (event) => {
          const outcome = inner.append(event);
          if (outcome !== 'duplicate') return outcome;
          const alias = `${event.id}_again${aliases.size}`;
          aliases.set(alias, event.id);
          return inner.append({ ...event, id: alias });
        },
        after: (sequence, query) => inner.after(sequence, query).map(shown),
      };
    }
    case 'shows an event before a smaller one:': {
      const hidden = new Set<number>();
      return {
        ...store,
        append: (event) => {
          const outcome = inner.append(event);
          if (outcome === 'appended' && event.sequence % 2 === 1) {
            hidden.add(event.sequence);
            setTimeout(() => hidden.delete(event.sequence), 3);
          }
          return outcome;
        },
        after: (sequence, query) => inner.after(sequence, query).filter((event) => !hidden.has(event.sequence)),
      };
    }
    case 'loses an event in a crash:': {
      /** `entries`, taken out of their outboxes as they are read. */
      const taken = (entries: readonly OutboxEntry[]): readonly OutboxEntry[] => {
        for (const entry of entries) inner.clear(eventSource(entry), [entry.id]);
        return entries;
      };
      return {
        ...store,
        pending: (limit) => taken(inner.pending(limit)),
        pendingOf: (source) => taken(inner.pendingOf(source)),
      };
    }
  }
};

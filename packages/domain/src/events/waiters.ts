import type { Timers } from '../use-cases/event-relay.js';

interface Waiter {
  readonly sequence: number;
  readonly end: () => void;
}

/**
 * The waits of an event store's `waitBeyond` (docs/rules.md §15): each ends once, at the first of an
 * event beyond its sequence (`notify`), its timeout, or its `until` settling, and answers the last
 * sequence as it is then (`current`). A wait that has ended leaves nothing behind: neither its entry
 * nor its timer.
 */
export class SequenceWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly timers: Timers) {}

  /**
   * A wait for a sequence beyond `sequence`, of at most `timeoutMs` (or until `until` settles): ends at
   * once when `current()` is beyond it already. Resolves with `current()` at its end, never rejects.
   * `timeoutMs` Infinity sets no timer: the wait ends only by an event or `until`.
   */
  wait(sequence: number, timeoutMs: number, current: () => number, until?: PromiseLike<unknown>): Promise<number> {
    if (current() > sequence) return Promise.resolve(current());
    return new Promise<number>((resolve) => {
      let timer: unknown;
      const waiter: Waiter = {
        sequence,
        end: () => {
          if (!this.waiters.delete(waiter)) return;
          if (timer !== undefined) this.timers.clearTimeout(timer);
          resolve(current());
        },
      };
      this.waiters.add(waiter);
      if (timeoutMs !== Number.POSITIVE_INFINITY) timer = this.timers.setTimeout(waiter.end, timeoutMs);
      until?.then(waiter.end, waiter.end);
    });
  }

  /** Ends the waits for a sequence below `last` (the caller's `current()` has reached `last`). */
  notify(last: number): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) if (waiter.sequence < last) waiter.end();
  }

  /** Waits under way. */
  get size(): number {
    return this.waiters.size;
  }
}

import type { Timers } from '../../src/index.js';
import type { ManualClock } from '../../test-support/index.js';

/**
 * Timers on a `ManualClock`: nothing fires by itself; `fireNext` moves the clock to the earliest
 * timer and fires it. So hours of waits run in a few milliseconds of a test, in their order.
 */
export class VirtualTimers implements Timers {
  private readonly queue: { at: number; order: number; fire: () => void }[] = [];
  private order = 0;

  constructor(private readonly clock: ManualClock) {}

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { at: this.clock.now() + Math.max(0, ms), order: this.order++, fire: callback };
    this.queue.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    const at = this.queue.indexOf(handle as (typeof this.queue)[number]);
    if (at >= 0) this.queue.splice(at, 1);
  }

  /** Timers set and neither fired nor cleared. */
  get pending(): number {
    return this.queue.length;
  }

  /** Moves the clock to the earliest timer (never back) and fires it; false when none is set. */
  fireNext(): boolean {
    if (this.queue.length === 0) return false;
    this.queue.sort((a, b) => a.at - b.at || a.order - b.order);
    const timer = this.queue.shift()!;
    if (timer.at > this.clock.now()) this.clock.set(timer.at);
    timer.fire();
    return true;
  }
}

/** Lets every promise chain under way run to its next wait on a timer (or on something a test holds). */
export const settle = async (): Promise<void> => {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** Fires timers, one at a time, until `done` holds; throws when nothing is left to fire or after `maxTimers`. */
export const runUntil = async (timers: VirtualTimers, done: () => boolean, maxTimers = 20_000): Promise<void> => {
  for (let fired = 0; fired <= maxTimers; fired++) {
    await settle();
    if (done()) return;
    if (!timers.fireNext()) throw new Error('no timer is left to fire and the condition does not hold');
  }
  throw new Error(`the condition does not hold after ${maxTimers} timers`);
};

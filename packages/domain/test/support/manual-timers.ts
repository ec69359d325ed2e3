import type { Timers } from '../../src/index.js';

/** A timer of `ManualTimers`: `cleared` once cleared or fired; `clears` counts the calls to clear it. */
export interface ManualTimer {
  readonly ms: number;
  readonly fire: () => void;
  cleared: boolean;
  clears: number;
}

/** Timers a test fires by hand. */
export class ManualTimers implements Timers {
  readonly scheduled: ManualTimer[] = [];
  setTimeout(callback: () => void, ms: number): unknown {
    const timer: ManualTimer = { ms, fire: callback, cleared: false, clears: 0 };
    this.scheduled.push(timer);
    return timer;
  }
  clearTimeout(handle: unknown): void {
    const timer = handle as ManualTimer;
    timer.cleared = true;
    timer.clears++;
  }
  get live() {
    return this.scheduled.filter((t) => !t.cleared);
  }
  /** Fires `timer` (once: a cleared or fired timer does nothing). */
  fire(timer: ManualTimer): void {
    if (timer.cleared) return;
    timer.cleared = true;
    timer.fire();
  }
  fireLast(): void {
    this.fire(this.live[this.live.length - 1]!);
  }
}

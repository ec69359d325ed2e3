import type { Clock } from '../src/index.js';

/** A clock that moves only when told to: for windows, bans and sunsets in tests. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2027, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(epochMs: number): void {
    this.current = epochMs;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

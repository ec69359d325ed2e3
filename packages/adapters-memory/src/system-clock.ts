import type { Clock } from '@petstore/domain';

/** The machine's clock. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

import type { Event } from '@petstore/domain';

/** Below this many dropped slots the list is never compacted (a copy of a short array is not worth it). */
const COMPACT_AFTER = 1024;

/**
 * Events in ascending sequence that leave from the start only: an array and the index its kept part
 * starts at. Dropping the oldest clears its slot and moves the index (no shift of the whole array
 * per event); the dropped slots are cut off once they are as many as the kept ones, so the array is
 * at most about twice what is kept, and every event dropped can be collected at once.
 */
export class EventList {
  private items: (Event | undefined)[] = [];
  private head = 0;

  /** Events kept. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** The `index`-th event kept (0: the oldest). */
  at(index: number): Event | undefined {
    return this.items[this.head + index];
  }

  push(event: Event): void {
    this.items.push(event);
  }

  /** The index of the first event kept whose sequence is greater than `sequence` (`length` when none is). */
  firstAfter(sequence: number): number {
    let low = this.head;
    let high = this.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.items[mid]!.sequence <= sequence) low = mid + 1;
      else high = mid;
    }
    return low - this.head;
  }

  /** The events kept from index `start` (inclusive) to `end` (exclusive). */
  slice(start: number, end: number): Event[] {
    return this.items.slice(this.head + start, this.head + end) as Event[];
  }

  /** Drops the oldest event kept and answers it (`undefined` when none is kept). */
  shift(): Event | undefined {
    const event = this.items[this.head];
    if (event === undefined) return undefined;
    this.items[this.head++] = undefined;
    this.compact();
    return event;
  }

  /** Drops every event kept up to sequence `through`; answers them, oldest first. */
  dropThrough(through: number): Event[] {
    const count = this.firstAfter(through);
    const dropped = this.slice(0, count);
    this.items.fill(undefined, this.head, this.head + count);
    this.head += count;
    this.compact();
    return dropped;
  }

  private compact(): void {
    if (this.head < COMPACT_AFTER || this.head * 2 < this.items.length) return;
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}

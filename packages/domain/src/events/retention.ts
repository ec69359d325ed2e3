import { DAY_MS } from '../quota/windows.js';
import { timestamp } from '../order/order.js';
import type { Event } from './event.js';

/**
 * How long events are kept (docs/rules.md §15, guarantee 5), and what a reader behind it is told.
 * Older events leave the start of the feed, never its middle. The bounds of the retention, in whole
 * days (a server reads its setting against them; an embedding service configures its own).
 */
export const EVENT_RETENTION_DAYS = { default: 30, min: 1, max: 365 } as const;

/** The oldest `occurredAt` kept at `now`: events that occurred before it may go. */
export const retentionCutoff = (now: number, days: number): string => timestamp(now - days * DAY_MS);

/**
 * How many events from the start of `events` (consecutive, from the first kept one) may go: those
 * before the first that occurred at or after `cutoff`. An event that occurred later holds back the
 * ones after it, however old: the feed loses its start, never its middle.
 */
export const expiredPrefix = (events: readonly Event[], cutoff: string): number => {
  const young = events.findIndex((event) => event.occurredAt >= cutoff);
  return young === -1 ? events.length : young;
};

/** Whether a reader asking for the events after `after` fell behind the retention: the event after it is no longer kept. */
export const isBehindRetention = (after: number, firstKept: number): boolean => after < firstKept - 1;

/** The message of the 410 `gone` for a reader behind the retention: the first sequence still kept, and how to go on. */
export const behindRetentionMessage = (after: number, firstKept: number): string =>
  `events after ${after} are no longer kept; the first kept event is ${firstKept}: read on from after=${firstKept - 1} (what came between is lost to this reader)`;

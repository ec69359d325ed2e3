/** The two fixed windows of docs/rules.md §5: the UTC minute and the UTC day. */
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export type WindowName = 'minute' | 'day';

/** Start of the fixed window of length `lengthMs` that holds `now` (epoch ms; windows align to UTC). */
export const windowStart = (now: number, lengthMs: number): number => now - (((now % lengthMs) + lengthMs) % lengthMs);

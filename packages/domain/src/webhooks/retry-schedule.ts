import type { Random } from '../ports/random.port.js';

/**
 * When a failed delivery is made again (docs/rules.md §15, "Retries"): after the first attempt at an
 * event fails, the same event is sent again after 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h,
 * each wait drawn uniformly within ±20 % of its entry; when the 8th attempt (the last retry) fails
 * too, the subscription is paused. The one table of the waits.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** How far a wait may stray from its entry, each way (0.2: ±20 %). */
export const WEBHOOK_RETRY_JITTER = 0.2;

/** Attempts at one event before its subscription pauses: the first and one per entry of the table. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** What follows a failed attempt: another after `delayMs`, or a pause (the schedule ran out). */
export type RetryDecision = { readonly retry: true; readonly delayMs: number } | { readonly retry: false };

/** A uniform draw from [0, 1) out of 4 bytes of `random` (2^32 steps: finer than a millisecond of any wait). */
const uniform = (random: Random): number => {
  const bytes = random.bytes(4);
  if (bytes.length < 4) throw new Error(`the random source gave ${bytes.length} bytes where 4 were asked for`);
  return (((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!) / 2 ** 32;
};

/**
 * After the `failures`-th failed attempt at an event (1 for the first attempt), the wait before the
 * next one (whole ms, within ±`WEBHOOK_RETRY_JITTER` of the table's entry), or a pause once
 * `WEBHOOK_MAX_ATTEMPTS` attempts have failed.
 */
export const afterFailure = (failures: number, random: Random): RetryDecision => {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be 1 or more (got ${failures})`);
  const entry = WEBHOOK_RETRY_DELAYS_MS[failures - 1];
  if (entry === undefined) return { retry: false };
  const factor = 1 - WEBHOOK_RETRY_JITTER + 2 * WEBHOOK_RETRY_JITTER * uniform(random);
  return { retry: true, delayMs: Math.round(entry * factor) };
};

/** The time the whole schedule spans at its entries (27 h 35 min 5 s): what a pause's reason names when the real span is unknown. */
export const WEBHOOK_RETRY_SPAN_MS = WEBHOOK_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);

/** A span as people read it: `27 h 35 min`, `5 min 3 s`, `4 s` (whole seconds, its two largest units). */
export const spanText = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const units: ReadonlyArray<readonly [number, string]> = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor(seconds / 60) % 60, 'min'],
    [seconds % 60, 's'],
  ];
  const first = units.findIndex(([count]) => count > 0);
  if (first < 0) return '0 s';
  return units
    .slice(first, first + 2)
    .filter(([count]) => count > 0)
    .map(([count, unit]) => `${count} ${unit}`)
    .join(' ');
};
